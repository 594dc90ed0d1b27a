/**
 * Walking a date range in windows. The provider has no page parameters: one call returns the whole
 * `from`..`to` window with a `total`. Small windows keep each response, and our memory, bounded; a
 * window whose `total` exceeds the rows sent is split and asked again while splitting finds more rows,
 * down to a single day at most.
 */
import { addDays, daysBetween, type CalendarDate } from '@finsync/internals/calendar';
import { cutHistoryStart, CUT_HISTORY_FLOOR } from './cut-history.js';
import { HeldHistory, type PagedHistory } from './week-pages.js';
import { isShort, received, shortBy } from './window-answer.js';
import type { Transaction } from './wire/schemas.js';

/**
 * The date range a `TransactionPage` covers, both ends inclusive. `null` ends mark a request without
 * that bound (a whole-history request has no `from`).
 */
export interface TransactionWindow {
  /** First day asked for (inclusive), or `null` when the whole history was asked for. */
  from: CalendarDate | null;
  /** Last day asked for (inclusive), or `null` when no upper bound was sent. */
  to: CalendarDate | null;
}

/**
 * One entry of `TransactionList.pages()`: a provider response's worth of transactions, or, for a large
 * answer handed out in pieces (a whole history, or a window of more than `spill.pageRows` rows), one
 * page of whole weeks of it. The pages of a list tile its range, oldest first.
 */
export interface TransactionPage extends TransactionWindow {
  /** The rows dated within this page's window, pending ones only when `includePending` was set. */
  transactions: Transaction[];
  /** The provider's `total` for this window, when it sent one. */
  total: number | null;
  /**
   * Rows the provider counted in `total` but did not send, after splitting the window while that
   * found more rows, down to a single day at most (or, for an open-ended request, after re-walking
   * the days it reached). Zero when the page is complete.
   */
  shortfall: number;
}

/** What one call to the provider returned for a window, before any client-side filtering. */
export interface RawWindowResult {
  rows: Transaction[];
  total: number | null;
  /**
   * Set for a whole-history answer read as it arrived: its rows wait here, in memory or in a spill
   * file (and `rows` is empty). The walk hands them out as pages of whole weeks and disposes of them.
   */
  paged?: PagedHistory;
}

export type FetchWindow = (window: TransactionWindow) => Promise<RawWindowResult>;

/** A window with both ends, as a walk over a date range asks for it. */
export interface BoundedWindow {
  from: CalendarDate;
  to: CalendarDate;
}

/**
 * A bounded window's request in two steps: resolves once its answer is in, and leaves the parse
 * (the CPU) to the function it resolves with. `signal` aborts this request alone: one sent ahead
 * that nobody will use.
 */
export type ReceiveWindow = (window: BoundedWindow, signal: AbortSignal) => Promise<() => RawWindowResult>;

export interface WalkOptions {
  from: CalendarDate | undefined;
  to: CalendarDate | undefined;
  today: CalendarDate;
  windowDays: number;
  includePending: boolean;
  /**
   * A complete window answer of more rows is handed out in pages of whole weeks of at most this many
   * rows (unless one week holds more), as a whole history is. Default: one page a window.
   */
  pageRows?: number | undefined;
  /**
   * When given, a walk over a date range asks for each window as the window before it is asked
   * for, so the provider makes the next answer while this one arrives, is parsed and its pages are
   * used: at most two requests in flight, and the next answer's text held beside the window in use.
   * A walk closed early aborts the request it sent ahead (which the provider may still count).
   */
  receiveWindow?: ReceiveWindow | undefined;
  /** The caller's signal: it aborts every request `receiveWindow` sends. */
  signal?: AbortSignal | undefined;
  onShortfall?: ((page: TransactionPage) => void) | undefined;
}

type PageOptions = Pick<WalkOptions, 'includePending' | 'pageRows'>;

function keepRow(row: Transaction, window: TransactionWindow, includePending: boolean): boolean {
  if (!includePending && row.isPending) return false;
  if (window.from !== null && row.date < window.from) return false;
  if (window.to !== null && row.date > window.to) return false;
  return true;
}

function pageFor(
  window: TransactionWindow,
  result: RawWindowResult,
  includePending: boolean,
  shortfall: number,
): TransactionPage {
  return {
    ...window,
    transactions: result.rows.filter((row) => keepRow(row, window, includePending)),
    total: result.total,
    shortfall,
  };
}

/** A complete answer's pages of whole weeks, tiling `window`, each as complete as the answer was. */
async function* completePages(
  paged: PagedHistory,
  window: TransactionWindow,
  includePending: boolean,
): AsyncGenerator<TransactionPage> {
  for await (const page of paged.pages(window))
    yield pageFor({ from: page.from, to: page.to }, { rows: page.rows, total: null }, includePending, 0);
}

