/**
 * Holds of accounts the engine no longer reads. An inactive or gone account is not read, so nothing
 * would ever replace or remove its holds: a pending charge would stay on screen, and in an app's
 * spending, for as long as the account is kept. Once no routine re-read of an active account would
 * reach back to a hold (`pendingOverlapDays` + 8 days), a bank has long posted or released it, and
 * the engine cannot see which: the hold is removed. Posted rows stay, as they are the account's history.
 */
import { addDays } from '@finsync/internals/calendar';
import { makeChange } from './changes.js';
import type { MirrorAccount } from '../model.js';
import type { RunContext } from './context.js';
import { PENDING_MATCH_DAYS } from './twins.js';

/** Removes the stale holds of `resting`, the connection's accounts that are not active; returns how many. */
export async function removeRestingHolds(
  ctx: RunContext,
  resting: readonly MirrorAccount[],
): Promise<number> {
  if (resting.length === 0) return 0;
  // Dated before the first day a routine re-read reaches, as `forgetBefore` forgets superseded holds.
  const lastStale = addDays(ctx.clock.today(), -(ctx.tuning.pendingOverlapDays + PENDING_MATCH_DAYS) - 1);
  let removed = 0;
  for (const account of resting) {
    ctx.signal.throwIfAborted();
    const holds = await ctx.storage.findTransactions(ctx.connectionId, account.id, {
      pending: true,
      to: lastStale,
    });
    if (holds.length === 0) continue;
    await ctx.storage.apply({
      changes: holds.map((row) => makeChange('transaction', 'removed', row)),
      // Remembered as lapsed, as a hold that vanished is: an account that comes back and lists the
      // posting still links it to the hold (SPEC.md), until the record ages out in its first read.
      superseded: holds.map((row) => ({
        connectionId: row.connectionId,
        accountId: row.accountId,
        key: row.key,
        record: row,
        replacedBy: row.key,
        reason: 'lapsed' as const,
      })),
    });
    ctx.logger?.info?.('stale holds of an account no longer read removed', {
      connectionId: ctx.connectionId,
      accountId: account.id,
      state: account.state,
      removed: holds.length,
    });
    removed += holds.length;
  }
  return removed;
}
