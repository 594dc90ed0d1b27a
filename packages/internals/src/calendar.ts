/**
 * Calendar dates (`YYYY-MM-DD`) from the shapes the provider has been seen to send: a plain date,
 * an ISO 8601 timestamp, or unix seconds; and the day arithmetic the sync engine does on them.
 *
 * Public through @finsync/provider, which re-exports these names; the sync engine imports them here.
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Unix seconds as the provider sends them: 9 to 11 digits (1973 to 5138). A number outside is not a
 * time in seconds: milliseconds (13 digits) read as seconds name a year past 50000, and a `20240314`
 * would be 1970-08-23; each is refused rather than read as a date it does not mean.
 */
const UNIX_SECONDS_MIN = 100_000_000;
const UNIX_SECONDS_END = 100_000_000_000;

/** A calendar date, `YYYY-MM-DD`. */
export type CalendarDate = string;

export function isValidCalendarDate(text: string): boolean {
  const match = DATE_ONLY.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // setUTCFullYear, not Date.UTC: that reads the years 0 to 99 as 1900 to 1999.
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** One formatter per zone: building an `Intl.DateTimeFormat` costs far more than using one. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function dateInZone(instant: Date, timeZone: string): CalendarDate {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    // en-CA formats as YYYY-MM-DD, which saves assembling the parts by hand. A bad zone throws
    // here, before anything is cached.
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    if (formatters.size >= 64) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter.format(instant);
}

/** `…T00:00`, `…T00:00:00`, `…T00:00:00.000` at UTC (`Z`, `+00:00`, `+0000`, `-00:00`). */
const UTC_MIDNIGHT = /[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)$/i;

/**
 * Reads a calendar date. A timestamp is read as the date it names on its own clock (the text before
 * `T`) unless `timeZone` is given, in which case the instant is converted to that zone first: a card
 * payment at 23:30 BST sent as `…T22:30:00Z` belongs to the user's local day, not to UTC's.
 * Unix seconds (9 to 11 digits, as a number or text) are read in `timeZone`, or UTC.
 *
 * Midnight UTC exactly (a timestamp, or unix seconds a whole number of days) is read as the date it
 * names, in any zone: it is how a bank's date with no time is written as a timestamp, and read as an
 * instant it fell a day early west of UTC. A real payment at 00:00:00.000 UTC is the rarer thing.
 */
export function toCalendarDate(value: unknown, timeZone?: string): CalendarDate | undefined {
  if (typeof value === 'number') {
    if (!(value >= UNIX_SECONDS_MIN && value < UNIX_SECONDS_END)) return undefined;
    const instant = new Date(value * 1000);
    if (Number.isNaN(instant.getTime())) return undefined;
    return dateInZone(instant, value % 86_400 === 0 ? 'UTC' : (timeZone ?? 'UTC'));
  }
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (isValidCalendarDate(text)) return text;
  if (/^\d{9,11}$/.test(text)) return toCalendarDate(Number(text), timeZone);
  const match = ISO_TIMESTAMP.exec(text);
  if (!match) return undefined;
  const datePart = match[1] ?? '';
  if (!isValidCalendarDate(datePart)) return undefined;
  if (!timeZone || !match[2] || UTC_MIDNIGHT.test(text)) return datePart;
  const instant = new Date(text);
  return Number.isNaN(instant.getTime()) ? datePart : dateInZone(instant, timeZone);
}

export function addDays(date: CalendarDate, days: number): CalendarDate {
  const instant = new Date(`${date}T00:00:00Z`);
  instant.setUTCDate(instant.getUTCDate() + days);
  return instant.toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: CalendarDate, to: CalendarDate): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Today's date in `timeZone` (default: the machine's zone). */
export function today(timeZone?: string, now: Date = new Date()): CalendarDate {
  if (timeZone !== undefined) return dateInZone(now, timeZone);
  // The machine's zone is the one Date's local getters use (and follow, should the process change
  // TZ): no formatter needed, where asking Intl for the zone's name would build one on every call.
  const month = String(now.getMonth() + 1).padStart(2, '0');
  const day = String(now.getDate()).padStart(2, '0');
  return `${String(now.getFullYear()).padStart(4, '0')}-${month}-${day}`;
}
