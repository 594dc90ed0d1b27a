/** The transactions phase of a run: each response window diffed against the store and committed. */
import { addDays, daysBetween } from '@finsync/internals/calendar';
import type { TransactionPage } from '@finsync/provider';
import type { AccountSyncState, MirrorTransaction, TransactionChange } from '../model.js';
import { MAX_QUERY_KEYS, type WriteBatch } from '../storage/types.js';
import { coalescePages } from './coalesce.js';
import { commitSlices } from './commit-slices.js';
import { issue, type RunContext } from './context.js';
import { EmptyAnswerError } from '../errors.js';
import { diffWindow } from './diff.js';
import { KeyFilter } from './key-filter.js';
import { keyTransactions } from './keys.js';
import { advanceLedger, ledgerOfRows } from './ledger.js';
import { independent, pageWrites, type PageWrites } from './overlap.js';
import { readAhead } from './read-ahead.js';
import type { TransactionReads } from './transaction-reads.js';
import type { AccountReport } from './report.js';
import { holdsForgottenBefore } from './twins.js';

export interface TransactionCallbacks {
  /**
   * The account's currency as far as it is known (`/balance`, else `/accounts`): a row without one
   * is in it. Without it a hold listed without a currency never pairs with its posting in GBP.
   */
  currency: string | null;
  /** Rows fetched, page by page (progress). */
  onFetched: (count: number) => void;
  /** The account's state as of each commit that landed. */
  onCommitted: (state: AccountSyncState) => void;
  /** No page is left to read: the moment to begin the next account's reads. */
  onReadsDone?: () => void;
}

/**
 * Syncs one account's transactions through `reads` (from its watermark). Every commit carries the
 * account's state (ledger included), and `onCommitted` hears each one, so a failure half-way loses
 * no bookkeeping.
 */
export async function syncTransactions(
  ctx: RunContext,
  accountId: string,
  syncState: AccountSyncState,
  reads: TransactionReads,
  report: AccountReport,
  callbacks: TransactionCallbacks,
): Promise<AccountSyncState> {
  try {
    return await syncPages(ctx, accountId, syncState, reads, report, callbacks);
  } finally {
    // Reads never iterated (a failure before the first page was asked for) are released here.
    await reads.discard();
  }
}

