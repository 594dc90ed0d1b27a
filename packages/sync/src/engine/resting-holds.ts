/**
 * Holds of accounts the engine no longer reads. An inactive or gone account is not read, so nothing
 * would ever replace or remove its holds: a pending charge would stay on screen, and in an app's
 * spending, for as long as the account is kept. A hold older than `pendingOverlapDays` + 8 days has
 * long been posted or released by any bank, and the engine cannot see which: it is removed, and
 * remembered as lapsed. Posted rows stay, as they are the account's history.
 */
import { addDays } from '@finsync/internals/calendar';
import { makeChange } from './changes.js';
import { supersededRecord } from './diff.js';
import type { AccountSyncState, MirrorAccount } from '../model.js';
import type { RunContext } from './context.js';
import { advanceLedger } from './ledger.js';
import { holdsForgottenBefore } from './twins.js';

/**
 * Removes the stale holds of `resting`, the connection's accounts that are not active, moving each
 * one's ledger (`stateOf`: its stored sync state, if it was ever synced) by what it removes; returns how
 * many it removed.
 */
export async function removeRestingHolds(
  ctx: RunContext,
  resting: readonly MirrorAccount[],
  stateOf: (accountId: string) => AccountSyncState | undefined,
): Promise<number> {
  if (resting.length === 0) return 0;
  const lastStale = addDays(holdsForgottenBefore(ctx.clock.today(), ctx.tuning), -1);
  let removed = 0;
  for (const account of resting) {
    ctx.signal.throwIfAborted();
    const holds = await ctx.storage.findTransactions(ctx.connectionId, account.id, {
      pending: true,
      to: lastStale,
    });
    if (holds.length === 0) continue;
    const changes = holds.map((row) => makeChange('transaction', 'removed', row));
    const state = stateOf(account.id);
    // Every commit that changes an account's rows moves its ledger (ledger.ts): here its row count.
    const ledger = state?.ledger
      ? advanceLedger(state.ledger, changes, new Map(holds.map((r) => [r.key, r])))
      : null;
    await ctx.storage.apply({
      changes,
      ...(state && ledger ? { accountStates: [{ ...state, ledger }] } : {}),
      // Remembered as lapsed, as a hold that vanished is: an account that comes back and lists the
      // posting still links it to the hold (SPEC.md), until the record ages out in its first read.
      superseded: holds.map((row) => supersededRecord(row, row.key, 'lapsed')),
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
