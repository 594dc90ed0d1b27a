/**
 * Checks every write shares: text that can be stored as sent, and amounts within bounds. A value
 * that fails is refused with a 422 naming the member, so a 200 always answers exactly what was
 * stored and a later GET returns the same.
 */
import { currencyScale } from '@finsync/provider';
import { ApiProblem } from './problem.js';

/** A lone UTF-16 surrogate: valid in JSON, but no database stores it (SQLite and PostgreSQL would answer U+FFFD or refuse). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * How deeply a JSON body may nest. No write needs more than three levels (`transaction.tag_ids[0]`);
 * a body of 20,000 nested arrays (40 KB) is refused here instead of walked.
 */
export const MAX_JSON_DEPTH = 32;

const malformedText = (text: string) => LONE_SURROGATE.test(text) || text.includes('\u0000');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` has the shape of a record id (a UUID, in any case). */
export function isRecordId(text: string): boolean {
  return UUID.test(text);
}

/**
 * A record id as stored, from one sent in any case: the service's ids are PostgreSQL `uuid`s, which
 * read `6F1C…` as `6f1c…`, and every id here is written in lower case. Text that is no UUID comes back
 * lower-cased too, and still matches nothing.
 */
export function storedIdOf(text: string): string {
  return text.toLowerCase();
}

/** Ruby's `blank?` for a member: a string empty or only white space, which the service takes for "not sent". */
export const isBlank = (value: unknown): boolean => typeof value === 'string' && value.trim() === '';

/**
 * An amount written as text, as every write takes it: digits, an optional minus and decimals. Not
 * `+5`, ` 12 `, `12.`, `.5` or `1e3`, which some parsers read and others refuse.
 */
export const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** How many malformed members a refusal names; the rest it counts. */
const MAX_NAMED_MEMBERS = 10;
/** How long a named member's path may be; a longer one is cut, with an ellipsis. */
const MAX_MEMBER_PATH = 120;

/**
 * One walk of a parsed JSON body: whether it nests deeper than `MAX_JSON_DEPTH` (then it is not
 * walked further), else the members (keys included) holding text that is not valid Unicode, or a
 * NUL character (which PostgreSQL text cannot hold), as dotted paths (`transaction.name`): the first
 * `MAX_NAMED_MEMBERS`, each cut to `MAX_MEMBER_PATH` characters, and how many more there are. A path is
 * written out only for a member it names: a body of a long key over many values costs no more than
 * its size (writing every path out took a 1 MB body to 2 GB of memory, and every answer with it).
 */
export function checkBodyText(
  body: unknown,
): { tooDeep: true } | { tooDeep: false; malformed: string[]; more: number } {
  const malformed: string[] = [];
  let more = 0;
  const segments: Array<string | number> = [];
  const found = () => {
    if (malformed.length === MAX_NAMED_MEMBERS) {
      more += 1;
      return;
    }
    let path = '';
    for (const segment of segments) {
      path += typeof segment === 'number' ? `[${segment}]` : path ? `.${segment}` : segment;
      if (path.length > MAX_MEMBER_PATH) break;
    }
    if (path.length <= MAX_MEMBER_PATH) return void malformed.push(path);
    // Cut between two characters, never inside one (a surrogate pair): the answer must be valid text.
    let cut = MAX_MEMBER_PATH - 1;
    if (/[\uD800-\uDBFF]/.test(path[cut - 1]!)) cut -= 1;
    malformed.push(`${path.slice(0, cut)}…`);
  };
  // False when too deep; the recursion is bounded by the depth it checks.
  const walk = (value: unknown, depth: number): boolean => {
    if (typeof value === 'string') {
      if (malformedText(value)) found();
      return true;
    }
    if (value === null || typeof value !== 'object') return true;
    if (depth >= MAX_JSON_DEPTH) return false;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        segments.push(i);
        const ok = walk(value[i], depth + 1);
        segments.pop();
        if (!ok) return false;
      }
      return true;
    }
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      segments.push(key);
      if (malformedText(key)) found();
      const ok = walk(item, depth + 1);
      segments.pop();
      if (!ok) return false;
    }
    return true;
  };
  return walk(body, 0) ? { tooDeep: false, malformed, more } : { tooDeep: true };
}

/** A 400 for a body nested deeper than `MAX_JSON_DEPTH`, else a 422 naming its malformed members. */
export function assertWellFormedText(body: unknown): void {
  const checked = checkBodyText(body);
  if (checked.tooDeep)
    throw new ApiProblem(
      400,
      'bad_request',
      `The request body nests more than ${MAX_JSON_DEPTH} levels deep`,
    );
  const members = checked.malformed;
  if (members.length === 0) return;
  const errors = members.map(
    (m) => `${m || 'body'} contains an unpaired UTF-16 surrogate or a NUL character`,
  );
  if (checked.more > 0) errors.push(`and ${checked.more} more members like these`);
  throw new ApiProblem(
    422,
    'validation_failed',
    'The request contains text that is not valid Unicode',
    errors,
  );
}

/**
 * The day a write's `date` names, as the service's date type reads it, or undefined when it names
 * none: `2026-05-02`, `2026/05/02`, or a timestamp's written day (`2026-05-02T23:30:00-05:00` is
 * the 2nd, as written). Impossible days (2026-02-30) name none.
 */
export function calendarDateOf(text: string): string | undefined {
  const match =
    /^\s*(\d{4})[-/](\d{2})[-/](\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\s*$/i.exec(
      text,
    );
  if (!match) return undefined;
  const date = `${match[1]}-${match[2]}-${match[3]}`;
  return isCalendarDate(date) ? date : undefined;
}

/** Whether `text` is a real day written `YYYY-MM-DD` (not 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  // setUTCFullYear, not Date.UTC: that reads the years 0 to 99 as 1900 to 1999.
  const probe = new Date(0);
  probe.setUTCFullYear(y, m - 1, d);
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}

/** The largest amount accepted, in major units: far beyond any real transaction, and exact in every renderer. */
export const MAX_AMOUNT_DIGITS = 12;

/**
 * Why an amount `toDecimalString` refused cannot be stored: a number past its bounds (more than 15
 * integer digits) is too large, which says more than that it is not a number.
 */
export function unreadableAmountProblem(value: unknown): string {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  return Math.abs(number) >= 10 ** MAX_AMOUNT_DIGITS
    ? `Amount must be less than 10^${MAX_AMOUNT_DIGITS} in absolute value`
    : 'Amount must be a decimal number like 12.34';
}

/**
 * Why `amount` (a canonical decimal) cannot be stored for `currency`, or undefined when it can:
 * at most 12 integer digits, and no more decimals than the currency has (12.34 on a yen row would
 * otherwise be rounded silently).
 */
export function amountProblem(amount: string, currency: string): string | undefined {
  const [integer = '', fraction = ''] = amount.replace(/^-/, '').split('.');
  if (integer.length > MAX_AMOUNT_DIGITS)
    return `Amount must be less than 10^${MAX_AMOUNT_DIGITS} in absolute value`;
  const scale = currencyScale(currency);
  if (fraction.length > scale)
    return scale === 0
      ? `Amount must be a whole number in ${currency}`
      : `Amount must have at most ${scale} decimal places in ${currency}`;
  // `amount_cents` is a JSON integer, which clients read as a double: past 2^53 minor units it would
  // be rounded (12 integer digits of bitcoin are 10^20 satoshis), so a 200 would confirm another number.
  if (BigInt(integer + fraction.padEnd(scale, '0')) > MAX_MINOR_UNITS)
    return `Amount must be at most ${largestAmount(scale)} ${currency} in absolute value`;
  return undefined;
}

/** The most minor units an amount may have: every one of them exact as a JSON number. */
const MAX_MINOR_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/** `MAX_MINOR_UNITS` in major units at `scale` decimals, e.g. 90071992.54740991 for 8. */
function largestAmount(scale: number): string {
  const digits = MAX_MINOR_UNITS.toString();
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}
