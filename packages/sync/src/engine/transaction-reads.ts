/**
 * An account's transaction reads, opened before its turn so that they can begin early: the run asks
 * for the next account's first page once the current account has no page left to read, so that the
 * provider's latency passes while the current account's last page is diffed and committed and its
 * balance and holdings are asked for, instead of after them (a routine re-sync of 10 accounts over a
 * provider taking 150 ms a request: 1.91 s against 3.30 s). Beginning at the current account's first
 * page hid more, but held a long account's pages beside the next answer's arrival: 18 MiB more at
 * 1M rows (packages/sync/README.md).
 *
 * At most one page beyond the current account's is held: the first page of the next account.
 * Errors are the reads' own and are thrown where the account's turn asks for that page, never earlier.
 */
import { addDays, daysBetween } from '@finsync/internals/calendar';
import type { TransactionPage } from '@finsync/provider';
import type { AccountSyncState } from '../model.js';
import type { RunContext } from './context.js';
import { StoredHolds } from './stored-holds.js';

/**
 * Days a routine re-read asks for before the first day it judges. A bank may re-date a posted row a
 * day or a few (a time zone, a value date for a booking date): one dated on the first judged day and
 * moved earlier would fall out of the asked days and be taken for dropped. Read, it is seen moved.
 * Fewer than `PENDING_MATCH_DAYS`, so a run the day after the last reaches no hold whose posting is
 * forgotten (twins.ts). Runs further apart, or a watermark held by an empty answer, do reach such
 * holds: one the bank still lists beside its posting pairs with it again by the twin rule.
 */
export const REDATED_MARGIN_DAYS = 7;

/** The days an account's reads ask for, and how. */
export interface ReadPlan {
  /** First day, or undefined for the whole history. */
  from: string | undefined;
  /**
   * First day whose stored rows the reads may find dropped: `from`, or for a routine re-read
   * `REDATED_MARGIN_DAYS` after it (a stored row dated before is judged by the reads that reached it).
   */
  judgedFrom: string | undefined;
  to: string;
  /** Days per request when the reads are walked in windows. */
  windowDays: number;
  /** Days from `from` to `to`, both counted; null for the whole history. */
  days: number | null;
}

export interface TransactionReads {
  /**
   * The days asked for: from the watermark (less the overlap) or `startDate`, or the whole history
   * (`from` undefined), to today as of the first request; once the first page has arrived, a routine
   * re-read's `from` reaches back to the oldest hold still stored. Throws what working it out throws
   * (a malformed stored watermark), in the account's turn.
   */
  window(): { from: string | undefined; to: string; judgedFrom: string | undefined };
  /**
   * How the reads will ask, as of now and without sending or fixing anything (the window is still
   * worked out when the first request goes out). Undefined when it cannot be worked out (a malformed
   * stored watermark): `window()` throws that in the account's turn.
   */
  plan(): ReadPlan | undefined;
  /**
   * The account's pages, to be iterated once; the first is the one `begin()` asked for. Closing the
   * iteration early closes the reads (their response, their temporary files).
   */
  readonly pages: AsyncIterable<TransactionPage>;
  /** Aborts the reads in flight (requests, retries and pauses): nobody will use their pages. */
  readonly abandon: AbortController;
  /** The account's stored holds as the diff read them, for the balance check (stored-holds.ts). */
  readonly storedHolds: StoredHolds;
  /** Asks for the first page now, if it has not been asked for. */
  begin(): void;
  /**
   * For reads whose pages were never iterated: aborts the one in flight and releases it. Never
   * throws: a release that fails is logged, and the run's own outcome stands.
   */
  discard(): Promise<void>;
}

/**
 * The account's reads; nothing is worked out or sent until the first page is asked for, so that
 * whatever fails (the window, an option the client refuses, the request) fails in the account's turn,
 * as this account's issue, and `to` is the day the request goes out.
 */
