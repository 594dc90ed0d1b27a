/**
 * An account's balance and holdings, asked for with its transactions (when, is account-turn.ts's
 * to say): their requests' latency then passes while the transactions are read, diffed and
 * committed, instead of after them. Before, each account waited for the balance request and then
 * for the holdings request once its last commit had landed (the provider's latency twice per
 * account, and with the sandbox, which answers one request at a time, the next account's whole
 * history first).
 *
 * The answers are used as before: the balance is compared with the rows once they have committed,
 * and an error is the phase's own, thrown where the phase asks for its answer. A request nobody asks
 * for (the run stopped, the account is gone) is aborted.
 */
import type { Balance, HoldingsResult } from '@finsync/provider';
import type { RunContext } from './context.js';

export interface AccountAnswers {
  balance(): Promise<Balance>;
  /** Only when the account's holdings are due (see `holdingsDue`). */
  holdings(): Promise<HoldingsResult>;
  /** Aborts the requests still in flight whose answers were never asked for. Never throws. */
  discard(): void;
}

/** Sends the account's balance request, and its holdings request when `holdings` is set, now. */
export function askAccountAnswers(
  ctx: RunContext,
  accountId: string,
  { holdings }: { holdings: boolean },
): AccountAnswers {
  const balance = ask(ctx, (signal) => ctx.client.getBalance(accountId, { signal }));
  const holdingsAnswer = holdings
    ? ask(ctx, (signal) => ctx.client.getHoldings(accountId, { signal }))
    : undefined;
  return {
    balance: balance.take,
    holdings: () => {
      if (!holdingsAnswer) throw new Error('the holdings of this account were not asked for');
      return holdingsAnswer.take();
    },
    discard() {
      balance.discard();
      holdingsAnswer?.discard();
    },
  };
}

function ask<T>(ctx: RunContext, send: (signal: AbortSignal) => Promise<T>) {
  const abort = new AbortController();
  let answer: Promise<T>;
  try {
    answer = send(AbortSignal.any([ctx.signal, abort.signal]));
  } catch (error) {
    answer = Promise.reject(error);
  }
  // Seen here, so an answer that fails before its phase asks for it is not an unhandled rejection.
  answer.catch(() => undefined);
  let taken = false;
  return {
    take: () => {
      taken = true;
      return answer;
    },
    discard: () => {
      if (!taken) abort.abort();
    },
  };
}
