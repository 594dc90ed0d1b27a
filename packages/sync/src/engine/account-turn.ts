/**
 * Everything an account's turn asks the provider, opened before the turn so that it can begin early:
 * its transaction reads (transaction-reads.ts) and its balance and holdings (account-answers.ts).
 * `begin()` sends the first transactions request, the balance request and, when due, the holdings
 * request; the turn itself begins them if nobody did before.
 *
 * The run begins the next account's turn once the current account has no page left to read, or at
 * once when the next account's reads are a routine re-read (from a watermark: days of rows, not a
 * history), so that a re-sync of many accounts waits for the provider about once for every two
 * accounts instead of once for each.
 */
import type { AccountSyncState } from '../model.js';
import { askAccountAnswers, type AccountAnswers } from './account-answers.js';
import type { RunContext } from './context.js';
import { openTransactionReads, type TransactionReads } from './transaction-reads.js';

export interface AccountTurn {
  readonly reads: TransactionReads;
  /** Whether the holdings are asked for in this run: see `holdingsDue`. */
  readonly withHoldings: boolean;
  /** A routine re-read: the account has a watermark, so its first request is days of rows. */
  readonly routine: boolean;
  /** Sends what has not been sent yet. */
  begin(): void;
  /** The balance and holdings answers; sends them first if `begin()` was not called. */
  answers(): AccountAnswers;
  /** For a turn that ends (or never came): aborts and releases what nobody will use. Never throws. */
  discard(): Promise<void>;
}

export function openAccountTurn(ctx: RunContext, accountId: string, state: AccountSyncState): AccountTurn {
  const reads = openTransactionReads(ctx, accountId, state);
  const withHoldings = holdingsDue(ctx, state);
  let answers: AccountAnswers | undefined;
  const ask = () => (answers ??= askAccountAnswers(ctx, accountId, { holdings: withHoldings }));
  return {
    reads,
    withHoldings,
    routine: state.watermark !== null,
    begin() {
      ask();
      reads.begin();
    },
    answers: ask,
    async discard() {
      answers?.discard();
      await reads.discard();
    },
  };
}

/** Holdings for accounts that have them; "not supported" is remembered and asked again rarely. */
function holdingsDue(ctx: RunContext, state: AccountSyncState): boolean {
  const checkedAt = state.holdingsCheckedAt;
  return (
    state.holdingsSupported !== false ||
    checkedAt === null ||
    ctx.clock.now().getTime() - Date.parse(checkedAt) >= ctx.tuning.holdingsRecheckDays * 86_400_000
  );
}
