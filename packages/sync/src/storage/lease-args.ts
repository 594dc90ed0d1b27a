/**
 * The arguments of the `WorkQueue` methods, checked alike by every store: a queue that granted a
 * lease of `Infinity` or claimed a half connection in one store and threw in another was two queues.
 */
import { MAX_LEASE_MS } from './types.js';

/** `value` as an ISO timestamp; a `TypeError` when it is not a valid `Date`. */
export function leaseDate(value: Date, name: string): string {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw new TypeError(`${name} must be a valid Date`);
  return value.toISOString();
}

/** `leaseMs`, or a `RangeError` when it is not a positive number of milliseconds up to a day. */
export function leaseLength(leaseMs: number): number {
  if (typeof leaseMs !== 'number' || !Number.isFinite(leaseMs) || leaseMs <= 0 || leaseMs > MAX_LEASE_MS)
    throw new RangeError(`leaseMs must be positive and at most ${MAX_LEASE_MS} (a day), got ${leaseMs}`);
  return leaseMs;
}

/** The worker id, or a `TypeError` when it is not a non-empty string. */
export function leaseWorker(workerId: string, method: string): string {
  if (typeof workerId !== 'string' || workerId === '') throw new TypeError(`${method} needs a workerId`);
  return workerId;
}

/**
 * How many connections a claim of `limit` may take: a fraction rounds up (a claim asks for at least
 * what it says), and 0, a negative number or NaN claims none. `Infinity` stays: no limit.
 */
export function claimCount(limit: number): number {
  return limit > 0 ? Math.ceil(limit) : 0;
}
