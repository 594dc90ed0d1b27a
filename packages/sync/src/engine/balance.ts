/** The balance phase of a run: the provider's balance, and whether the mirrored rows add up to it. */
import type { Balance } from '@finsync/provider';
import type {
  AccountChange,
  AccountSyncState,
  BalanceReconciliation,
  MirrorAccount,
  MirrorTransaction,
} from '../model.js';
import { makeChange } from './changes.js';
import type { RunContext } from './context.js';
import { addDecimals, subtractDecimals } from './decimal.js';
import { checkBalanceRecounting, emptyLedger } from './ledger.js';
import { sameRecord } from './keys.js';
import type { AccountReport } from './report.js';

export interface BalanceOutcome {
  account: MirrorAccount;
  state: AccountSyncState;
  result: AccountReport['balance'];
  /** The account record's change, when it changed: committed by the account's closing write. */
  change: AccountChange | undefined;
}

/** Whether the account's rows moved since the last check compared them with a balance. */
export function movedSinceCheck(state: AccountSyncState): boolean {
  return state.ledger?.movedSinceCheck === true;
}

/**
 * Takes the provider's balance (`answer`, asked for with the transactions: account-turn.ts) and, when
 * `rows.check` is set (the account's rows synced cleanly), compares it with the rows; when not, and the
 * balance or the rows moved, the reconciliation is `unchecked` until a run can compare them again. Writes nothing: the
 * account record's change and the ledger's new anchor go in the account's closing write (run.ts),
 * with its holdings and its state, one commit where there were two. A failure throws and keeps the
 * previous balance: never zero.
 */
export async function syncBalance(
  ctx: RunContext,
  account: MirrorAccount,
  state: AccountSyncState,
  rows: {
    /** The account's rows synced cleanly this run: the balance is compared with them. */
    check: boolean;
    /** This run committed changes to the account's rows. */
    changed: boolean;
    /** The account's stored holds as they are now (the turn's reads: stored-holds.ts). */
    holds: () => Promise<readonly MirrorTransaction[]>;
  },
  answer: Promise<Balance>,
): Promise<BalanceOutcome> {
  const { check } = rows;
  const balance = await answer;
  let reconciliation: BalanceReconciliation | null = account.reconciliation ?? null;
  let ledger = state.ledger;
  if (check) {
    const pending = await rows.holds();
    const pendingTotal = addDecimals('0', ...pending.map((row) => row.amount));
    const outcome = await checkBalanceRecounting(
      ledger ?? emptyLedger(),
      balance.amount,
      pendingTotal,
      ctx.clock.today(),
      // Before a check says the rows do not add up, or takes its first anchor on sums that counted
      // another number of rows than are stored, they are summed again: the sums kept may have
      // drifted (see `recountedLedger`). A scan of the account, only then.
      {
        count: () => ctx.storage.countTransactions(ctx.connectionId, account.id),
        rows: () => ctx.storage.scanTransactions(ctx.connectionId, account.id),
      },
      balance.currency ?? null,
    );
    if (outcome.recounted)
      ctx.logger?.warn?.('balance ledger recounted from the stored rows', {
        connectionId: ctx.connectionId,
        accountId: account.id,
        difference: subtractDecimals(outcome.ledger.postedTotal, (ledger ?? emptyLedger()).postedTotal),
      });
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
  // A balance not compared with the rows, beside rows or a balance the last check did not see: the
  // verdict of that check says nothing of them (a `balanced` kept beside a new balance and rows that
  // failed to sync read as "adds up" while they were apart by the missing rows). Rows an earlier run
  // moved and never checked count too (`movedSinceCheck`: that run stopped before its check).
  if (!check && reconciliation !== null && (!sameBalance || rows.changed || movedSinceCheck(state)))
    reconciliation = { ...reconciliation, status: 'unchecked', since: null, difference: null };
  const next: MirrorAccount = {
    ...account,
    currency: balance.currency ?? account.currency,
    balance: sameBalance
      ? account.balance
      : { amount: balance.amount, currency: balance.currency, fetchedAt: ctx.clock.now().toISOString() },
    reconciliation,
  };
  return {
    account: next,
    state: { ...state, ledger },
    result: sameBalance ? 'unchanged' : 'updated',
    change: sameRecord(account, next) ? undefined : makeChange('account', 'modified', next),
  };
}