async function syncPages(
  ctx: RunContext,
  accountId: string,
  syncState: AccountSyncState,
  reads: TransactionReads,
  report: AccountReport,
  { currency, onFetched, onCommitted, onReadsDone }: TransactionCallbacks,
): Promise<AccountSyncState> {
  const { tuning } = ctx;
  const { from, to } = reads.window();
  // `abandon` aborts the reads when the run stops early with a page read ahead, or a commit in flight
  // fails while the next page is read (a long read: joining small windows): nobody will use that page.
  const { abandon } = reads;
  report.window = { from: from ?? null, to };
  // Holds replaced by their posted twin are remembered until no routine re-read reaches them.
  const forgetBefore = holdsForgottenBefore(to, tuning);

  // Stores written before the balance check existed count their rows once; so does a first sync,
  // which learns so that the account holds no rows yet.
  const counted =
    syncState.ledger === null
      ? await ledgerOfRows(ctx.storage.scanTransactions(ctx.connectionId, accountId))
      : undefined;
  let state: AccountSyncState = { ...syncState, ledger: syncState.ledger ?? counted!.ledger };
  // An account that held no rows when the run began holds only what this run commits: the keys it
  // commits are all a stored row can be under, and the lookups of other keys are skipped. A first
  // sync would otherwise look up every key it reads (a fifth of a 1M-row first sync into PostgreSQL).
  const committedKeys = counted?.rowsRead === 0 ? new KeyFilter() : undefined;
  const commit = (batch: WriteBatch): Promise<void> => {
    if (batch.changes.length > 0) reads.storedHolds.changing();
    if (committedKeys) for (const change of batch.changes) committedKeys.add(change.key);
    return ctx.storage.apply(batch);
  };
  // A first read, in one request, that has found no posted row yet (a bank whose history the provider
  // has not imported) leaves the account as never read, in every commit: the next run asks for it all
  // again, where a watermark would have it re-read only the last days and never see the rows dated
  // before them. Not a walk of many windows from `startDate`, which would cost a request a window each run.
  const plan = reads.plan();
  const firstInOneRequest =
    syncState.watermark === null &&
    plan !== undefined &&
    (plan.days === null || plan.days <= plan.windowDays);
  /** Whether a window of this run was an empty answer set aside: the watermark then stays. */
  let heldBack = false;
  /** Whether a page of this run has listed a row (a first walk's empty answer after one is suspect). */
  let listedBefore = false;
  /**
   * The first day the read's answers list a row, from its first page with rows: the pages of an answer
   * tile its window in date order, so a later page's quiet first days are not before the answer.
   */
  let firstListed: string | undefined;
  /** The failure of a commit in flight, once it is known: the error to report. */
  let commitFailure: { error: unknown } | undefined;
  // The last commit of the page before, while it runs: the next page is read, fetched and diffed
  // meanwhile when its reads cannot see that commit (see overlap.ts), and committed after it.
  let committing: { done: Promise<void>; writes: PageWrites } | undefined;
  const landed = async () => {
    const previous = committing;
    committing = undefined;
    await previous?.done;
  };
  try {
    // Windows are joined while the group is under half a batch: fewer reads and commits, and a group
    // holds at most half a batch plus one window (joining up to a full batch peaked ~15 MiB higher).
    // No page is read ahead beside one over a batch (a week of more rows than the client's pageRows,
    // or a dense window from a client with `spill: false`), so memory holds one big page, not two.
    // The provider client hands dense windows out in pages of whole weeks, so this is rare now.
    // An empty answer stays alone: a routine re-read judges it as the provider's passing failure it
    // may be, and a first walk asks for it again (below); joined, it would pass with the next's rows.
    const coalesced = coalescePages(reads.pages, Math.ceil(tuning.batchSize / 2), { emptyAlone: true });
    const small = (page: { transactions: readonly unknown[] }) =>
      page.transactions.length <= tuning.batchSize;
    const pagesAhead = readAhead(coalesced, {
      aheadOf: small,
      onAbandon: () => abandon.abort(),
      onExhausted: onReadsDone,
    });
    for await (const answered of pagesAhead) {
      // A page read ahead may arrive after the run was aborted: it is not committed.
      ctx.signal.throwIfAborted();
      // A first sync walked in windows has nothing stored that an empty answer could hide, but it
      // could lose the window for good: believed, the walk moved on and never asked again, and the
      // first balance check took the missing rows into the opening balance ("balanced" ever after).
      // An empty answer after windows that listed rows is asked for once more; a quiet month answers
      // empty again, and is believed.
      const page: TransactionPage =
        syncState.watermark === null && listedBefore && isEmptyAnswer(answered)
          ? await askedAgain(ctx, accountId, answered, abandon.signal)
          : answered;
      listedBefore ||= page.transactions.length > 0;
      report.fetched += page.transactions.length;
      // Known once the first page is in: a routine re-read may reach back to an old hold.
      report.window = { from: reads.window().from ?? null, to };
      report.shortfall += page.shortfall;
      onFetched(page.transactions.length);
      const { records, duplicateIds } = keyTransactions(
        ctx.connectionId,
        accountId,
        page.transactions,
        currency,
      );
      report.duplicateIds += duplicateIds;
      const window = { from: page.from ?? undefined, to: page.to ?? undefined };
      if (committing && !independent(committing.writes, window, records)) await landed();
      // A hold at the window's end whose posted twin lies in the next window pairs there: the next
      // window's diff sees it among the stored holds dated before its start.
      const [storedInWindow, storedPending, superseded] = await Promise.all([
        ctx.storage.findTransactions(ctx.connectionId, accountId, window),
        reads.storedHolds.read(),
        ctx.storage.listSuperseded(ctx.connectionId, accountId),
      ]);
      // An empty answer taken for a passing failure removes nothing, and holds the watermark where it
      // was for the rest of the run, so the next run reads every day after the last good one again,
      // however long the failure lasts (rows posted meanwhile included).
      const setAside = emptyOverPosted(ctx, accountId, page, storedInWindow, reads, report);
      heldBack ||= setAside;
      // Pages come in date order: the first with rows holds the read's first listed day.
      if (firstListed === undefined)
        for (const row of records)
          if (firstListed === undefined || row.date < firstListed) firstListed = row.date;
      const keepPostedBefore =
        setAside || firstListed === undefined
          ? undefined
          : postedKeptBefore(ctx, accountId, firstListed, storedInWindow, reads, report);
      const diff = diffWindow({
        incoming: records,
        storedInWindow,
        storedElsewhere: await storedOutside(
          ctx,
          accountId,
          records,
          committedKeys,
          storedInWindow,
          storedPending,
        ),
        storedPending,
        superseded,
        window,
        complete: page.shortfall === 0 && !setAside,
        judgedFrom: reads.window().judgedFrom,
        keepPostedBefore,
        forgetBefore,
        // As of the first page: a routine re-read may have reached back to an old hold.
        read: reads.window(),
      });
      report.hidden += diff.hidden;

      // Commits land in order: the page before's last one first (and its failure stops the run here).
      await landed();
      // The watermark moves only with the last commit of a window: a crash before it means the window
      // is read again, and the diff against what was already committed adds nothing twice.
      const windowEnd = page.to ?? to;
      const removedLast = new Set([
        ...superseded.map((row) => row.replacedBy),
        ...diff.superseded.map((row) => row.key),
      ]);
      const slices = commitSlices(diff.changes, tuning.batchSize, removedLast);
      for (const [index, slice] of slices.entries()) {
        const last = index === slices.length - 1;
        state = { ...state, ledger: advanceLedger(state.ledger!, slice, diff.previous) };
        if (last && !heldBack && !(firstInOneRequest && state.ledger!.historyFrom === null))
          state = {
            ...state,
            watermark: state.watermark !== null && state.watermark > windowEnd ? state.watermark : windowEnd,
          };
        // A window that changed nothing needs no commit of its own: the account's closing write
        // stores the state, and a crash before it only means the window is read again. This halves
        // the writes of a routine re-sync, where most windows change nothing.
        const nothingToWrite =
          diff.changes.length === 0 && diff.superseded.length === 0 && diff.released.length === 0;
        if (nothingToWrite) onCommitted(state);
        else if (!last) {
          await commit({ changes: slice, accountStates: [state] });
          countCommitted(report, slice);
          onCommitted(state);
        } else {
          const committed = state;
          const done = commit({
            changes: slice,
            accountStates: [committed],
            superseded: diff.superseded,
            releasedSuperseded: diff.released,
          }).then(() => {
            countCommitted(report, slice);
            onCommitted(committed);
          });
          // Awaited by landed(); seen here at once, so a failure while the next page is read is not
          // unhandled, and stops that read.
          done.catch((error: unknown) => {
            commitFailure ??= { error };
            abandon.abort();
          });
          const writes = pageWrites(
            diff.changes,
            diff.previous,
            diff.superseded.length > 0 || diff.released.length > 0,
          );
          committing = { done, writes };
        }
      }
      await yieldToEventLoop();
    }
    await landed();
  } catch (error) {
    // A read aborted because a commit failed fails too: the commit's error is the one to report.
    if (commitFailure) throw commitFailure.error;
    throw error;
  } finally {
    // Whatever stopped the run, no commit of it is still running when this returns.
    await committing?.done.catch(() => undefined);
  }
  return state;
}

