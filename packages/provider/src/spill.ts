/**
 * Where a whole-history answer waits while it is read. The provider sends an account's whole history
 * as one response, in no promised order; holding it all would make memory follow the history's
 * length. Rows are kept, already validated and as the text they came in, grouped by week of date:
 * in memory up to `memoryRows` rows, then in a temporary file. They are parsed when read back, a few
 * weeks at a time, as the pages week-pages.ts describes.
 *
 * Text rather than parsed rows is what waits in memory: an answer waits until its last row has come,
 * so what waits outlives the young generation's collections and is collected late, with the old
 * generation. Parsed rows took about three times the text's memory there (a 1M-row first sync
 * promoted 67 MiB into the old generation with 12,000 parsed rows held per answer, 28 MiB with
 * 2,000), and the old generation's peak follows what is promoted.
 */
import { mkdtemp, open, rm, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CalendarDate } from '@finsync/internals/calendar';
import { weekOf, weekRuns, type HistoryPage, type HistoryWindow, type PagedHistory } from './week-pages.js';
import type { Transaction } from './wire/schemas.js';

/**
 * Text held in memory across all weeks before it is written, once the rows are past `memoryRows`.
 * Small: text held longer survives young-generation collections and piles up in the old
 * generation, where it is collected late.
 */
const FLUSH_CHARS = 256 << 10;
/**
 * The most text written as one range, and so read back and parsed as one string. V8 allocates a
 * string over ~128 KiB in its large-object space, where decoding one cost ~30× as much a row as
 * decoding a smaller one (measured in the package README).
 */
const RANGE_CHARS = 48 << 10;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export interface SpillOptions {
  /** Parent of the temporary directory. Default: the OS temp directory. */
  directory?: string | undefined;
  /** Rows kept in memory; past this many, the text goes to a temporary file. Default 0. */
  memoryRows?: number | undefined;
  /** Rows per page read back, at most (whole weeks: a week holding more is a page of its own). */
  pageRows: number;
  /** Turns the rows' text, parsed, back into rows (it was validated before it was added). */
  decode: (raw: unknown[]) => Transaction[];
  /** `decode` for rows added as `documented`: found of the documented shape, so not checked again. */
  decodeDocumented: (raw: unknown[]) => Transaction[];
}

/** Where a range of one week's rows lies in the file, and whether all of them were `documented`. */
type Range = [offset: number, length: number, documented: boolean];

export class TransactionSpill implements PagedHistory {
  readonly #parent: string | undefined;
  readonly #memoryRows: number;
  /** The temporary directory and its file, once the rows outgrow `memoryRows`. */
  #directory: string | undefined;
  #file: FileHandle | undefined;
  /** The file being made: `dispose()` waits for it, so nothing is left behind. */
  #opening: Promise<FileHandle> | undefined;
  #paged = false;
  #disposed = false;
  #fileSize = 0;
  /** Where each week's text lies in the file: a range per write. */
  readonly #ranges = new Map<number, Range[]>();
  #writeBuffer: Buffer = Buffer.alloc(0);
  #readBuffer: Buffer = Buffer.alloc(0);
  readonly #pageRows: number;
  readonly #decode: SpillOptions['decode'];
  readonly #decodeDocumented: SpillOptions['decodeDocumented'];
  /** Rows per week written or waiting, by week number. */
  readonly #counts = new Map<number, number>();
  readonly #waiting = new Map<number, string[]>();
  /**
   * Rows added parsed (`addParsed`) while the spill is in memory, by week, each at its line's index
   * in `#waiting` (a hole where a line was added as text): handed out as they are, not parsed again.
   */
  readonly #waitingParsed = new Map<number, Array<Transaction | undefined>>();
  /** Weeks whose waiting text holds a row not added as `documented`: checked when read back. */
  readonly #waitingToCheck = new Set<number>();
  readonly #weekOfDate = new Map<CalendarDate, number>();
  #waitingChars = 0;
  #rows = 0;
  #earliest: CalendarDate | undefined;

  constructor(options: SpillOptions) {
    this.#parent = options.directory;
    this.#memoryRows = options.memoryRows ?? 0;
    this.#pageRows = options.pageRows;
    this.#decode = options.decode;
    this.#decodeDocumented = options.decodeDocumented;
  }

