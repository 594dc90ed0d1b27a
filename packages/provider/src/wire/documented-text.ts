/**
 * Rows of a list checked on their text, without `JSON.parse`. A whole history that goes to disk is
 * parsed when its pages are read back; parsing each row as it arrives too, only to check it and take
 * its date, was a quarter of a 1M-row pull's time (docs/benchmarks-history.md, twentieth session).
 *
 * Only the documented shape written as the provider writes it is taken: the documented keys in the
 * docs' order, no whitespace, a plain decimal number as the amount, a boolean `isPending`. The pattern
 * is a subset of JSON's grammar; the amount and the date it captures are then checked as `documented`
 * (fast-transactions.ts) checks them, so every text taken is a row it accepts, with that date. The
 * property tests hold it to that. Any other text, of any
 * row of the run, sends the run to the parsed path, which reads or refuses it as before.
 */
import type { ListRun } from './list-scanner.js';
import { numberHasDecimal } from '@finsync/internals/money';
import { DOCUMENTED_FIELDS, isDocumentedDate } from './fast-transactions.js';

/**
 * A JSON string: any character but `"`, `\` and controls, or an escape JSON allows but `\u0000` and a
 * lone surrogate's (the schema rewrites them: see `storableText`). A surrogate pair written as two
 * escapes (as `ensure_ascii` serializers write every emoji) is taken.
 */
const PLAIN = String.raw`[^"\\\u0000-\u001f]*`;
const ESCAPE = String.raw`\\(?:["\\/bfnrt]|u(?!0000|[dD][89a-fA-F])[0-9a-fA-F]{4}|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})`;
// Unrolled (plain characters, then any escape followed by plain characters): the same strings as
// `"(?:plain|escape)*"`, but V8's engine runs a run of plain characters as one tight loop instead of
// one alternation, with its backtracking state, a character.
const STRING = `"${PLAIN}(?:${ESCAPE}${PLAIN})*"`;
/** A JSON number without an exponent and at most 16 integer digits: always finite once parsed. */
const NUMBER = String.raw`-?(?:0|[1-9]\d{0,15})(?:\.\d{1,20})?`;
const ID = `(?:${STRING}|${NUMBER}|null)`;
const TEXT = `(?:${STRING}|null)`;

/**
 * What each documented member may hold, as the provider writes it. The amount and the date are
 * captured: a number of this form may still lie past the money bounds (more than 18 decimals, as
 * `-0.00003974552074365297` has; 16 integer digits), and a date of this form off the calendar.
 */
const VALUE: Record<(typeof DOCUMENTED_FIELDS)[number], string> = {
  id: ID,
  accountId: ID,
  amount: `(${NUMBER})`,
  currency: '(?:"[A-Z]{3}"|null)',
  date: String.raw`"(\d{4}-\d{2}-\d{2})"`,
  merchant: TEXT,
  description: TEXT,
  isPending: '(?:true|false)',
};

/**
 * The documented members in the docs' order (`DOCUMENTED_FIELDS`). Sticky: matched at an element's
 * start, and taken only when it ends at the element's end.
 */
const DOCUMENTED_ROW = new RegExp(
  `\\{${DOCUMENTED_FIELDS.map((field) => `"${field}":${VALUE[field]}`).join(',')}\\}`,
  'y',
);

/**
 * The date of each of the run's rows when every one is a documented row as the provider writes it,
 * else `undefined` (the caller parses the run and checks it row by row).
 */
export function documentedDatesOfText(run: ListRun): string[] | undefined {
  const { text, bounds } = run;
  const dates: string[] = new Array(run.count);
  for (let k = 0; k < run.count; k++) {
    DOCUMENTED_ROW.lastIndex = bounds[2 * k]!;
    const match = DOCUMENTED_ROW.exec(text);
    if (match === null || DOCUMENTED_ROW.lastIndex !== bounds[2 * k + 1]) return undefined;
    // Number() of a JSON number's text is what JSON.parse makes of it.
    if (!numberHasDecimal(Number(match[1]))) return undefined;
    const date = match[2]!;
    if (!isDocumentedDate(date)) return undefined;
    dates[k] = date;
  }
  return dates;
}
