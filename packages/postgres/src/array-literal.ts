/**
 * One column of a batch as the text of a PostgreSQL array (`{"a","b",NULL}`), the form a
 * `$n::text[]` parameter arrives in anyway. pg builds that text itself when handed a JS array, with
 * two regex replaces per element; for the feed's record JSON, full of quotes, that was a fifth of
 * `apply`'s own CPU time. `JSON.stringify` does the same in native code whenever its escapes and the
 * array syntax's agree, which is checked on every call.
 */
import type { SqlValue } from './rows.js';

/**
 * An escape JSON writes and a quoted array element would read differently. Inside a quoted element a
 * backslash takes the next character literally, so `\"` and `\\` mean what they mean in JSON, but
 * `\n`, `\t`, `\u0001` or `\ud800` (a control character or a lone surrogate) would not. An escape
 * starts at a backslash preceded by an even number of backslashes: `\\n` is an escaped backslash
 * and a letter, as the feed's record JSON holds for every merchant with a line break, and stays on
 * the fast path.
 */
const OTHER_ESCAPE = /(?<!\\)(?:\\\\)*\\[^"\\]/;

/**
 * The array literal for `values`. Strings are always quoted, so no string can read as NULL;
 * `null` (JSON's, unquoted) is NULL to PostgreSQL, whose keyword is case-insensitive; booleans
 * become `true`/`false` and numbers their JSON form, both valid input for `boolean[]` and `int2[]`.
 */
export function arrayLiteral(values: readonly SqlValue[]): string {
  const json = JSON.stringify(values);
  if (!OTHER_ESCAPE.test(json)) return `{${json.slice(1, -1)}}`;
  return elementByElement(values);
}

/** The same text, element by element: for strings with control characters or lone surrogates. */
function elementByElement(values: readonly SqlValue[]): string {
  const parts = values.map((value) => {
    if (value === null || value === undefined) return 'NULL';
    if (typeof value === 'string') return `"${value.replace(/["\\]/g, '\\$&')}"`;
    return String(value);
  });
  return `{${parts.join(',')}}`;
}
