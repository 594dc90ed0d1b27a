/**
 * Holdings of accounts gone from the provider's list. Holdings are positions held now, not history:
 * a gone account is not read, so its holdings would stay for as long as the account is kept, and a
 * bank linked again lists the same positions under its new account, so a portfolio counted them
 * twice, for ever. They are removed once the account has not been read for `holdingsRecheckDays`
 * (its last sync, `lastSyncedAt`: an account missing from one list and back in the next keeps them,
 * whatever its holdings answers were meanwhile).
 */
import type { AccountSyncState, MirrorAccount } from '../model.js';
import { makeChange } from './changes.js';
import type { RunContext } from './context.js';
import { recheckDaysPassed } from './holdings.js';

/** Removes the holdings of `resting`'s gone accounts not read for long; returns how many. */
export async function removeGoneHoldings(
  ctx: RunContext,
  resting: readonly MirrorAccount[],
  stateOf: (accountId: string) => AccountSyncState | undefined,
): Promise<number> {
  let removed = 0;
  for (const account of resting) {
    if (account.state !== 'gone') continue;
    const state = stateOf(account.id);
    const lastRead = state?.lastSyncedAt ?? null;
    if (lastRead !== null && !recheckDaysPassed(ctx, lastRead)) continue;
    ctx.signal.throwIfAborted();
    const holdings = await ctx.storage.listHoldings(ctx.connectionId, account.id);
    if (holdings.length === 0) continue;
    await ctx.storage.apply({
      changes: holdings.map((holding) => makeChange('holding', 'removed', holding)),
    });
    ctx.logger?.info?.('holdings of an account gone from the provider removed', {
      connectionId: ctx.connectionId,
      accountId: account.id,
      removed: holdings.length,
    });
    removed += holdings.length;
  }
  return removed;
}
