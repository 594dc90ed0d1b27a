/**
 * Reading a whole-history answer as it arrives. Rows are parsed and validated a batch at a time, as
 * the body comes in. A small answer keeps the parsed rows, and their text beside them: once the
 * answer passes `afterRows` the text goes to a `TransactionSpill` and the parsed rows are dropped,
 * so memory stays the same whatever the history's length. Rows that arrive after that are only
 * checked and dated (documented ones on their text, documented-text.ts) and parsed when read back.
 * Either way every row is checked before any is handed out, and the answer is handed out in the
 * same pages of whole weeks (week-pages.ts).
 */
import type { CalendarDate } from '@finsync/internals/calendar';
import { TransactionSpill } from './spill.js';
import { HeldHistory } from './week-pages.js';
import type { RawWindowResult } from './transactions.js';
import { documentedDatesOfText } from './wire/documented-text.js';
import { JsonListScanner, ListScanError, elementsOf, type ListRun } from './wire/list-scanner.js';
import type { Transaction } from './wire/schemas.js';

/**
 * The `spill` option of `ProviderClientOptions`: when a large transactions answer goes to temporary
 * files rather than staying in memory, and how large the pages it is handed out in are. Every member
 * is optional; the defaults suit histories of millions of rows.
 */
export interface SpillSettings {
  /**
   * Rows held in memory, parsed and as their text, before the answer goes to disk. Default
   * 12 000: about 6 MiB (some 360 bytes a parsed row and 190 of text), so five years of a busy
   * current account (some 10 000 rows) stay in memory and are parsed once.
   */
  afterRows?: number | undefined;
  /** Rows per page handed out, held or read back from disk (whole weeks). Default 2 000. */
  pageRows?: number | undefined;
  /** Where the temporary files go. Default: the OS temp directory. */
  directory?: string | undefined;
}

const DEFAULT_SPILL = { afterRows: 12_000, pageRows: 2_000 } as const;

/** Spill settings with their defaults filled in, once, by the client that owns them. */
export type ResolvedSpillSettings = Required<Pick<SpillSettings, 'afterRows' | 'pageRows'>> &
  Pick<SpillSettings, 'directory'>;

export function resolveSpillSettings(spill: SpillSettings): ResolvedSpillSettings {
  return {
    afterRows: spill.afterRows ?? DEFAULT_SPILL.afterRows,
    pageRows: spill.pageRows ?? DEFAULT_SPILL.pageRows,
    directory: spill.directory,
  };
}

export interface StreamedList {
  chunks(): AsyncIterable<Uint8Array>;
  /**
   * Validates rows `offset`.. of the list; throws the client's error for a bad row. `documented`
   * when every one was of the documented shape.
   */
  parseRows(raw: unknown[], offset: number): { rows: Transaction[]; documented: boolean };
  /**
   * Validates rows `offset`.. as `parseRows` does and returns only their dates: rows going to disk
   * are read again from their text, so building them now would be wasted. `documented` when every
   * one was of the documented shape: read back, they are built by `decodeDocumented`.
   */
  datesOfRows(raw: unknown[], offset: number): { dates: CalendarDate[]; documented: boolean };
  /** Rows `datesOfRows` found of the documented shape, read back: built without their checks. */
  decodeDocumented(raw: unknown[]): Transaction[];
  /** Validates the object around the list and returns its count. */
  parseEnvelope(envelope: unknown): number | null;
  /** A body that is not the JSON it claims to be. */
  notJson(message: string): Error;
  spill: ResolvedSpillSettings;
}

export async function readStreamedList(list: StreamedList): Promise<RawWindowResult> {
  const { afterRows, pageRows } = list.spill;
  const scanner = new JsonListScanner({ listKey: 'transactions' });
  const decoder = new TextDecoder();
  /**
   * Every row so far, until the answer passes `afterRows`: parsed, as the answer's rows if it ends
   * there, and their text as the runs they came in, for the spill if it does not. The text takes
   * about half the parsed rows' memory (190 against 360 bytes a row); keeping both spares every
   * small answer a second parse of its text. With each run, whether all its rows were of the
   * documented shape: the spill builds such rows without their checks when it reads them back.
   */
  let held: Array<{ run: ListRun; rows: Transaction[]; documented: boolean }> = [];
  let heldRows = 0;
  let spill: TransactionSpill | undefined;

  /** The run's elements, parsed (not validated). */
  const parse = (run: ListRun): unknown[] => {
    try {
      return JSON.parse(`[${run.text}]`) as unknown[];
    } catch (error) {
      throw list.notJson((error as Error).message);
    }
  };

  const take = async (run: ListRun) => {
    if (run.count === 0) return;
    // Where the run's first row is in the list, for the errors of a bad row.
    const offset = scanner.elementCount - run.count;
    if (spill) {
      // Rows going to disk are parsed when read back: documented ones are checked on their text.
      const checked = documentedDatesOfText(run);
      if (checked) return spill.add(checked, elementsOf(run), true);
      const { dates, documented } = list.datesOfRows(parse(run), offset);
      return spill.add(dates, elementsOf(run), documented);
    }
    held.push({ run, ...list.parseRows(parse(run), offset) });
    heldRows += run.count;
    if (heldRows <= afterRows) return;
    spill = await TransactionSpill.create({
      directory: list.spill.directory,
      pageRows,
      decode: (raw) => list.parseRows(raw, 0).rows,
      decodeDocumented: (raw) => list.decodeDocumented(raw),
    });
    const runs = held;
    held = [];
    for (const { run, rows, documented } of runs) await spill.add(datesOf(rows), elementsOf(run), documented);
  };

  try {
    for await (const chunk of list.chunks())
      await take(scan(scanner, decoder.decode(chunk, { stream: true })));
    await take(scan(scanner, decoder.decode()));
    let envelope: unknown;
    try {
      envelope = scanner.end();
    } catch (error) {
      throw list.notJson((error as Error).message);
    }
    const total = list.parseEnvelope(envelope);
    if (spill) return { rows: [], total, paged: spill };
    // An empty answer stays one page: a page, even empty, is what carries a shortfall.
    if (heldRows === 0) return { rows: [], total };
    return {
      rows: [],
      total,
      paged: new HeldHistory(
        held.map((batch) => batch.rows),
        pageRows,
      ),
    };
  } catch (error) {
    await spill?.dispose();
    throw error;
  }

  function scan(scanner: JsonListScanner, text: string): ListRun {
    try {
      return scanner.write(text);
    } catch (error) {
      if (error instanceof ListScanError) throw list.notJson(error.message);
      throw error;
    }
  }
}

function datesOf(rows: readonly Transaction[]): CalendarDate[] {
  const dates: CalendarDate[] = new Array(rows.length);
  for (let index = 0; index < rows.length; index++) dates[index] = rows[index]!.date;
  return dates;
}
