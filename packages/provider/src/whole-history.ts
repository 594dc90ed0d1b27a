/**
 * Reading a whole-history answer as it arrives. Rows are checked and dated a batch at a time, as the
 * body comes in (documented ones on their text, documented-text.ts; others parsed), and wait as their
 * text in a `TransactionSpill`: in memory up to `afterRows` rows, on disk past that, so memory stays
 * the same whatever the history's length. They are parsed when their page is handed out (rows
 * built in full as they arrived, to be checked, are kept so while the answer is held). Every row
 * is checked before any is handed out, and the answer is handed out in pages of whole weeks
 * (week-pages.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import type { CalendarDate } from '@finsync/internals/calendar';
import { TransactionSpill } from './spill.js';
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
   * Rows held in memory, as their text, before the answer goes to disk. Default 12 000: about
   * 2.5 MiB (some 190 bytes a row), so five years of a busy current account (some 10 000 rows) stay
   * in memory. A row is parsed when its page is handed out; a row the fast path's checks cannot take
   * is also built in full as it arrives, to be checked, and kept so while the answer is held.
   */
  afterRows?: number | undefined;
  /** Rows per page handed out, held or read back from disk (whole weeks). Default 2 000. */
  pageRows?: number | undefined;
  /** Where the temporary files go. Default: the OS temp directory. */
  directory?: string | undefined;
}

const DEFAULT_SPILL = { afterRows: 12_000, pageRows: 2_000 } as const;

const BYTE_ORDER_MARK = 0xfeff;

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
   * Validates rows `offset`.. as `parseRows` does and returns their dates: rows waiting are read
   * again from their text, so building rows of the documented shape now would be wasted. `documented`
   * when every one was of that shape: read back, they are built by `decodeDocumented`. Otherwise the
   * rows had to be built to be checked, and come back as `rows`.
   */
  datesOfRows(
    raw: unknown[],
    offset: number,
  ): { dates: CalendarDate[]; documented: boolean; rows?: Transaction[] | undefined };
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
  // StringDecoder, not TextDecoder: a TextDecoder in stream mode took about five times as long for
  // the same chunks (2.0 against 0.42 ms for 10,000 rows' 1.9 MB in 64 KiB chunks). Both hand back a
  // character cut across two chunks whole, and a bad sequence as U+FFFD; a BOM, which TextDecoder
  // drops as every body read whole drops it (body-text.ts), is dropped below.
  const decoder = new StringDecoder('utf8');
  let started = false;
  const decoded = (text: string) => {
    if (started || text === '') return text;
    started = true;
    return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
  };
  // Every row waits as the text it came in (in memory up to `afterRows` rows, then on disk) and is
  // parsed when its page is handed out: parsed rows held until the answer's end took three times the
  // memory, and lived long enough to be collected only with the old generation (spill.ts).
  const spill = new TransactionSpill({
    directory: list.spill.directory,
    memoryRows: afterRows,
    pageRows,
    decode: (raw) => list.parseRows(raw, 0).rows,
    decodeDocumented: (raw) => list.decodeDocumented(raw),
  });

  const take = async (run: ListRun) => {
    if (run.count === 0) return;
    // Where the run's first row is in the list, for the errors of a bad row.
    const offset = scanner.elementCount - run.count;
    // Documented rows are checked on their text; any other run is parsed to check it and date it.
    // A run the fast path's checks cannot take is built in full for that: while the answer is held,
    // its rows are kept as built, not built a second time when handed out.
    const checked = documentedDatesOfText(run);
    if (checked) return spill.add(checked, elementsOf(run), true);
    let raw: unknown[];
    try {
      raw = JSON.parse(`[${run.text}]`) as unknown[];
    } catch (error) {
      throw list.notJson((error as Error).message);
    }
    const { dates, documented, rows } = list.datesOfRows(raw, offset);
    if (rows && spill.holds(run.count)) return spill.addParsed(rows, elementsOf(run), documented);
    return spill.add(dates, elementsOf(run), documented);
  };

  try {
    for await (const chunk of list.chunks()) await take(scan(scanner, decoded(decoder.write(chunk))));
    await take(scan(scanner, decoded(decoder.end())));
    let envelope: unknown;
    try {
      envelope = scanner.end();
    } catch (error) {
      throw list.notJson((error as Error).message);
    }
    const total = list.parseEnvelope(envelope);
    // An empty answer stays one page: a page, even empty, is what carries a shortfall.
    if (spill.rowCount === 0) {
      await spill.dispose();
      return { rows: [], total };
    }
    return { rows: [], total, paged: spill };
  } catch (error) {
    await spill.dispose();
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
