/**
 * Which failures the service client repeats, and the service's own reset header. The timing both
 * clients share (backoff, `Retry-After`, "try again in N seconds") lives in packages/internals/src/http;
 * it is re-exported here so this module stays the one place the client's retry behaviour is read.
 */

export { backoffDelay, parseRetryAfterHeader, parseWaitFromText } from '@finsync/internals/http';

/** `X-RateLimit-Reset` is seconds until the window resets (not an epoch); `Infinity`/junk → undefined. */
export function parseResetSeconds(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Math.round(Number(value) * 1000);
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
