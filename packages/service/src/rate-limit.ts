/** The service's rate-limit headers, read from the last response that carried them. */

export interface RateLimitSnapshot {
  /** Requests allowed per window (`X-RateLimit-Limit`); `Infinity` on a self-hosted service. */
  limit: number;
  /** Requests left in this window, this one counted (`X-RateLimit-Remaining`); `Infinity` self-hosted. */
  remaining: number;
  /** Seconds until the window resets (`X-RateLimit-Reset`; a duration, not an epoch); `0` self-hosted. */
  resetSeconds: number;
  /** When the response arrived (ms since the epoch), so `observedAt + resetSeconds * 1000` is the reset time. */
  observedAt: number;
}

/** `"100"` → 100, `"Infinity"` → Infinity (Ruby's `Float::INFINITY.to_s`); anything else → undefined. */
function readCount(value: string | null): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\+?Infinity$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** The snapshot in `headers`, or `undefined` when the response had no (readable) rate-limit headers. */
export function readRateLimit(headers: Headers, now: number = Date.now()): RateLimitSnapshot | undefined {
  const limit = readCount(headers.get('x-ratelimit-limit'));
  const remaining = readCount(headers.get('x-ratelimit-remaining'));
  const reset = readCount(headers.get('x-ratelimit-reset'));
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  return {
    limit: limit ?? Number.POSITIVE_INFINITY,
    remaining: remaining ?? Number.POSITIVE_INFINITY,
    resetSeconds: reset !== undefined && Number.isFinite(reset) ? reset : 0,
    observedAt: now,
  };
}
