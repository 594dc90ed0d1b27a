import type { ProviderLogger } from '@finsync/provider';

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

export const DEFAULT_TUNING: SyncTuning = {
  overlapDays: 7,
  pendingOverlapDays: 31,
  includePending: true,
  windowDays: 90,
  batchSize: 2_000,
  holdingsRecheckDays: 30,
  defaultRateLimitPauseMs: 60_000,
};

export interface EngineClock {
  /** The current instant. */
  now(): Date;
  /** Today's calendar date, `YYYY-MM-DD`, in the user's zone. */
  today(): string;
}

export type SyncLogger = ProviderLogger;
