// Days are integers (days since 1970-01-01, UTC) so windows, lags and month logic are plain arithmetic.

export const DAY_MS = 86_400_000;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a strict `YYYY-MM-DD` calendar date; returns undefined for anything else (incl. 2026-02-30). */
export function parseDay(text: string): number | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const [, y, m, d] = match;
  const ms = Date.UTC(Number(y), Number(m) - 1, Number(d));
  const day = ms / DAY_MS;
  return isoDay(day) === text ? day : undefined;
}

export function requireDay(text: string, what: string): number {
  const day = parseDay(text);
  if (day === undefined)
    throw new RangeError(`${what} must be a YYYY-MM-DD date, got ${JSON.stringify(text)}`);
  return day;
}

// Serialising a million rows formats the same few thousand dates over and over.
const isoCache = new Map<number, string>();

export function isoDay(day: number): string {
  let iso = isoCache.get(day);
  if (iso === undefined) {
    iso = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (isoCache.size < 100_000) isoCache.set(day, iso);
  }
  return iso;
}

export interface CalendarDay {
  year: number;
  /** 1..12 */
  month: number;
  /** 1..31 */
  dayOfMonth: number;
  daysInMonth: number;
  /** 0 = Sunday */
  weekday: number;
}

export function calendar(day: number): CalendarDay {
  const date = new Date(day * DAY_MS);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  return {
    year,
    month,
    dayOfMonth: date.getUTCDate(),
    daysInMonth: new Date(Date.UTC(year, month, 0)).getUTCDate(),
    weekday: date.getUTCDay(),
  };
}

export function dayOf(year: number, month: number, dayOfMonth: number): number {
  return Date.UTC(year, month - 1, dayOfMonth) / DAY_MS;
}
