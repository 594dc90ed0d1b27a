/**
 * Everything an account's turn asks the provider, opened before the turn so that it can begin early:
 * its transaction reads (transaction-reads.ts) and its balance and holdings (account-answers.ts).
 *
 * When the transactions are one request (the whole history, or one window), the balance and
 * holdings go out with it, so the balance is the provider's as of the same moment as the rows it is
 * compared with. When they are walked in several windows (a first sync from `startDate`), the
 * balance and holdings wait until the last window has been read: asked at the start, the balance
 * would be older than the newest rows by the whole walk (a minute or more under the throttle), and a
 * row posted meanwhile would put the balance check's first anchor off for good.
 *
 * The run begins the next account's turn once the current account has no page left to read, or at
 * once when the next account's read is small (one window of at most `windowDays` days from its
 * watermark: a routine re-read, not a history nor a long gap), so that a re-sync of many accounts
 * waits for the provider about once for every two accounts instead of once for each.
 */
import type { AccountSyncState } from '../model.js';
import { askAccountAnswers, type AccountAnswers } from './account-answers.js';
import type { RunContext } from './context.js';
import { recheckDaysPassed } from './holdings.js';
import { openTransactionReads, type TransactionReads } from './transaction-reads.js';

export interface AccountTurn {
  readonly reads: TransactionReads;
  /** Whether the holdings are asked for in this run: see `holdingsDue`. */
  readonly withHoldings: boolean;
  /** One window of at most `windowDays` days from a watermark: small enough to read a turn early. */
  readonly small: boolean;
  /** Sends the first transactions request and, when the reads are one request, the balance and holdings. */
  begin(): void;
  /** The reads have no page left to read: sends the balance and holdings if they have not gone yet. */
  readsDone(): void;
  /** The balance and holdings answers; sends them first if they have not gone yet. */
  answers(): AccountAnswers;
  /** For a turn that ends (or never came): aborts and releases what nobody will use. Never throws. */
  discard(): Promise<void>;
}

export function openAccountTurn(ctx: RunContext, accountId: string, state: AccountSyncState): AccountTurn {
  const reads = openTransactionReads(ctx, accountId, state);
  const withHoldings = holdingsDue(ctx, state);
  const plan = reads.plan();
  const days = plan?.days ?? null;
  const oneRequest = plan !== undefined && (days === null || days <= plan.windowDays);
  let answers: AccountAnswers | undefined;
  const ask = () => (answers ??= askAccountAnswers(ctx, accountId, { holdings: withHoldings }));
  return {
    reads,
    withHoldings,
    small: days !== null && days <= ctx.tuning.windowDays,
    begin() {
      reads.begin();
      if (oneRequest) ask();
    },
    readsDone: () => void ask(),
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
  return state.holdingsSupported !== false || checkedAt === null || recheckDaysPassed(ctx, checkedAt);
}
