/**
 * The balance check. Every commit that changes an account's rows moves the account's ledger by
 * exactly what it changed, so checking the provider's balance never sums the history: the balance
 * must have moved, since the last check that added up, by what the posted rows moved.
 */
import { addDays } from '@finsync/internals/calendar';
import type { AccountLedger, BalanceReconciliation, MirrorTransaction, TransactionChange } from '../model.js';
import { addDecimals, sameDecimal, subtractDecimals } from './decimal.js';

export function emptyLedger(): AccountLedger {
  return {
    postedTotal: '0',
    historyFrom: null,
    anchor: null,
    olderHistoryDelta: '0',
    changedFrom: null,
    rows: 0,
  };
}

function earlier(a: string | null, b: string): string {
  return a === null || b < a ? b : a;
}

/** A running sum of decimal strings, folded every 10,000 so a long history never holds them all. */
class DecimalSum {
  #parts: string[] = [];
  add(amount: string): void {
    this.#parts.push(amount);
    if (this.#parts.length >= 10_000) this.#parts.splice(0, this.#parts.length, addDecimals(...this.#parts));
  }
  total(): string {
    return addDecimals('0', ...this.#parts);
  }
}

/**
 * One pass over stored rows: the posted rows' sum and earliest date, the sum of those dated before
 * `olderThan` (when given), and how many rows, pending ones included, were read.
 */
async function countRows(rows: AsyncIterable<MirrorTransaction>, olderThan: string | null) {
  const posted = new DecimalSum();
  const older = new DecimalSum();
  let historyFrom: string | null = null;
  let rowsRead = 0;
  for await (const row of rows) {
    rowsRead += 1;
    if (row.isPending) continue;
    posted.add(row.amount);
    historyFrom = earlier(historyFrom, row.date);
    if (olderThan !== null && row.date < olderThan) older.add(row.amount);
  }
  return { postedTotal: posted.total(), olderTotal: older.total(), historyFrom, rowsRead };
}

/**
 * The ledger of rows that were never counted: one pass over what is stored (once, on upgrade or on
 * a first sync), and how many rows, pending ones included, it read.
 */
export async function ledgerOfRows(
  rows: AsyncIterable<MirrorTransaction>,
): Promise<{ ledger: AccountLedger; rowsRead: number }> {
  const { postedTotal, historyFrom, rowsRead } = await countRows(rows, null);
  return { ledger: { ...emptyLedger(), postedTotal, historyFrom, rows: rowsRead }, rowsRead };
}

/**
 * The ledger with its sums counted again from the stored `rows`, for a check that did not add up;
 * `undefined` when the sums kept agree with the rows (the mismatch is the provider's). The kept sums
 * drift only when two runs of one connection commit at once (two servers on one database, no
 * leases): each commit writes the ledger its own run carries, so the last one written loses what the
 * other run counted, and every later check would fail by that much.
 */
export async function recountedLedger(
  ledger: AccountLedger,
  rows: AsyncIterable<MirrorTransaction>,
): Promise<AccountLedger | undefined> {
  // Since the anchor, no posted row dated before its history had been counted: all of them are
  // history synced further back.
  const counted = await countRows(rows, ledger.anchor?.historyFrom ?? null);
  const postedTotal = counted.postedTotal;
  const olderHistoryDelta = ledger.anchor ? counted.olderTotal : '0';
  if (
    sameDecimal(postedTotal, ledger.postedTotal) &&
    sameDecimal(olderHistoryDelta, ledger.olderHistoryDelta)
  )
    return undefined;
  return {
    ...ledger,
    postedTotal,
    olderHistoryDelta,
    rows: counted.rowsRead,
    // The kept one is the earliest ever counted (a removal does not move it); a lost count may hide one.
    historyFrom:
      counted.historyFrom === null ? ledger.historyFrom : earlier(ledger.historyFrom, counted.historyFrom),
  };
}

/** The ledger after `changes` commit; `previous` holds the stored rows they modify or remove. */
export function advanceLedger(
  ledger: AccountLedger,
  changes: readonly TransactionChange[],
  previous: ReadonlyMap<string, MirrorTransaction>,
): AccountLedger {
  const next = { ...ledger };
  const moved: string[] = [];
  const older: string[] = [];
  const count = (row: MirrorTransaction | null | undefined, sign: 1 | -1) => {
    if (!row || row.isPending) return;
    const amount = sign === 1 ? row.amount : subtractDecimals('0', row.amount);
    moved.push(amount);
    if (sign === 1) next.historyFrom = earlier(next.historyFrom, row.date);
    const anchor = next.anchor;
    if (!anchor) return;
    // Rows dated before the history the anchor knew are history synced further back: they move
    // the opening balance, not the current one.
    if (anchor.historyFrom !== null && row.date < anchor.historyFrom) older.push(amount);
    else next.changedFrom = earlier(next.changedFrom, row.date);
  };
  if (changes.length > 0) next.movedSinceCheck = true;
  for (const change of changes) {
    if (change.op !== 'added') count(previous.get(change.key), -1);
    if (change.op !== 'removed') count(change.record, 1);
    if (next.rows !== undefined && change.op !== 'modified') next.rows += change.op === 'added' ? 1 : -1;
  }
  if (moved.length > 0) next.postedTotal = addDecimals(next.postedTotal, ...moved);
  if (older.length > 0) next.olderHistoryDelta = addDecimals(next.olderHistoryDelta, ...older);
  // An anchor taken over no posted row (an account whose history the provider had not imported yet)
  // tests nothing: the first rows may be history the balance held, postings it did not count yet, or
  // both. The next check takes it again, as a first sync's does.
  if (next.anchor?.historyFrom === null && moved.length > 0)
    return { ...next, anchor: null, olderHistoryDelta: '0', changedFrom: null };
  return next;
}

/**
 * `checkBalance`, and when it finds a mismatch, the same check on the sums recounted from the stored
 * `rows` (see `recountedLedger`). The recount is kept only when it makes the check add up: the kept
 * anchor may itself have been taken on sums that were off, and a recount kept under it would turn a
 * mismatch that passes into one that stays. A recount that finds the kept sums right is remembered
 * (`recountedTotal`), so a mismatch that lasts is not recounted again until the rows move.
 */
export async function checkBalanceRecounting(
  ledger: AccountLedger,
  balance: string,
  pendingTotal: string,
  today: string,
  stored: StoredRows,
  currency?: string | null,
): Promise<BalanceCheck & { recounted: boolean }> {
  // The first anchor is taken on the sums as they are, and every later check measures from it: sums
  // that are off then would add up for good (the opening balance off by what was lost). Their row
  // count tells whether they are, for one count of the stored rows; only then are the rows summed.
  if (ledger.anchor === null) {
    const storedRows = await stored.count();
    if (ledger.rows !== storedRows) {
      const recounted = await recountedLedger(ledger, stored.rows());
      const counted = recounted ?? { ...ledger, rows: storedRows };
      const first = checkBalance(counted, balance, pendingTotal, today, currency);
      // Another run committed rows of the account while this one ran (two first syncs at once): the
      // stored rows may be a later reading of the bank than this run's balance (a refresh between
      // the two), and an anchor on both would be off by what posted in between, for good. No anchor
      // this run: the next takes it on its own rows and balance. (A ledger of an earlier version,
      // which never counted rows, is anchored on the recount at once.)
      if (ledger.rows !== undefined) return { ...first, ledger: counted, recounted: recounted !== undefined };
      return { ...first, recounted: recounted !== undefined };
    }
  }
  const rows = stored.rows;
  const kept = checkBalance(ledger, balance, pendingTotal, today, currency);
  if (kept.reconciliation.status !== 'mismatch') return { ...kept, recounted: false };
  if (ledger.recountedTotal !== undefined && sameDecimal(ledger.recountedTotal, ledger.postedTotal))
    return { ...kept, recounted: false };
  const recounted = await recountedLedger(ledger, rows());
  if (recounted === undefined)
    return { ...kept, ledger: { ...kept.ledger, recountedTotal: ledger.postedTotal }, recounted: false };
  const again = checkBalance(recounted, balance, pendingTotal, today, currency);
  return again.reconciliation.status === 'mismatch'
    ? { ...kept, recounted: false }
    : { ...again, recounted: true };
}

/** The account's stored rows, for a check that has to look at them. */
export interface StoredRows {
  /** How many there are, pending ones included. */
  count(): Promise<number>;
  /** Each of them, streamed. */
  rows(): AsyncIterable<MirrorTransaction>;
}

export interface BalanceCheck {
  ledger: AccountLedger;
  reconciliation: BalanceReconciliation;
}

/**
 * Compares the provider's `balance` (fetched `today`) with the ledger. The opening balance implied
 * now (balance minus rows) must equal the one implied at the last check that added up, less any
 * history synced further back since; a bank whose balance also counts pending rows is recognised
 * when only that reading adds up. `currency` is the one the balance names (`null`: none, it is in the
 * one a balance last named, which the ledger keeps): an anchor taken in another currency measures
 * nothing. One such balance is `unchecked` and leaves the anchor (a provider that mislabels one answer
 * must not wipe out a mismatch the anchor still shows); a second in a row in the same new currency (a
 * provider that corrected the account's currency) starts the check again from it. An anchor without a
 * currency is taken to be in any.
 */
export function checkBalance(
  ledger: AccountLedger,
  balance: string,
  pendingTotal: string,
  today: string,
  currency?: string | null,
): BalanceCheck {
  const opening = {
    posted: subtractDecimals(balance, ledger.postedTotal),
    'posted-and-pending': subtractDecimals(subtractDecimals(balance, ledger.postedTotal), pendingTotal),
  };
  // The currency a balance last named: one listed without a currency is in it. Not the account list's,
  // which may still name the old one.
  const lastNamed = ledger.namedCurrency ?? ledger.anchor?.currency ?? null;
  const reading = currency ?? lastNamed;
  const named: AccountLedger = currency ? { ...ledger, namedCurrency: currency } : ledger;
  // A check that adds up starts afresh: what a recount found under the old anchor no longer holds.
  // Any verdict now is about the rows as they are.
  const { recountedTotal: _recounted, movedSinceCheck: _moved, ...sums } = named;
  const { movedSinceCheck: _movedToo, ...compared } = named;
  const anchorAt = (basis: BalanceReconciliation['basis'], checked: boolean): AccountLedger => ({
    ...sums,
    anchor: {
      on: today,
      openingPosted: opening.posted,
      openingWithPending: opening['posted-and-pending'],
      basis,
      historyFrom: ledger.historyFrom,
      balance,
      postedTotal: ledger.postedTotal,
      pendingTotal,
      checked,
      ...(currency === undefined ? {} : { currency: reading }),
    },
    olderHistoryDelta: '0',
    changedFrom: null,
  });
  const outcome = (
    status: BalanceReconciliation['status'],
    basis: BalanceReconciliation['basis'],
    mismatch?: { since: string; difference: string },
  ): BalanceReconciliation => ({
    status,
    basis,
    openingBalance: opening[basis],
    historyFrom: ledger.historyFrom,
    since: mismatch?.since ?? null,
    difference: mismatch?.difference ?? null,
  });

  const otherCurrency =
    ledger.anchor !== null &&
    reading !== null &&
    ledger.anchor.currency !== undefined &&
    ledger.anchor.currency !== null &&
    ledger.anchor.currency !== reading;
  if (otherCurrency && lastNamed !== reading)
    return { ledger: compared, reconciliation: outcome('unchecked', ledger.anchor!.basis) };
  const anchor = otherCurrency ? null : ledger.anchor;
  if (!anchor) return { ledger: anchorAt('posted', false), reconciliation: outcome('unchecked', 'posted') };
  const expectedWith = (olderHistory: string) => ({
    posted: subtractDecimals(anchor.openingPosted, olderHistory),
    'posted-and-pending': subtractDecimals(anchor.openingWithPending, olderHistory),
  });
  const expected = expectedWith(ledger.olderHistoryDelta);
  // Rows dated before the history the anchor knew are history synced further back (the balance does
  // not move for them) or postings the bank dated early (it does: a hold that posts on its purchase
  // day, a value date before a new account's first row). Whichever reading adds up is the one.
  const readings = sameDecimal(ledger.olderHistoryDelta, '0') ? [expected] : [expected, expectedWith('0')];
  const other = anchor.basis === 'posted' ? 'posted-and-pending' : 'posted';
  // Readings equal to the anchor's test nothing (they add up because the anchor came from them): a
  // re-sync with nothing new keeps the verdict, and so writes nothing.
  const moved =
    anchor.balance === undefined ||
    !sameDecimal(balance, anchor.balance) ||
    !sameDecimal(ledger.postedTotal, anchor.postedTotal ?? '0') ||
    !sameDecimal(pendingTotal, anchor.pendingTotal ?? '0');
  const checked = anchor.checked !== false || moved;
  // Both readings on the anchor's basis first: a bank does not change what its balance counts as
  // often as it dates a posting early.
  for (const basis of [anchor.basis, other] as const)
    for (const reading of readings) {
      if (sameDecimal(opening[basis], reading[basis]))
        return {
          ledger: anchorAt(basis, checked),
          reconciliation: outcome(checked ? 'balanced' : 'unchecked', basis),
        };
    }
  // Kept as it is: the next check is measured from the last day that added up.
  const dayAfter = addDays(anchor.on, 1);
  const since = ledger.changedFrom !== null && ledger.changedFrom < dayAfter ? ledger.changedFrom : dayAfter;
  const difference = subtractDecimals(opening[anchor.basis], expected[anchor.basis]);
  return { ledger: compared, reconciliation: outcome('mismatch', anchor.basis, { since, difference }) };
}