  #openFile(): Promise<FileHandle> {
    this.#opening ??= this.#makeFile();
    return this.#opening;
  }

  async #makeFile(): Promise<FileHandle> {
    const directory = await mkdtemp(join(this.#parent ?? tmpdir(), 'finsync-spill-'));
    try {
      const path = join(directory, 'rows.json');
      const file = await open(path, 'w+');
      // Gone from the directory at once where the system allows it (POSIX): the rows live as long as
      // the handle, so a process killed outright leaves no copy of them behind (only the empty
      // directory, which close() removes). Where it does not (Windows keeps an open file), close()
      // removes the file with its directory, as before.
      await unlink(path).catch(() => undefined);
      if (this.#disposed) {
        // Disposed while the file was being made (the caller stopped): nothing may stay behind.
        await file.close().catch(() => undefined);
        throw new Error('the spill was disposed');
      }
      this.#directory = directory;
      this.#file = file;
      return file;
    } catch (error) {
      await rm(directory, { recursive: true, force: true });
      throw error;
    }
  }

  /** Rows added so far. */
  get rowCount(): number {
    return this.#rows;
  }

  /** The earliest date added, if any. */
  get earliest(): CalendarDate | undefined {
    return this.#earliest;
  }

  /**
   * Rows by their dates and their text as received (one JSON value each), in the same order;
   * `documented` when every one was found of the documented shape (`decodeDocumented` reads them).
   */
  async add(dates: readonly CalendarDate[], texts: readonly string[], documented: boolean): Promise<void> {
    for (let index = 0; index < dates.length; index++) {
      const week = this.#push(dates[index]!, texts[index]!, documented);
      // Kept aligned with the week's lines where rows were added parsed (rarely: see addParsed).
      if (this.#waitingParsed.size > 0) this.#waitingParsed.get(week)?.push(undefined);
      if (this.#mustFlush()) await this.#flush();
    }
  }

  /** Whether `count` more rows would still be held in memory: `addParsed` may take them. */
  holds(count: number): boolean {
    return this.#file === undefined && this.#rows + count <= this.#memoryRows;
  }

  /**
   * Rows parsed and validated as they arrived, with their text: while held (see `holds`), handed out
   * as they are rather than parsed again; the text is what goes to the file should the answer
   * outgrow `memoryRows`. For rows the fast path's checks cannot take, which had to be built in
   * full to be checked: through `add` they would be built a second time when handed out.
   */
  async addParsed(
    rows: readonly Transaction[],
    texts: readonly string[],
    documented: boolean,
  ): Promise<void> {
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index]!;
      const week = this.#push(row.date, texts[index]!, documented);
      let parsed = this.#waitingParsed.get(week);
      if (!parsed) {
        parsed = new Array<Transaction | undefined>(this.#waiting.get(week)!.length - 1).fill(undefined);
        this.#waitingParsed.set(week, parsed);
      }
      parsed.push(row);
      if (this.#mustFlush()) await this.#flush();
    }
  }

  /** Adds one row's text; returns its week. */
  #push(date: CalendarDate, line: string, documented: boolean): number {
    let week = this.#weekOfDate.get(date);
    if (week === undefined) {
      week = weekOf(date);
      this.#weekOfDate.set(date, week);
    }
    const waiting = this.#waiting.get(week);
    if (waiting) waiting.push(line);
    else this.#waiting.set(week, [line]);
    if (!documented) this.#waitingToCheck.add(week);
    this.#counts.set(week, (this.#counts.get(week) ?? 0) + 1);
    this.#waitingChars += line.length;
    this.#rows += 1;
    if (this.#earliest === undefined || date < this.#earliest) this.#earliest = date;
    return week;
  }

  /** Past `memoryRows`, the text goes to the file as it comes, FLUSH_CHARS at a time. */
  #mustFlush(): boolean {
    return this.#waitingChars >= FLUSH_CHARS && this.#rows > this.#memoryRows;
  }

  async *pages(window: HistoryWindow): AsyncGenerator<HistoryPage> {
    // Rows in memory are let go as they are handed out: a second pass would find weeks without rows.
    if (this.#paged || this.#disposed) throw new Error('a history is paged once, and not after dispose()');
    this.#paged = true;
    if (!this.#file && this.#rows <= this.#memoryRows) {
      for (const run of weekRuns(this.#counts, this.#pageRows, window))
        yield { from: run.from, to: run.to, rows: this.#readWaiting(run.weeks) };
      return;
    }
    await this.#flush();
    for (const run of weekRuns(this.#counts, this.#pageRows, window))
      yield { from: run.from, to: run.to, rows: await this.#read(run.weeks) };
  }

  /** Lets go of the rows and removes the file, if any. Safe to call more than once. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    this.#waiting.clear();
    this.#waitingParsed.clear();
    this.#waitingToCheck.clear();
    // A file still being made removes itself once it sees the spill disposed.
    await this.#opening?.catch(() => undefined);
    await this.#file?.close().catch(() => undefined);
    if (this.#directory !== undefined) await rm(this.#directory, { recursive: true, force: true });
  }

  /** The rows of `weeks` still in memory, let go as they are handed out. */
  #readWaiting(weeks: readonly number[]): Transaction[] {
    const rows: Transaction[] = [];
    for (const week of weeks) {
      const lines = this.#waiting.get(week);
      if (!lines) continue;
      const decode = this.#waitingToCheck.has(week) ? this.#decode : this.#decodeDocumented;
      // Lines `from`..`to` parsed a range at a time, each a small string, as the file's ranges are
      // (RANGE_CHARS).
      const parse = (from: number, to: number) => {
        for (const [start, end] of rangesOf(lines, from, to)) {
          const raw = JSON.parse(`[${lines.slice(start, end).join(',')}]`) as unknown[];
          for (const row of decode(raw)) rows.push(row);
        }
      };
      // In the order they came: text parsed now, rows added parsed as they are.
      const parsed = this.#waitingParsed.get(week);
      let from = 0;
      if (parsed) {
        for (let index = 0; index < lines.length; index++) {
          const row = parsed[index];
          if (row === undefined) continue;
          parse(from, index);
          rows.push(row);
          from = index + 1;
        }
      }
      parse(from, lines.length);
      this.#waiting.delete(week);
      this.#waitingParsed.delete(week);
    }
    return rows;
  }

  async #flush(): Promise<void> {
    if (this.#waiting.size === 0) return;
    const file = await this.#openFile();
    let length = 0;
    // Written FLUSH_CHARS at a time: what waited in memory (up to `memoryRows` rows) goes out in
    // several writes, and the write buffer stays at the size of one.
    const write = async () => {
      const { bytesWritten } = await file.write(this.#writeBuffer, 0, length, this.#fileSize);
      if (bytesWritten !== length)
        throw new Error(`short write to the spill file (${bytesWritten} of ${length})`);
      this.#fileSize += length;
      length = 0;
    };
    const writeRange = (week: number, lines: readonly string[], from: number, to: number) => {
      const documented = !this.#waitingToCheck.has(week);
      // A range is written as a whole JSON array, so it is read back with one `JSON.parse` of the
      // bytes as they are: no brackets added to the text, which would make V8 copy it once more.
      const text = lines.slice(from, to).join(',');
      const buffer = ensureCapacity(this.#writeBuffer, length + Buffer.byteLength(text) + 2);
      this.#writeBuffer = buffer;
      buffer[length] = OPEN_BRACKET;
      const size = buffer.write(text, length + 1) + 2;
      buffer[length + size - 1] = CLOSE_BRACKET;
      const range: Range = [this.#fileSize + length, size, documented];
      const ranges = this.#ranges.get(week);
      if (ranges) ranges.push(range);
      else this.#ranges.set(week, [range]);
      length += size;
    };
    for (const [week, lines] of this.#waiting) {
      for (const [from, to] of rangesOf(lines, 0, lines.length)) {
        writeRange(week, lines, from, to);
        if (length >= FLUSH_CHARS) await write();
      }
    }
    this.#waiting.clear();
    this.#waitingParsed.clear();
    this.#waitingToCheck.clear();
    this.#waitingChars = 0;
    if (length > 0) await write();
  }

  async #read(weeks: readonly number[]): Promise<Transaction[]> {
    const ranges = weeks.flatMap((week) => this.#ranges.get(week)!);
    const length = ranges.reduce((sum, [, size]) => sum + size, 0);
    this.#readBuffer = ensureCapacity(this.#readBuffer, length);
    // Ranges that lie one after another in the file are read as one (a page's weeks mostly come from
    // the same few flushes, in order): a 1M-row pull made 2,610 reads instead of 5,562. One read at a
    // time, and none ahead of the page asked for: either grew a 1M-row sync's peak RSS by 10-25 MiB.
    const file = this.#file!;
    let at = 0;
    for (let first = 0; first < ranges.length;) {
      const offset = ranges[first]![0];
      let size = ranges[first]![1];
      let next = first + 1;
      while (next < ranges.length && ranges[next]![0] === offset + size) size += ranges[next++]![1];
      const { bytesRead } = await file.read(this.#readBuffer, at, size, offset);
      if (bytesRead !== size) throw new Error(`short read from the spill file (${bytesRead} of ${size})`);
      at += size;
      first = next;
    }
    // A range at a time, each a small string (see RANGE_CHARS) holding a JSON array.
    const rows: Transaction[] = [];
    at = 0;
    for (const [, size, documented] of ranges) {
      const text = this.#readBuffer.toString('utf8', at, at + size);
      const raw = JSON.parse(text) as unknown[];
      for (const row of documented ? this.#decodeDocumented(raw) : this.#decode(raw)) rows.push(row);
      at += size;
    }
    return rows;
  }
}

/** Cuts lines `from`..`to` of one week into runs of about RANGE_CHARS characters: `[start, end)`. */
function* rangesOf(lines: readonly string[], from: number, to: number): Generator<[number, number]> {
  let start = from;
  let chars = 0;
  for (let index = from; index < to; index++) {
    chars += lines[index]!.length + 1;
    if (chars < RANGE_CHARS && index < to - 1) continue;
    yield [start, index + 1];
    start = index + 1;
    chars = 0;
  }
}

/**
 * `buffer`, or a larger one holding its bytes. The spill reuses one buffer for writing and one for
 * reading: a fresh ~256 KiB buffer per write is allocated outside V8's heap, and allocations of that
 * size leave the process's native heap fragmented, which showed as RSS that grew with the history.
 */
function ensureCapacity(buffer: Buffer, size: number): Buffer {
  if (buffer.length >= size) return buffer;
  const larger = Buffer.allocUnsafe(Math.max(size, buffer.length * 2));
  buffer.copy(larger);
  return larger;
}
