/** What every storage makes of a feed read's options, so that all of them read alike. */
import { shown } from '@finsync/internals/http';
import type { ReadChangesOptions } from './types.js';

/**
 * A feed read's cursor and limit, checked: `after` a number of 0 or more (omitted: 0; a fraction
 * reads as the seq below it), `limit` a number of 0 or more (a fraction rounds up, as a loop that
 * reads while fewer than `limit` are read does; past the largest safe integer there is no limit,
 * `undefined`). Anything else is a RangeError: `NaN` read the whole feed from memory and SQLite, and
 * was a driver error on PostgreSQL.
 */
export function feedReadBounds(options: ReadChangesOptions): {
  /** The seq to read after, a whole number. */
  after: number;
  /** The most entries to read; `undefined`: no limit. */
  limit: number | undefined;
} {
  if (options === null || typeof options !== 'object')
    throw new TypeError('readChanges needs options: { after?, limit, connectionId? }');
  const { after = 0, limit, connectionId } = options;
  if (typeof after !== 'number' || !(after >= 0))
    throw new RangeError(`after must be a feed seq, a number of 0 or more, got ${shown(after)}`);
  if (typeof limit !== 'number' || !(limit >= 0))
    throw new RangeError(`limit must be a number of 0 or more, got ${shown(limit)}`);
  if (connectionId !== undefined && typeof connectionId !== 'string')
    throw new TypeError(`connectionId must be a string, got ${typeof connectionId}`);
  return {
    after: Math.min(Math.floor(after), Number.MAX_SAFE_INTEGER),
    limit: limit > Number.MAX_SAFE_INTEGER ? undefined : Math.ceil(limit),
  };
}
