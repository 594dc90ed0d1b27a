/**
 * A row listed without a currency is recorded in its account's (keys.ts), when the account's is
 * known as the row is keyed. An account whose `/accounts` entry leaves the currency out learns it
 * from its first balance, which comes after its rows: a first sync recorded them without one, and
 * the routine re-reads mend only the days they read again. When a run learns the account's currency,
 * the rows still without one take it here, as `modified` entries, so the mirror and the feed say it.
 */
import type { TransactionChange } from '../model.js';
import { makeChange } from './changes.js';
import type { RunContext } from './context.js';

/**
 * Gives `currency` to the account's stored rows that have none, telling `onCommitted` how many each
 * commit changed as it lands (a failure part-way keeps those counted: they are in the mirror).
 */
export async function fillRowCurrency(
  ctx: RunContext,
  accountId: string,
  currency: string,
  onCommitted: (rows: number) => void,
): Promise<void> {
  let batch: TransactionChange[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await ctx.storage.apply({ changes: batch });
    onCommitted(batch.length);
    batch = [];
  };
  // The scan reads a page at a time with no statement left open, so writes between pages are safe.
  for await (const row of ctx.storage.scanTransactions(ctx.connectionId, accountId)) {
    if (row.currency !== null) continue;
    batch.push(makeChange('transaction', 'modified', { ...row, currency }));
    if (batch.length >= ctx.tuning.batchSize) await flush();
  }
  await flush();
}
