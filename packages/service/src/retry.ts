/** How long the service wants us to wait, how long we wait on our own, and which failures we repeat. */

const WAIT_IN_TEXT =
  /try again in\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)?/i;

/** Parses `Retry-After` (delta-seconds or an HTTP date) into milliseconds. */
export function parseRetryAfterHeader(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** `X-RateLimit-Reset` is seconds until the window resets (not an epoch); `Infinity`/junk → undefined. */
export function parseResetSeconds(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Math.round(Number(value) * 1000);
}

/** Reads a wait such as "Rate limit exceeded. Try again in 1834 seconds." out of a message. */
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
 * Which failures a call may repeat.
 *
 * - `read` (GET): network errors, timeouts, 408, 429 and every 5xx.
 * - `overwrite` (PATCH/PUT of a transaction): the update sets fields to the given values, so sending
 *   the same body twice has the same effect as once. Network errors, timeouts, 429 (the service counts
 *   and refuses before acting), 502/503/504 (a proxy, or a dropped connection). Never 500: the service
 *   answers client mistakes with 500 (a missing `transaction` member, an unknown tag id), and
 *   repeating them cannot help. Never any other 4xx.
 * - `idempotent` (a create with an idempotency key: POST with `external_id`): the service answers a
 *   repeat with the row the first attempt made (200) and creates nothing, so the same failures as
 *   `overwrite` are repeated, for the same reasons.
 * - `once` (POST without a key, DELETE, restore): only 429, which the service returns before doing
 *   anything. After a request may have reached the service (no response, a 5xx), a repeat could
 *   create a second row, or answer 404 for a row this very call deleted or restored.
 */
export type RetryClass = 'read' | 'overwrite' | 'idempotent' | 'once';

/** The class of a method when the call does not say otherwise (a create with `external_id` does). */
export function retryClassOf(method: string): RetryClass {
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD') return 'read';
  if (upper === 'PATCH' || upper === 'PUT') return 'overwrite';
  return 'once';
}

/** Whether a response with `status` may be repeated for this retry class. */
export function isRetryableStatus(retryClass: RetryClass, status: number): boolean {
  if (status === 429) return true;
  if (retryClass === 'read') return status === 408 || status >= 500;
  if (retryClass === 'overwrite' || retryClass === 'idempotent') {
    return status === 502 || status === 503 || status === 504;
  }
  return false;
}

/** Whether a request that got no response (network error, timeout) may be repeated. */
export function retriesWithoutResponse(retryClass: RetryClass): boolean {
  return retryClass !== 'once';
}
