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
 * The members of a parsed JSON body (keys included) holding text that is not valid Unicode, or a
 * NUL character (which PostgreSQL text cannot hold), as dotted paths: `transaction.name`.
 */
export function malformedTextMembers(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) || value.includes('\u0000') ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => malformedTextMembers(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => {
    const member = path ? `${path}.${key}` : key;
    const bad = LONE_SURROGATE.test(key) || key.includes('\u0000') ? [member] : [];
    return bad.concat(malformedTextMembers(item, member));
  });
}

/**
 * How deeply a JSON body may nest. No write needs more than three levels (`transaction.tag_ids[0]`);
 * the checks that walk a body recurse, and a body of 20,000 nested arrays (40 KB) would overflow the
 * stack.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` nests deeper than `MAX_JSON_DEPTH`, found without recursion. */
export function nestedTooDeeply(value: unknown): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth >= MAX_JSON_DEPTH) return true;
    for (const item of Object.values(next.value)) pending.push({ value: item, depth: next.depth + 1 });
  }
  return false;
}

/** A 400 for a body nested deeper than `MAX_JSON_DEPTH`, else the 422 of `malformedTextMembers`. */
export function assertWellFormedText(body: unknown): void {
  if (nestedTooDeeply(body))
    throw new ApiProblem(
      400,
      'bad_request',
      `The request body nests more than ${MAX_JSON_DEPTH} levels deep`,
    );
  const members = malformedTextMembers(body);
  if (members.length === 0) return;
  throw new ApiProblem(
    422,
    'validation_failed',
    'The request contains text that is not valid Unicode',
    members.map((m) => `${m || 'body'} contains an unpaired UTF-16 surrogate or a NUL character`),
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
  const probe = new Date(Date.UTC(y, m - 1, d));
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
  return undefined;
}
