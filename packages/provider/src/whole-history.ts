/**
 * Reading a whole-history answer as it arrives. Rows are parsed and validated a batch at a time, as
 * the body comes in, but what is kept is their text: a small answer's text is parsed once more at
 * the end (a quarter of the memory of parsed rows while it is held), and once the answer passes
 * `afterRows` the text goes to a `TransactionSpill`, so memory stays the same whatever the
 * history's length. Either way every row is checked before any is handed out.
 */
import type { CalendarDate } from '@finsync/internals/calendar';
import { TransactionSpill } from './spill.js';
import type { RawWindowResult } from './transactions.js';
import { JsonListScanner, ListScanError, elementsOf, type ListRun } from './wire/list-scanner.js';
import type { Transaction } from './wire/schemas.js';

export interface SpillSettings {
  /**
   * Rows held in memory, as their text, before the answer goes to disk. Default 20 000: about
   * 5 MiB of text, and five years of a busy current account (some 10 000 rows) stay in memory.
   */
  afterRows?: number;
  /** Rows per page read back from disk. Default 2 000. */
  pageRows?: number;
  /** Where the temporary files go. Default: the OS temp directory. */
  directory?: string;
}

export const DEFAULT_SPILL = { afterRows: 20_000, pageRows: 2_000 } as const;

export interface StreamedList {
  chunks(): AsyncIterable<Uint8Array>;
  /** Validates rows `offset`.. of the list; throws the client's error for a bad row. */
  parseRows(raw: unknown[], offset: number): Transaction[];
  /** Validates the object around the list and returns its count. */
  parseEnvelope(envelope: unknown): number | null;
  /** A body that is not the JSON it claims to be. */
  notJson(message: string): Error;
  spill: SpillSettings;
}

export async function readStreamedList(list: StreamedList): Promise<RawWindowResult> {
  const afterRows = list.spill.afterRows ?? DEFAULT_SPILL.afterRows;
  const scanner = new JsonListScanner({ listKey: 'transactions' });
  const decoder = new TextDecoder();
  /**
   * Every row so far, until the answer passes `afterRows`: their text as the runs they came in (each
   * is parsed again, whole, at the end) and their dates (what the spill files them by).
   */
  let held: ListRun[] = [];
  let heldRows = 0;
  let heldDates: CalendarDate[] = [];
  let spill: TransactionSpill | undefined;

  /** The run's rows, parsed and validated; `offset` is the first one's index in the list. */
  const parse = (run: ListRun, offset: number): Transaction[] => {
    let raw: unknown[];
    try {
      raw = JSON.parse(`[${run.text}]`) as unknown[];
    } catch (error) {
      throw list.notJson((error as Error).message);
    }
    return list.parseRows(raw, offset);
  };

  const take = async (run: ListRun) => {
    if (run.count === 0) return;
    const rows = parse(run, scanner.elementCount - run.count);
    if (spill) return spill.add(datesOf(rows), elementsOf(run));
    held.push(run);
    heldRows += run.count;
    for (const row of rows) heldDates.push(row.date);
    if (heldRows <= afterRows) return;
    spill = await TransactionSpill.create({
      directory: list.spill.directory,
      pageRows: list.spill.pageRows ?? DEFAULT_SPILL.pageRows,
      decode: (raw) => list.parseRows(raw, 0),
    });
    let at = 0;
    for (const heldRun of held) {
      await spill.add(heldDates.slice(at, at + heldRun.count), elementsOf(heldRun));
      at += heldRun.count;
    }
    held = [];
    heldDates = [];
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
    if (spill) return { rows: [], total, spill };
    // Validated already, as it arrived: this parse only builds the rows, a run at a time.
    const rows: Transaction[] = [];
    let offset = 0;
    for (const run of held) {
      for (const row of parse(run, offset)) rows.push(row);
      offset += run.count;
    }
    return { rows, total };
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