export function openTransactionReads(
  ctx: RunContext,
  accountId: string,
  syncState: AccountSyncState,
): TransactionReads {
  const { tuning } = ctx;
  const readHolds = () => ctx.storage.findTransactions(ctx.connectionId, accountId, { pending: true });
  const storedHolds = new StoredHolds(readHolds, { keep: ctx.leased });
  /** The reads' days and days per request as of now; `days` is null for the whole history. */
  const planOf = (): ReadPlan => {
    const to = ctx.clock.today();
    const overlap = tuning.includePending ? tuning.pendingOverlapDays : tuning.overlapDays;
    const judgedFrom = laterDate(
      syncState.watermark !== null ? addDays(syncState.watermark, -overlap) : undefined,
      tuning.startDate,
    );
    const from = withMargin(judgedFrom);
    // A routine re-sync is one request; first syncs and gaps of over a year are walked in windows.
    const days = from === undefined ? null : daysBetween(from, to) + 1;
    const windowDays =
      syncState.watermark === null
        ? tuning.windowDays
        : Math.max(tuning.windowDays, Math.min(days ?? 0, 366));
    return { from, judgedFrom, to, windowDays, days };
  };
  /** A routine re-read's first day, `REDATED_MARGIN_DAYS` before the first it judges (never before `startDate`). */
  const withMargin = (judgedFrom: string | undefined) =>
    syncState.watermark === null || judgedFrom === undefined
      ? judgedFrom
      : laterDate(addDays(judgedFrom, -REDATED_MARGIN_DAYS), tuning.startDate);
  /** Worked out once, when the first request goes out: `to` is that request's day. */
  let window: ReadPlan | undefined;
  const windowOf = () => (window ??= planOf());
  /**
   * A routine re-read reaches back to the oldest hold still stored, so that a hold older than the
   * overlap is seen to go when the bank drops it (else it stayed pending for good): as far as one
   * request reaches (`windowDays`), and never before `startDate`.
   */
  const reachBackToHolds = async (plan: ReadPlan): Promise<ReadPlan> => {
    const judged = plan.judgedFrom;
    if (syncState.watermark === null || judged === undefined || !tuning.includePending) return plan;
    // Read here, not kept: see stored-holds.ts.
    const holds = await readHolds();
    let oldest: string | undefined;
    for (const hold of holds) if (oldest === undefined || hold.date < oldest) oldest = hold.date;
    if (oldest === undefined || oldest >= judged) return plan;
    // The margin inside the one request, as for any re-read.
    const earliest = addDays(plan.to, -(plan.windowDays - 1 - REDATED_MARGIN_DAYS));
    const judgedFrom = laterDate(laterDate(oldest, earliest), tuning.startDate)!;
    if (judgedFrom >= judged) return plan;
    const from = withMargin(judgedFrom)!;
    return { ...plan, from, judgedFrom, days: daysBetween(from, plan.to) + 1 };
  };
  const abandon = new AbortController();
  let iterator: AsyncIterator<TransactionPage> | undefined;
  const ask = async (): Promise<IteratorResult<TransactionPage>> => {
    if (!iterator) {
      window = await reachBackToHolds(windowOf());
      const { from, to, windowDays } = window;
      // A `startDate` still to come (set ahead, or a clock behind the caller's): no day to read yet.
      if (from !== undefined && from > to) iterator = noPages();
      iterator ??= ctx.client
        .listTransactions(accountId, {
          from,
          to,
          includePending: tuning.includePending,
          windowDays,
          signal: AbortSignal.any([ctx.signal, abandon.signal]),
        })
        .pages()
        [Symbol.asyncIterator]();
    }
    return iterator.next();
  };

  let first: Promise<IteratorResult<TransactionPage>> | undefined;
  let taken = false;
  /** Aborts a first page still asked for, waits for it, and closes the reads. */
  const close = async () => {
    if (first !== undefined) {
      abandon.abort();
      await first.catch(() => undefined);
      first = undefined;
    }
    await iterator?.return?.();
  };
  const begin = () => {
    if (first !== undefined || taken) return;
    first = ask();
    // Seen here, so a read that fails before the account's turn is not an unhandled rejection.
    first.catch(() => undefined);
  };
  const resumed: AsyncIterator<TransactionPage> = {
    next: () => {
      const asked = first ?? ask();
      first = undefined;
      return asked;
    },
    return: async () => {
      await close();
      return { done: true, value: undefined };
    },
  };
  return {
    window: () => {
      const { from, to, judgedFrom } = windowOf();
      return { from, to, judgedFrom };
    },
    plan: () => {
      try {
        return window ?? planOf();
      } catch {
        return undefined;
      }
    },
    abandon,
    storedHolds,
    begin,
    pages: {
      [Symbol.asyncIterator]: () => {
        if (taken) throw new Error('the transaction reads of an account are iterated once');
        taken = true;
        return resumed;
      },
    },
    async discard() {
      if (taken) return;
      taken = true;
      try {
        await close();
      } catch (error) {
        ctx.logger?.warn?.('could not release the transaction reads of an account', {
          connectionId: ctx.connectionId,
          accountId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    },
  };
}

/**
 * `startDate` is a floor for every read, not only the first: an overlap re-read that reached past it
 * would mirror rows an uninterrupted first sync never asked for, so what the mirror holds would
 * depend on where a crash or an abort cut the first sync.
 */
function laterDate(a: string | undefined, floor: string | undefined): string | undefined {
  if (a === undefined) return floor;
  return floor !== undefined && floor > a ? floor : a;
}

async function* noPages(): AsyncGenerator<TransactionPage> {}
