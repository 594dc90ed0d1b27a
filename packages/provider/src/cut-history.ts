/**
 * A whole-history answer cut short: where the history it left out begins (see `cutHistoryStart`).
 */
import { addDays, type CalendarDate } from '@finsync/internals/calendar';
import type { FetchWindow } from './transactions.js';
import { shortBy } from './window-answer.js';
import type { Transaction } from './wire/schemas.js';

/** How far before its earliest row an answer cut short is looked behind: some 40 years. */
const CUT_HISTORY_LOOKBACK_DAYS = 40 * 366;
/** Windows in a row holding nothing before the look behind gives up (30 + 60 + 120 + 240 days). */
const CUT_HISTORY_EMPTY_WINDOWS = 4;
/** No window of the look behind starts before this: a row dated year 1 (a zero time) is no history. */
export const CUT_HISTORY_FLOOR = '1970-01-01';

/** A row as the look behind counts it: the same row in two overlapping answers counts once. */
function rowIdentity(row: Transaction): string {
  return row.id ?? `${row.date}|${row.amount}|${row.merchant ?? ''}|${row.description ?? ''}`;
}

/**
 * Where the history of a whole-history answer cut short begins. The days before its earliest row (up to
 * `to`) are asked for in windows going back, each twice as long as the one after it, until the rows
 * they hold before that row (each once: a client with `timeZone` widens every window by two days) and
 * what their own answers lacked count the `missing` rows, four windows in a row hold nothing (a
 * `total` that counts pending rows it does not send finds nothing to look for), or 40 years are
 * behind. The first day of the furthest window that held a row (or that row's, if earlier) is
 * returned, else `earliest`: the walk from there splits every window still short, so rows are found
 * however the provider cuts its answers. Without this, a provider that sent the newest rows first
 * lost the oldest ones for good, and the sync said success. The rows of these answers are not kept:
 * the walk asks for them again, oldest first.
 */
export async function cutHistoryStart(
  fetchWindow: FetchWindow,
  earliest: CalendarDate,
  to: CalendarDate,
  missing: number,
  windowDays: number,
): Promise<CalendarDate> {
  let start = earliest;
  const found = new Set<string>();
  let lacked = 0;
  let empty = 0;
  // Never past `to`: an answer may send rows dated after the days it was asked for.
  const before = addDays(earliest, -1);
  let end = before < to ? before : to;
  for (
    let behind = 0, days = windowDays;
    found.size + lacked < missing &&
    empty < CUT_HISTORY_EMPTY_WINDOWS &&
    behind < CUT_HISTORY_LOOKBACK_DAYS &&
    end >= CUT_HISTORY_FLOOR;
    behind += days, days *= 2
  ) {
    const from = addDays(end, -(days - 1));
    const window = { from: from < CUT_HISTORY_FLOOR ? CUT_HISTORY_FLOOR : from, to: end };
    const answer = await fetchWindow(window);
    await answer.paged?.dispose();
    let held = 0;
    for (const row of answer.rows) {
      if (row.date >= earliest) continue;
      held += 1;
      found.add(rowIdentity(row));
      if (row.date < start) start = row.date;
    }
    lacked += shortBy(answer);
    if (held > 0 || shortBy(answer) > 0) {
      empty = 0;
      if (window.from < start) start = window.from;
    } else empty += 1;
    end = addDays(window.from, -1);
  }
  return start;
}
