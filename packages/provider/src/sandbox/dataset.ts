import type { AccountModel } from './accounts.js';
import { dayOf } from './dates.js';
import type { GeneratorContext, RowSeed } from './profiles.js';
import { generateDay, randomRows } from './profiles.js';

/** A generated row as seen on a given `today`. */
export interface RowState {
  row: RowSeed;
  pending: boolean;
  /** A pending row still listed after its posted row appeared (implies `pending`). */
  lingering: boolean;
  /** The row's `date`: authorisation day while pending, posting day once posted. */
  day: number;
  /** Listed on its authorisation day (the account's today is that day). */
  firstDay: boolean;
}

export interface DayWindow {
  fromDay?: number | undefined;
  toDay?: number | undefined;
  includePending: boolean;
}

/** The amount a row is listed at: a pending row may show another amount than it posts at. */
export function listedAmountMinor(state: RowState): number {
  const { row } = state;
  if (!state.pending) return row.amountMinor;
  if (state.firstDay && row.firstListedAmountMinor !== undefined) return row.firstListedAmountMinor;
  return row.pendingAmountMinor ?? row.amountMinor;
}

/** Rows post at most this many days after authorisation. */
const MAX_LAG = 3;

/**
 * Lazy view over the whole synthetic history. Nothing is stored per row: windows regenerate their
 * days on demand, and only per-day sums (for balances) and card statements are cached.
 */
export class Dataset implements GeneratorContext {
  private readonly dayTotals = new Map<number, number[]>();
  private readonly statements = new Map<string, number>();
  private readonly balances = new Map<string, number>();

  constructor(
    private readonly seedKey: number,
    readonly startDay: number,
    /** False: every hold disappears the day its row posts. */
    private readonly lingeringHolds = true,
    /** True: some holds are listed at another amount than they post at. */
    readonly holdsSettleElsewise = false,
    /** True: some holds are listed at an estimate on their first day, and amended the next. */
    readonly holdsRelisted = false,
  ) {}

  rowsForDay(acct: AccountModel, day: number): RowSeed[] {
    return day < this.startDay ? [] : generateDay(this, this.seedKey, acct, day);
  }

  /** Disconnected accounts stopped receiving data; their state stays frozen at that day. */
  effectiveToday(acct: AccountModel, today: number): number {
    return acct.dataUntilDay === undefined ? today : Math.min(today, acct.dataUntilDay);
  }

  monthSpend(acct: AccountModel, year: number, month: number): number {
    const key = `${acct.ordinal}:${year}-${month}`;
    let total = this.statements.get(key);
    if (total === undefined) {
      total = 0;
      const first = Math.max(dayOf(year, month, 1), this.startDay);
      const last = dayOf(year, month + 1, 1) - 1;
      for (let day = first; day <= last; day++) {
        for (const row of randomRows(this.seedKey, acct, day)) {
          if (!row.hold) total += row.amountMinor;
        }
      }
      this.statements.set(key, total);
    }
    return total;
  }

  /** Newest date first; within a date, latest authorisation first, then generation order. */
  *rows(acct: AccountModel, today: number, window: DayWindow): Generator<RowState, void, undefined> {
    const asOf = this.effectiveToday(acct, today);
    const lo = Math.max(window.fromDay ?? -Infinity, this.startDay);
    const hi = Math.min(window.toDay ?? Infinity, asOf);
    // A date D collects rows authorised on D-3..D, so keep only those four days in memory.
    const recent = new Map<number, RowSeed[]>();
    for (let day = hi; day >= lo; day--) {
      recent.delete(day + 1);
      for (let auth = day; auth >= Math.max(this.startDay, day - MAX_LAG); auth--) {
        let rows = recent.get(auth);
        if (rows === undefined) {
          rows = this.rowsForDay(acct, auth);
          recent.set(auth, rows);
        }
        for (const row of rows) {
          const settleDay = auth + row.lag;
          if (settleDay <= asOf) {
            if (settleDay === day && !row.hold)
              yield { row, pending: false, lingering: false, day, firstDay: false };
            // A lingering hold keeps its pending date (the authorisation day), so it is listed in
            // the same place as while it was pending; lag > 0 keeps it apart from its posted row.
            if (
              auth === day &&
              window.includePending &&
              this.lingeringHolds &&
              asOf < settleDay + row.linger
            ) {
              yield { row, pending: true, lingering: true, day, firstDay: asOf === auth };
            }
          } else if (auth === day && window.includePending) {
            yield { row, pending: true, lingering: false, day, firstDay: asOf === auth };
          }
        }
      }
    }
  }

  count(acct: AccountModel, today: number, window: DayWindow): number {
    let n = 0;
    for (const _ of this.rows(acct, today, window)) n++;
    return n;
  }

  /** Opening balance plus every posted row, in minor units. */
  balanceMinor(acct: AccountModel, today: number): number {
    const asOf = this.effectiveToday(acct, today);
    const key = `${acct.ordinal}:${asOf}`;
    const cached = this.balances.get(key);
    if (cached !== undefined) return cached;
    // Days up to asOf - MAX_LAG are fully settled, so their totals never change and are cached.
    let total = acct.openingMinor + this.settledTotal(acct, asOf - MAX_LAG);
    for (let auth = Math.max(this.startDay, asOf - MAX_LAG + 1); auth <= asOf; auth++) {
      for (const row of this.rowsForDay(acct, auth)) {
        if (!row.hold && auth + row.lag <= asOf) total += row.amountMinor;
      }
    }
    if (this.balances.size > 10_000) this.balances.clear();
    this.balances.set(key, total);
    return total;
  }

  /** Sum of all non-hold rows authorised in startDay..lastDay. */
  private settledTotal(acct: AccountModel, lastDay: number): number {
    if (lastDay < this.startDay) return 0;
    let prefix = this.dayTotals.get(acct.ordinal);
    if (prefix === undefined) {
      prefix = [0];
      this.dayTotals.set(acct.ordinal, prefix);
    }
    // prefix[k] = total of the first k history days.
    for (let k = prefix.length; k <= lastDay - this.startDay + 1; k++) {
      let dayTotal = 0;
      for (const row of this.rowsForDay(acct, this.startDay + k - 1)) {
        if (!row.hold) dayTotal += row.amountMinor;
      }
      prefix.push((prefix[k - 1] ?? 0) + dayTotal);
    }
    return prefix[lastDay - this.startDay + 1] ?? 0;
  }
}
