/**
 * Reading a whole-history answer as it arrives. Rows are validated a batch at a time; a small
 * answer is held in memory as before, and once it passes `afterRows` the rows go to a
 * `TransactionSpill` instead, so memory stays the same whatever the history's length.
 */
import { TransactionSpill } from './spill.js';
import type { RawWindowResult } from './transactions.js';
import { JsonListScanner, ListScanError } from './wire/list-scanner.js';
import type { Transaction } from './wire/schemas.js';

export interface SpillSettings {
  /** Rows held in memory before the answer goes to disk. Default 5 000. */
  afterRows?: number;
  /** Rows per page read back from disk. Default 2 000. */
  pageRows?: number;
  /** Where the temporary files go. Default: the OS temp directory. */
  directory?: string;
}

export const DEFAULT_SPILL = { afterRows: 5_000, pageRows: 2_000 } as const;

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
  let rows: Transaction[] = [];
  let spill: TransactionSpill | undefined;

  const take = async (elements: string[]) => {
    if (elements.length === 0) return;
    let raw: unknown[];
    try {
      raw = JSON.parse(`[${elements.join(',')}]`) as unknown[];
    } catch (error) {
      throw list.notJson((error as Error).message);
    }
    const batch = list.parseRows(raw, scanner.elementCount - elements.length);
    if (spill) return spill.add(batch);
    for (const row of batch) rows.push(row);
    if (rows.length > afterRows) {
      spill = await TransactionSpill.create({
        directory: list.spill.directory,
        pageRows: list.spill.pageRows ?? DEFAULT_SPILL.pageRows,
      });
      await spill.add(rows);
      rows = [];
    }
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
    return spill ? { rows: [], total, spill } : { rows, total };
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