async function* walkBoundedWindow(
  fetchWindow: (window: BoundedWindow) => Promise<RawWindowResult>,
  window: BoundedWindow,
  options: PageOptions,
  answered?: RawWindowResult,
): AsyncGenerator<TransactionPage> {
  const { includePending, pageRows = Infinity } = options;
  // The answer is let go before its pages are handed out: a generator's frame keeps its variables
  // alive while it is suspended, and would keep a dense window's every row until its last page,
  // although each page's rows are let go as it is handed out.
  let result: RawWindowResult | undefined = answered ?? (await fetchWindow(window));
  answered = undefined;
  if (!isShort(result)) {
    if (result.rows.length <= pageRows) {
      yield pageFor(window, result, includePending, 0);
      return;
    }
    // A dense window (some 5,000 rows in 90 days of a busy account) in pages of whole weeks: the
    // engine diffs and commits a page while the next waits in memory, and asks for the next window
    // while the last page is in use, instead of waiting for it before the first.
    const held = new HeldHistory([result.rows], pageRows);
    result = undefined;
    yield* completePages(held, window, includePending);
    return;
  }
  const span = daysBetween(window.from, window.to);
  if (span <= 0) {
    yield pageFor(window, result, includePending, shortBy(result));
    return;
  }
  // A window the provider cut short is asked again in halves, and both answers are weighed together
  // before either is split again. While the halves find rows the window's answer lacked, the provider
  // caps its answers and splitting goes on. When they find nothing more, its `total` counts rows it
  // sends for no window of these days (pending rows it was told to leave out, say), and splitting
  // down to single days would cost a request a day and find nothing: the window stays as it was
  // answered, with its shortfall. A half that holds nothing leaves the other as the same answer for
  // fewer days, which narrows it, so that is not a reason to stop.
  const firstHalfEnd = addDays(window.from, Math.floor(span / 2));
  const first: BoundedWindow = { from: window.from, to: firstHalfEnd };
  const second: BoundedWindow = { from: addDays(firstHalfEnd, 1), to: window.to };
  let firstAnswer: RawWindowResult | undefined = await fetchWindow(first);
  let secondAnswer: RawWindowResult | undefined = await fetchWindow(second);
  const found = rowsWithin(firstAnswer, first) + rowsWithin(secondAnswer, second);
  if (found <= rowsWithin(result, window) && firstAnswer.total !== 0 && secondAnswer.total !== 0) {
    firstAnswer = secondAnswer = undefined;
    yield pageFor(window, result, includePending, shortBy(result));
    return;
  }
  result = undefined;
  const firstPages = walkBoundedWindow(fetchWindow, first, options, firstAnswer);
  firstAnswer = undefined;
  yield* firstPages;
  const secondPages = walkBoundedWindow(fetchWindow, second, options, secondAnswer);
  secondAnswer = undefined;
  yield* secondPages;
}

/** An answer's rows dated within `window`: what it tells of those days, pending or not. */
function rowsWithin(result: RawWindowResult, window: BoundedWindow): number {
  let count = 0;
  for (const row of result.rows) if (row.date >= window.from && row.date <= window.to) count++;
  return count;
}

/**
 * `from`..`to` in windows of `windowDays`, made as they are walked, oldest first. The windows are laid
 * back from `to`, so the short one (if any) is the oldest: recent days, where holds and their postings
 * lie within days of each other, share a full window, and a hold is never listed in one window while
 * its posting arrives in the next (which showed a resumed sync's feed a hold, then its posting
 * replacing it, where an uninterrupted run showed the posting alone). Counted in days from `from`, so
 * no date past `to` is ever made: stepping by dates made '+010000-01' past year 9999, which sorts
 * before '9999-12-31', and the walk went on until the dates ran out.
 */
function* windowsOf(from: CalendarDate, to: CalendarDate, windowDays: number): Generator<BoundedWindow> {
  const days = daysBetween(from, to) + 1;
  // The oldest window takes the days that do not fill a whole one.
  let end = ((days - 1) % windowDays) + 1;
  for (let offset = 0; offset < days; offset = end, end += windowDays) {
    yield { from: addDays(from, offset), to: end < days ? addDays(from, end - 1) : to };
  }
}

