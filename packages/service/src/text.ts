/**
 * Text the service can store. A JS string may hold an unpaired UTF-16 surrogate ("\ud800"): JSON
 * carries it (as the escape `\ud800`), but it is not Unicode text, and no database column can store
 * it faithfully — it is rejected, or silently turned into U+FFFD. The client refuses to send it.
 */
import { z } from 'zod';
import { LIMITS, count } from './limits.js';

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` is well-formed Unicode (every UTF-16 surrogate is half of a pair). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The message for text that is not well-formed: `what` names the member (`Name`, `Notes` …). */
export function malformedTextMessage(what: string): string {
  return `${what} must be valid Unicode text (it holds an unpaired UTF-16 surrogate the service cannot store)`;
}

/**
 * A string member of a request body: any string that is valid Unicode text, at most
 * `LIMITS.text` characters. Every text member of the update and create schemas is built on this,
 * so the check lives in one place. `what` names the member in messages ("Account ID is required",
 * "Name must be a string"); a message never repeats the text.
 */
export function textMember(what: string) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `${what} is required` : `${what} must be a string`),
    })
    .max(LIMITS.text, {
      error: (issue) =>
        `${what} must be at most ${count(LIMITS.text)} characters (it has ${count((issue.input as string).length)})`,
    })
    .refine(isWellFormedText, { message: malformedTextMessage(what) });
}
