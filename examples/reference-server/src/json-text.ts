/**
 * JSON text written by hand (the access log's lines, the PATCH's answer): which strings
 * `JSON.stringify` writes as they are, between quotes, with nothing escaped; and an answer's text
 * with whether it is ASCII throughout.
 */

/**
 * No quote, backslash, control character or surrogate: a string `JSON.stringify` writes as it is.
 * The test is per UTF-16 unit (no `u` flag), so strings joined together pass exactly when each does:
 * one test of several strings' concatenation stands for a test of each.
 */
export const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * `PLAIN_TEXT` within ASCII (space to DEL): a string JSON writes as it is whose UTF-8 bytes are its
 * characters, so text made of such strings and ASCII can be sent as Latin-1, byte for character,
 * without encoding it (a lone connection's PATCH spent about 4 % of its instructions on UTF-8 there).
 */
export const PLAIN_ASCII = /^[ !#-[\]-\x7f]*$/;

/** An answer's body as JSON text, and whether it is ASCII throughout (then sent as Latin-1). */
export interface JsonText {
  text: string;
  /** Every character is ASCII: the text's UTF-8 bytes are its characters, one each. */
  ascii: boolean;
}

/** `JSON.stringify`'s text of `value`, not looked at for ASCII (it is sent as UTF-8). */
export function stringified(value: unknown): JsonText {
  return { text: JSON.stringify(value), ascii: false };
}