async function* walkRange(
  fetchWindow: FetchWindow,
  from: CalendarDate,
  to: CalendarDate,
  options: WalkOptions,
): AsyncGenerator<TransactionPage> {
  const windows = windowsOf(from, to, options.windowDays);
  const receive = options.receiveWindow;
  if (!receive) {
    for (const window of windows) yield* walkBoundedWindow(fetchWindow, window, options);
    return;
  }
  const caller = options.signal;
  const send = (window: BoundedWindow) => {
    // Each request's own signal, which the caller's reaches through a listener taken off once the
    // answer is handed out (AbortSignal.any would tie one more signal to the caller's for every
    // window). A page of an answer that came in before the caller's abort is not handed out after
    // it: the client's list checks the caller's signal before every page.
    const abort = new AbortController();
    const forward = () => abort.abort(caller!.reason);
    if (caller?.aborted) forward();
    else caller?.addEventListener('abort', forward, { once: true });
    const answer = receive(window, abort.signal);
    // A failure of one sent ahead is thrown in its window's turn, after the pages before it, as
    // without the request sent ahead: marked as seen here, so it is not an unhandled rejection.
    answer.catch(() => undefined);
    return { answer, abort, release: () => caller?.removeEventListener('abort', forward) };
  };
  const take = async (sent: ReturnType<typeof send>): Promise<RawWindowResult> => {
    try {
      return (await sent.answer)();
    } finally {
      sent.release();
    }
  };
  // A window the provider cut short is asked again in halves, each the same way.
  const fetchSplit = (window: BoundedWindow) => take(send(window));
  // Only while answers are small: a dense window's answer is handed out over several pages, and an
  // answer asked for beside it is held that long (1M rows walked in windows: 196-203 against
  // 161-173 MiB when dense answers were asked for ahead too).
  const small = (result: RawWindowResult) => received(result) <= (options.pageRows ?? Infinity);
  let askAhead = false;
  let ahead: ReturnType<typeof send> | undefined;
  try {
    for (let window = windows.next(); !window.done;) {
      let current: ReturnType<typeof send> | undefined = ahead ?? send(window.value);
      const following = windows.next();
      const next = following.done ? undefined : following.value;
      // The next window is asked for now: the provider makes it while this answer arrives and is
      // parsed, and its pages are used. At most two requests are in flight, this one and the next.
      ahead = askAhead && next ? send(next) : undefined;
      let result: RawWindowResult | undefined = await take(current);
      // Nothing of this request is kept while its window's pages are handed out.
      current = undefined;
      askAhead = small(result);
      if (askAhead && next) ahead ??= send(next);
      const pages = walkBoundedWindow(fetchSplit, window.value, options, result);
      // Held only by the pages from here (see walkBoundedWindow).
      result = undefined;
      yield* pages;
      window = following;
    }
  } finally {
    // A walk closed early, or failing, takes back the request it sent ahead.
    if (ahead) {
      ahead.abort.abort();
      await ahead.answer.catch(() => undefined);
      ahead.release();
    }
  }
}

/** Yields the pages for a request, in ascending date order of windows. */
export async function* walkTransactionPages(
  fetchWindow: FetchWindow,
  options: WalkOptions,
): AsyncGenerator<TransactionPage> {
  const report = function* (pages: TransactionPage[]) {
    for (const page of pages) {
      if (page.shortfall > 0) options.onShortfall?.(page);
      yield page;
    }
  };

  if (options.from !== undefined) {
    const to = options.to ?? options.today;
    for await (const page of walkRange(fetchWindow, options.from, to, options)) yield* report([page]);
    return;
  }

  // No `from`: nothing tells how far back the history reaches, so ask for all of it at once.
  const window: TransactionWindow = { from: null, to: options.to ?? null };
  const result = await fetchWindow(window);
  try {
    if (!isShort(result) || received(result) === 0) {
      const shortfall = isShort(result) ? (result.total ?? 0) : 0;
      if (!result.paged) {
        yield* report([pageFor(window, result, options.includePending, shortfall)]);
        return;
      }
      // Complete, so no page can carry a shortfall: nothing for `report` to warn of.
      yield* completePages(result.paged, window, options.includePending);
      return;
    }
    // The provider cut the answer short. Re-walk, in windows, the days it did reach, and those before
    // its earliest row that hold the rows it left out (a provider that sends the newest rows first);
    // what even that does not find is reported as shortfall.
    const earliest = result.paged ? result.paged.earliest! : earliestDate(result.rows);
    const missing = (result.total ?? 0) - received(result);
    await result.paged?.dispose();
    const to = options.to ?? options.today;
    // Nor does the walk start before the floor: a row of year 1 (a zero time) cost 24,000 windows.
    const start = await cutHistoryStart(fetchWindow, earliest, to, missing, options.windowDays);
    const from = start < CUT_HISTORY_FLOOR ? CUT_HISTORY_FLOOR : start;
    // What the re-walk accounts for: the rows it found and those its own pages report missing.
    let accounted = 0;
    const pages: TransactionPage[] = [];
    const rewalk = { ...options, receiveWindow: undefined };
    for await (const page of walkRange(fetchWindow, from, to, rewalk)) {
      accounted += page.transactions.length + page.shortfall;
      pages.push(page);
      if (pages.length > 1) yield* report([pages.shift()!]);
    }
    const unaccounted = Math.max(0, (result.total ?? 0) - accounted);
    const last = pages.shift();
    if (last) yield* report([{ ...last, shortfall: last.shortfall + unaccounted }]);
    // Every row it sent was dated after `to`: no window to walk, and the rows it did not send are
    // still missing. One empty page says so, as for an answer that sent nothing.
    else
      yield* report([
        pageFor(window, { rows: [], total: result.total }, options.includePending, unaccounted),
      ]);
  } finally {
    await result.paged?.dispose();
  }
}

function earliestDate(rows: readonly Transaction[]): CalendarDate {
  let earliest = rows[0]!.date;
  for (const row of rows) if (row.date < earliest) earliest = row.date;
  return earliest;
}
