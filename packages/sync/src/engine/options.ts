import type { ProviderLogger } from '@finsync/provider';
import { isValidCalendarDate } from '@finsync/internals/calendar';
import { shown } from '@finsync/internals/http';
import { MAX_PAUSE_MS } from './connection-status.js';

/**
 * How much history the engine reads and how it batches work. Every field has a default (see
 * {@link DEFAULT_TUNING}); pass any of them to `new SyncEngine(...)`. Day counts are whole numbers of
 * at most 3 660 days; values are checked when the engine is made and a bad one throws there.
 */
export interface SyncTuning {
  /**
   * First day mirrored: the first sync starts here, and no later re-read reaches before it. Default:
   * the provider's whole history.
   */
  startDate?: string;
  /** Days re-read before the watermark on later syncs. Default 7. */
  overlapDays: number;
  /** The same when pending rows are synced (a card hold can take weeks to post). Default 31. */
  pendingOverlapDays: number;
  /** Sync pending rows too. Default true. */
  includePending: boolean;
  /** Days per provider request on long ranges (first syncs, long gaps). Default 90. */
  windowDays: number;
  /** Changes per storage commit when one response is large. Default 2000. */
  batchSize: number;
  /** How often an account whose holdings were "not supported" is asked again. Default 30 days. */
  holdingsRecheckDays: number;
  /** How long a rate-limited connection pauses when the provider does not say. Default 60 000 ms. */
  defaultRateLimitPauseMs: number;
}

/** The tuning the engine uses for every {@link SyncTuning} field it is not given (frozen). */
export const DEFAULT_TUNING: Readonly<SyncTuning> = Object.freeze({
  overlapDays: 7,
  pendingOverlapDays: 31,
  includePending: true,
  windowDays: 90,
  batchSize: 2_000,
  holdingsRecheckDays: 30,
  defaultRateLimitPauseMs: 60_000,
});

/** The longest span in days any day-counting option takes: ten years, past any provider's history. */
export const MAX_TUNING_DAYS = 3_660;

/** The most changes one storage commit takes. */
export const MAX_BATCH_SIZE = 100_000;

function wholeNumber(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`${name} must be a whole number from ${min} to ${max}, got ${shown(value)}`);
}

/**
 * The tuning with its defaults, checked once, when the engine is made: a `windowDays` or
 * `batchSize` of 0 looped until the process ran out of memory, `windowDays: "30"` (from an
 * environment variable, say) mirrored a third of the rows and reported success, and a bad
 * `startDate` failed every run instead of the constructor.
 */
export function checkedTuning(options: Partial<SyncTuning>): SyncTuning {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const tuning: SyncTuning = { ...DEFAULT_TUNING, ...(defined as Partial<SyncTuning>) };
  wholeNumber('overlapDays', tuning.overlapDays, 0, MAX_TUNING_DAYS);
  wholeNumber('pendingOverlapDays', tuning.pendingOverlapDays, 0, MAX_TUNING_DAYS);
  wholeNumber('windowDays', tuning.windowDays, 1, MAX_TUNING_DAYS);
  wholeNumber('batchSize', tuning.batchSize, 1, MAX_BATCH_SIZE);
  wholeNumber('holdingsRecheckDays', tuning.holdingsRecheckDays, 0, MAX_TUNING_DAYS);
  wholeNumber('defaultRateLimitPauseMs', tuning.defaultRateLimitPauseMs, 0, MAX_PAUSE_MS);
  if (typeof tuning.includePending !== 'boolean')
    throw new TypeError(`includePending must be true or false, got ${typeof tuning.includePending}`);
  const { startDate } = tuning;
  if (startDate !== undefined && !(typeof startDate === 'string' && isValidCalendarDate(startDate)))
    throw new RangeError(`startDate must be a calendar date, YYYY-MM-DD, got ${shown(startDate)}`);
  return tuning;
}

/**
 * The engine's source of time; pass parts of it as `clock` to fix time in tests or to set the user's
 * "today".
 */
export interface EngineClock {
  /** The current instant. */
  now(): Date;
  /** Today's calendar date, `YYYY-MM-DD`, in the user's zone. Default: `now()` in the machine's zone. */
  today(): string;
}

/** Where the engine logs: the same shape as the provider client's logger. A logger that throws is ignored. */
export type SyncLogger = ProviderLogger;