/**
 * Counts a slice into the report once it has committed: a commit that failed (a busy or read-only
 * database) wrote nothing, and the report says what is in the mirror, not what was meant to be.
 */
function countCommitted(report: AccountReport, slice: readonly TransactionChange[]): void {
  for (const change of slice) {
    report[change.op] += 1;
    // Every link has exactly one removed side, so counting those counts each link once.
    if (change.op === 'removed' && change.reason) report.replacements[change.reason] += 1;
  }
}

/**
 * An answer with no row at all for days where posted rows are mirrored is what a provider's passing
 * failure looks like (a `200` with `transactions: []`), and seldom what a bank does (it re-issues ids,
 * re-dates rows or drops a hold, and lists the rest): it removes nothing, as an answer cut short.
 * Believing some of it was tried, and lost rows for good where the days it removed were not read again
 * (runs over a week apart, a re-read reaching back to an old hold). The limit: should a bank take back
 * every posted row of the days a re-read judges and list nothing else, they stay, and every run reports
 * an `EmptyAnswerError` until the account lists a row again (the watermark stays: syncPages).
 */
function emptyOverPosted(
  ctx: RunContext,
  accountId: string,
  page: TransactionPage,
  storedInWindow: readonly MirrorTransaction[],
  reads: TransactionReads,
  report: AccountReport,
): boolean {
  if (page.transactions.length > 0) return false;
  const { judgedFrom } = reads.window();
  const posted = storedInWindow.filter(
    (row) => !row.isPending && (judgedFrom === undefined || row.date >= judgedFrom),
  ).length;
  if (posted === 0) return false;
  // An issue, so the run says it did not go cleanly and the balance is not checked against rows the
  // answer did not confirm.
  report.issues.push(
    issue(
      'transactions',
      accountId,
      new EmptyAnswerError(accountId, posted, { from: page.from ?? null, to: page.to ?? null }),
    ),
  );
  return true;
}

/**
 * An empty page of a bounded window: the window's whole answer (a long answer handed out in weeks
 * makes pages of the weeks that have rows), whether or not the provider sent a `total`.
 */
