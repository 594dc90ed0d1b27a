/**
 * Read paths the SQL adapters implement the same way; only the statements (and how they are run)
 * differ, so those are passed in.
 */
import { MAX_QUERY_KEYS, type TransactionQuery } from '../storage/types.js';

/**
 * Parameters of a `findTransactions` window query in placeholder order: connection and account,
 * then `from`, `to` and the keys (as `encodeKeys` makes one parameter of them) when the query has
 * them. Each adapter's SQL names the filters in this order.
 */
export function transactionWindowParams<K>(
  connectionId: string,
  accountId: string,
  query: TransactionQuery,
  encodeKeys: (keys: readonly string[]) => K,
): Array<string | K> {
  const params: Array<string | K> = [connectionId, accountId];
  if (query.from !== undefined) params.push(query.from);
  if (query.to !== undefined) params.push(query.to);
  if (query.keys !== undefined) {
    if (query.keys.length > MAX_QUERY_KEYS) {
      throw new RangeError(`findTransactions takes at most ${MAX_QUERY_KEYS} keys, got ${query.keys.length}`);
    }
    params.push(encodeKeys(query.keys));
  }
  return params;
}

/** Rows per page of `scanTransactions`: bounds its memory while keeping per-query overhead small. */
export const SCAN_CHUNK = 1_000;

/** Where a scan resumes: the primary key of the last row it yielded (within the connection). */
export interface ScanCursor {
  /** The last row's account. */
  accountId: string;
  /** The last row's key within that account. */
  key: string;
}

/**
 * `scanTransactions` as keyset pagination over the primary key: `page(after)` fetches the next
 * `chunk` rows in key order (`after` undefined: from the start), and no statement or cursor stays
 * open while the consumer runs, so writes between pages are fine and memory stays at one page. Rows
 * written mid-scan ahead of the cursor are seen, behind it are not; none is seen twice.
 */
export async function* scanByKey<Row extends { account_id: string; key: string }, T>(
  page: (after: ScanCursor | undefined) => Row[] | Promise<Row[]>,
  decode: (row: Row) => T,
  chunk: number = SCAN_CHUNK,
): AsyncGenerator<T, void, undefined> {
  let last: ScanCursor | undefined;
  for (;;) {
    const rows = await page(last);
    for (const row of rows) yield decode(row);
    const tail = rows.at(-1);
    if (rows.length < chunk || tail === undefined) return;
    last = { accountId: tail.account_id, key: tail.key };
  }
}
