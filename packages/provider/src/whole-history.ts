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
import { JsonListScanner, ListScanError } from './wire/list-scanner.js';
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
  /** The text and the date of every row so far, until the answer passes `afterRows`. */
  let held: string[] = [];
  let heldDates: CalendarDate[] = [];
  let spill: TransactionSpill | undefined;

  /** Rows `offset`.. of the list, parsed and validated. */
  const parse = (elements: readonly string[], offset: number): Transaction[] => {
    let raw: unknown[];
    try {
      raw = JSON.parse(`[${elements.join(',')}]`) as unknown[];
    } catch (error) {
      throw list.notJson((error as Error).message);
    }
    return list.parseRows(raw, offset);
  };

  const take = async (elements: string[]) => {
    if (elements.length === 0) return;
    const dates = parse(elements, scanner.elementCount - elements.length).map((row) => row.date);
    if (spill) return spill.add(dates, elements);
    for (let index = 0; index < elements.length; index++) {
      held.push(elements[index]!);
      heldDates.push(dates[index]!);
    }
    if (held.length <= afterRows) return;
    spill = await TransactionSpill.create({
      directory: list.spill.directory,
      pageRows: list.spill.pageRows ?? DEFAULT_SPILL.pageRows,
      decode: (raw) => list.parseRows(raw, 0),
    });
    await spill.add(heldDates, held);
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
    // Validated already, as it arrived: this parse only builds the rows.
    return { rows: parse(held, 0), total };
  } catch (error) {
    await spill?.dispose();
    throw error;
  }

  function scan(scanner: JsonListScanner, text: string): string[] {
    try {
      return scanner.write(text);
    } catch (error) {
      if (error instanceof ListScanError) throw list.notJson(error.message);
      throw error;
    }
  }
}