const isEmptyAnswer = (page: TransactionPage) =>
  page.transactions.length === 0 && page.from !== null && page.to !== null;

/** The window of `page` asked for again, its pages read into one. */
async function askedAgain(
  ctx: RunContext,
  accountId: string,
  page: TransactionPage,
  abandon: AbortSignal,
): Promise<TransactionPage> {
  const again: TransactionPage = { ...page, transactions: [], total: 0, shortfall: 0 };
  const pages = ctx.client
    .listTransactions(accountId, {
      from: page.from!,
      to: page.to!,
      includePending: ctx.tuning.includePending,
      windowDays: daysBetween(page.from!, page.to!) + 1,
      signal: AbortSignal.any([ctx.signal, abandon]),
    })
    .pages();
  for await (const part of pages) {
    for (const row of part.transactions) again.transactions.push(row);
    again.total = again.total !== null && part.total !== null ? again.total + part.total : null;
    again.shortfall += part.shortfall;
  }
  return again;
}

/**
 * Posted rows are judged by an answer only from the day it lists its first row, where they are older
 * than this: a provider asked for days older than the bank's consent window (90 days, say) lists the
 * days it still has, not an error, and the older posted rows are real history it no longer reaches.
 * A re-read after a long gap (the engine stopped, a key waiting for re-authorisation) asks for them.
 * A routine re-read judges only the last weeks, where a bank's own removals are still believed.
 */
const SHORTER_HISTORY_AGE_DAYS = 60;

/**
 * The day before which the read's answers do not judge posted rows: they list nothing before it, and
 * posted rows over `SHORTER_HISTORY_AGE_DAYS` old are stored there. Those are kept (the
 * history the provider now gives is shorter), and the run says so, once: the watermark moves on, so
 * the days are not asked for again. Holds there are judged as ever: one the bank no longer lists
 * lapses, where kept it would draw every re-read back to its days, and the issue with it.
 */
function postedKeptBefore(
  ctx: RunContext,
  accountId: string,
  firstListed: string,
  storedInWindow: readonly MirrorTransaction[],
  reads: TransactionReads,
  report: AccountReport,
): string | undefined {
  const { judgedFrom } = reads.window();
  const aged = addDays(ctx.clock.today(), -SHORTER_HISTORY_AGE_DAYS);
  const keptBefore = firstListed < aged ? firstListed : aged;
  const kept = storedInWindow.filter(
    (row) => !row.isPending && row.date < keptBefore && (judgedFrom === undefined || row.date >= judgedFrom),
  );
  if (kept.length === 0) return undefined;
  let from = kept[0]!.date;
  for (const row of kept) if (row.date < from) from = row.date;
  report.issues.push(
    issue(
      'transactions',
      accountId,
      new EmptyAnswerError(accountId, kept.length, { from, to: addDays(keptBefore, -1) }, 'shorter history'),
    ),
  );
  return keptBefore;
}

/**
 * Stored rows under the keys of incoming rows that the window's reads did not find: the same
 * transaction stored under a date outside the window, because its date moved or because the
 * provider listed one id on two dates (pages of one whole-history answer, windows of one walk).
 * Diffed as stored, such a row is modified in place rather than added a second time.
 */
async function storedOutside(
  ctx: RunContext,
  accountId: string,
  incoming: readonly MirrorTransaction[],
  committedKeys: KeyFilter | undefined,
  ...found: ReadonlyArray<readonly MirrorTransaction[]>
): Promise<MirrorTransaction[]> {
  const known = new Set<string>();
  for (const rows of found) for (const row of rows) known.add(row.key);
  // Rows without an id are keyed by their content, date included: a moved one is a new key.
  const unknown = incoming
    .filter(
      (row) => row.providerId !== null && !known.has(row.key) && (committedKeys?.mayHave(row.key) ?? true),
    )
    .map((row) => row.key);
  const rows: MirrorTransaction[] = [];
  for (let start = 0; start < unknown.length; start += MAX_QUERY_KEYS) {
    const keys = unknown.slice(start, start + MAX_QUERY_KEYS);
    rows.push(...(await ctx.storage.findTransactions(ctx.connectionId, accountId, { keys })));
  }
  return rows;
}

/**
 * Lets timers, I/O and V8's garbage-collection tasks run between pages. The SQLite storage commits
 * synchronously, so without this a long first sync never returns to the event loop: a server
 * embedding the engine stalls, and the collector cannot finish its incremental marking, which lets
 * the heap grow several times past what is live.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
