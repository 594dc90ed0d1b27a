/** How a storage judges a batch's lease fence (`WriteBatch.fence`): at which time. */

/** What `Date#toISOString` writes, or the same with a zone offset: `Date.parse` alone takes "1" or "Nov 30". */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The time a fence judges its lease at, in ms since the epoch: `at` (the worker's clock) when given,
 * else now. An `at` that is not such a timestamp is refused with a `TypeError`, before anything is written.
 */
export function fenceTime(at: string | undefined): number {
  if (at === undefined) return Date.now();
  const ms = ISO_TIMESTAMP.test(at) ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(ms)) throw new TypeError(`fence.at must be an ISO timestamp, got ${JSON.stringify(at)}`);
  return ms;
}
