/**
 * Reading a whole-history answer as it arrives. What is kept is the rows' text (a quarter of the
 * memory of parsed rows): a small answer's text is parsed and validated once, at the end. Once the
 * answer passes `afterRows` the text goes to a `TransactionSpill`, so memory stays the same whatever
 * the history's length: the rows held so far are parsed and validated then, a page at a time, and
 * every later batch as it arrives (the spill files rows by their dates). Either way every row is
 * checked before any is handed out.
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
  const pageRows = list.spill.pageRows ?? DEFAULT_SPILL.pageRows;
  /** The text of every row so far, until the answer passes `afterRows`. */
  let held: string[] = [];
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

  /** Rows `offset`.. checked, and their dates: what the spill files them by. */
  const dates = (elements: readonly string[], offset: number): CalendarDate[] =>
    parse(elements, offset).map((row) => row.date);

  const take = async (elements: string[]) => {
    if (elements.length === 0) return;
    if (spill) return spill.add(dates(elements, scanner.elementCount - elements.length), elements);
    for (const element of elements) held.push(element);
    if (held.length <= afterRows) return;
    spill = await TransactionSpill.create({
      directory: list.spill.directory,
      pageRows,
      decode: (raw) => list.parseRows(raw, 0),
    });
    // A page at a time: the rows parsed at once are a page's, not the whole held answer's.
    for (let offset = 0; offset < held.length; offset += pageRows) {
      const page = held.slice(offset, offset + pageRows);
      await spill.add(dates(page, offset), page);
    }
    held = [];
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
