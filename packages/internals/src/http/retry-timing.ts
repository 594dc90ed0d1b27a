/**
 * How long a server wants us to wait, and how long we wait on our own. Which failures are repeated
 * is each client's own policy; only the timing is shared.
 */

const WAIT_IN_TEXT =
  /try again in\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)?/i;

/** Parses `Retry-After` (delta-seconds or an HTTP date) into milliseconds. */
export function parseRetryAfterHeader(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date begins with its weekday (all three forms RFC 9110 accepts): `Date.parse` also reads
  // "-1" or "5", which are no dates (a "-1" was read as "now", and the client retried at once).
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Reads a wait out of an error message: the provider's wrapped upstream limit says "Please try again
 * in 37 seconds", the service's 429 "Rate limit exceeded. Try again in 1834 seconds.".
 */
export function parseWaitFromText(text: string): number | undefined {
  const match = WAIT_IN_TEXT.exec(text);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  if (unit.startsWith('ms') || unit.startsWith('milli')) return Math.round(amount);
  if (unit.startsWith('m')) return Math.round(amount * 60_000);
  return Math.round(amount * 1000);
}

/** Jittered exponential backoff: 0.5 s, 1 s, 2 s … capped at 8 s, each scaled by 0.75–1. */
export function backoffDelay(retryNumber: number, random: () => number = Math.random): number {
  const base = Math.min(8_000, 500 * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(base * (0.75 + random() * 0.25));
}

/**
 * How long to wait before retry number `retryNumber`: what the server asked for (`asked`), or our
 * own backoff when it did not say. `undefined` (give up, throw) when it asked for more than
 * `maxAskedMs`: sleeping for minutes inside a call helps nobody, so the wait goes to the caller
 * (the error carries it as `retryAfterMs`).
 */
export function delayBeforeRetry(
  asked: number | undefined,
  retryNumber: number,
  maxAskedMs: number,
): number | undefined {
  if (asked !== undefined) return asked <= maxAskedMs ? asked : undefined;
  return backoffDelay(retryNumber);
}
