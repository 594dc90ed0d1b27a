/**
 * What JSON text written by hand relies on (the access log's lines, the PATCH's answer): which
 * strings `JSON.stringify` writes as they are, between quotes, with nothing escaped.
 */

/**
 * No quote, backslash, control character or surrogate: a string `JSON.stringify` writes as it is.
 * The test is per UTF-16 unit (no `u` flag), so strings joined together pass exactly when each does:
 * one test of several strings' concatenation stands for a test of each.
 */
export const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
