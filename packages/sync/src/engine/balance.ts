/** The balance phase of a run: the provider's balance, and whether the mirrored rows add up to it. */
import type { Balance } from '@finsync/provider';
import type { AccountSyncState, BalanceReconciliation, MirrorAccount } from '../model.js';
import { makeChange } from './changes.js';
import type { RunContext } from './context.js';
import { addDecimals } from './decimal.js';
import { checkBalance, emptyLedger } from './ledger.js';
import { sameRecord } from './keys.js';
import type { AccountReport } from './report.js';

export interface BalanceOutcome {
  account: MirrorAccount;
  state: AccountSyncState;
  result: AccountReport['balance'];
}

/**
 * Takes the provider's balance (`answer`, asked for with the transactions: account-turn.ts) and, when
 * `check` is set (the account's rows synced cleanly), compares it with the rows. A failure throws
 * and keeps the previous balance: never zero.
 */
export async function syncBalance(
  ctx: RunContext,
  account: MirrorAccount,
  state: AccountSyncState,
  check: boolean,
  answer: Promise<Balance>,
): Promise<BalanceOutcome> {
  const balance = await answer;
  let reconciliation: BalanceReconciliation | null = account.reconciliation ?? null;
  let ledger = state.ledger;
  if (check) {
    const pending = await ctx.storage.findTransactions(ctx.connectionId, account.id, { pending: true });
    const pendingTotal = addDecimals('0', ...pending.map((row) => row.amount));
    const outcome = checkBalance(ledger ?? emptyLedger(), balance.amount, pendingTotal, ctx.clock.today());
    ledger = outcome.ledger;
    reconciliation = outcome.reconciliation;
    if (reconciliation.status === 'mismatch')
      ctx.logger?.warn?.('balance does not add up', {
        connectionId: ctx.connectionId,
        accountId: account.id,
        since: reconciliation.since,
        difference: reconciliation.difference,
      });
  }
  const sameBalance =
    account.balance !== null &&
    account.balance.amount === balance.amount &&
    account.balance.currency === balance.currency;
  const next: MirrorAccount = {
    ...account,
    currency: balance.currency ?? account.currency,
    balance: sameBalance
      ? account.balance
      : { amount: balance.amount, currency: balance.currency, fetchedAt: ctx.clock.now().toISOString() },
    reconciliation,
  };
  const nextState = { ...state, ledger };
  // A changed account record commits with the ledger's new anchor; otherwise the anchor waits for
  // the account's closing write (losing it to a crash only means the next check starts earlier).
  if (!sameRecord(account, next))
    await ctx.storage.apply({
      changes: [makeChange('account', 'modified', next)],
      accountStates: [nextState],
    });
  return { account: next, state: nextState, result: sameBalance ? 'unchanged' : 'updated' };
}
