/**
 * How a large answer is handed out: a whole history, wherever its rows wait (in memory or in a spill
 * file), and a window's answer of more than `pageRows` rows. Oldest first, as pages of whole weeks of
 * date, as many weeks as fit in `pageRows` and at least one, whose windows tile the asked window.
 * Each page is then exactly what a request for its window would have answered, so the sync engine's
 * windowed rules (what vanished, which hold posted) apply unchanged, and a page is about one commit
 * of the engine.
 */
import { addDays, type CalendarDate } from '@finsync/internals/calendar';
import type { Transaction } from './wire/schemas.js';

const DAY_MS = 86_400_000;
/** Dates per week: the unit a page is made of. */
const WEEK_DAYS = 7;

export interface HistoryPage {
  from: CalendarDate | null;
  to: CalendarDate | null;
  rows: Transaction[];
}

/** An answer that has arrived in full and been validated, waiting to be paged. */
export interface PagedHistory {
  /** Rows in the answer. */
  readonly rowCount: number;
  /** The earliest date of any row, if any. */
  readonly earliest: CalendarDate | undefined;
  /**
   * The rows as pages of whole weeks, oldest first, tiling `window` (see `weekRuns`). Called once,
   * and not after `dispose()`.
   */
  pages(window: HistoryWindow): AsyncGenerator<HistoryPage>;
  /** Lets go of the rows (and any file). Safe to call more than once. */
  dispose(): Promise<void>;
}

export interface HistoryWindow {
  from: CalendarDate | null;
  to: CalendarDate | null;
}

/** The week a date falls in, as a number that grows with the date. */
export function weekOf(date: CalendarDate): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS / WEEK_DAYS);
}

function lastDayOf(week: number): CalendarDate {
  return new Date(((week + 1) * WEEK_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
}

/** The window of one page and the weeks whose rows it holds. */
export interface WeekRun {
  from: CalendarDate | null;
  to: CalendarDate | null;
  weeks: number[];
}

/**
 * Groups the weeks that hold rows into pages: as many whole weeks as fit in `pageRows`, and at least
 * one (a week holding more is a page alone). The first page starts where `window` starts (`null`:
 * unbounded, as for a whole history), each next one the day after the previous ends, and the last
 * ends where `window` ends; weeks dated wholly outside the window make no page, and a window without
 * a week of rows is one page.
 *
 * Packed from the newest week back, so the page left short is the oldest. The newest page is then
 * full, weeks deep: a hold and the posted row that replaces it, days apart at the recent end of the
 * history, land in one page and are paired there, rather than the hold being added with one page
 * and replaced with the next (as when the short page was the newest, sometimes a single week).
 * Packed rather than cut at `pageRows`: a page of a little more was committed by the engine as a
 * batch and a remainder, two commits where one would do (at 1M rows, 915 commits for 980k rows,
 * against some 500).
 */
export function* weekRuns(
  rowsPerWeek: ReadonlyMap<number, number>,
  pageRows: number,
  window: HistoryWindow,
): Generator<WeekRun> {
  const firstWeek = window.from === null ? -Infinity : weekOf(window.from);
  const lastWeek = window.to === null ? Infinity : weekOf(window.to);
  const weeks = [...rowsPerWeek.keys()]
    .filter((week) => week >= firstWeek && week <= lastWeek)
    .sort((a, b) => a - b);
  if (weeks.length === 0) {
    yield { from: window.from, to: window.to, weeks: [] };
    return;
  }
  /** Where each page's weeks begin, newest page first. */
  const starts: number[] = [];
  for (let end = weeks.length; end > 0;) {
    let start = end - 1;
    let rowsInPage = rowsPerWeek.get(weeks[start]!)!;
    while (start > 0 && rowsInPage + rowsPerWeek.get(weeks[start - 1]!)! <= pageRows) {
      start -= 1;
      rowsInPage += rowsPerWeek.get(weeks[start]!)!;
    }
    starts.push(start);
    end = start;
  }
  starts.reverse();
  let from = window.from;
  for (let page = 0; page < starts.length; page++) {
    const end = page + 1 < starts.length ? starts[page + 1]! : weeks.length;
    // Every week before the last lies wholly before the window's end.
    const to = end === weeks.length ? window.to : lastDayOf(weeks[end - 1]!);
    yield { from, to, weeks: weeks.slice(starts[page], end) };
    if (to !== null) from = addDays(to, 1);
  }
}

/**
 * A dense window's answer held in memory as parsed rows, paged as a whole history is (spill.ts): the
 * same pages, row for row. Handed out as one page, it was diffed
 * whole before its first commit, and the store sat idle meanwhile (about 100 ms for 10,000 rows,
 * before every account of a 100k-row first sync into PostgreSQL); as pages, the engine diffs the
 * next while the one before commits.
 */
export class HeldHistory implements PagedHistory {
  readonly #byWeek = new Map<number, Transaction[]>();
  readonly #rowsPerWeek = new Map<number, number>();
  readonly #pageRows: number;
  #paged = false;
  readonly rowCount: number;
  readonly earliest: CalendarDate | undefined;

  /** `batches`: the rows as they were parsed, a batch at a time (not joined into one array first). */
  constructor(batches: ReadonlyArray<readonly Transaction[]>, pageRows: number) {
    this.#pageRows = pageRows;
    let rowCount = 0;
    let earliest: CalendarDate | undefined;
    let lastDate: CalendarDate | undefined;
    let week = 0;
    for (const rows of batches) {
      rowCount += rows.length;
      for (const row of rows) {
        // Neighbouring rows mostly share a date: the week is worked out once per run of one date.
        if (row.date !== lastDate) {
          lastDate = row.date;
          week = weekOf(row.date);
          if (earliest === undefined || row.date < earliest) earliest = row.date;
        }
        const list = this.#byWeek.get(week);
        if (list) list.push(row);
        else this.#byWeek.set(week, [row]);
      }
    }
    this.rowCount = rowCount;
    for (const [week, list] of this.#byWeek) this.#rowsPerWeek.set(week, list.length);
    this.earliest = earliest;
  }

  async *pages(window: HistoryWindow): AsyncGenerator<HistoryPage> {
    if (this.#paged) throw new Error('a held history is paged once, and not after dispose()');
    this.#paged = true;
    for (const run of weekRuns(this.#rowsPerWeek, this.#pageRows, window)) {
      const rows: Transaction[] = [];
      for (const week of run.weeks) {
        for (const row of this.#byWeek.get(week)!) rows.push(row);
        // Handed out: what the engine is done with can be collected before the last page.
        this.#byWeek.delete(week);
      }
      yield { from: run.from, to: run.to, rows };
    }
  }

  async dispose(): Promise<void> {
    this.#paged = true;
    this.#byWeek.clear();
  }
}
