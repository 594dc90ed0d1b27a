/** What every phase of a run shares: the context, the run-stopping error and issue helpers. */
import { RateLimitError, RequestAbortedError, type ProviderClient } from '@finsync/provider';
import { LeaseLostError } from '../errors.js';
import type { Storage } from '../storage/types.js';
import { isAuthFailure } from './connection-status.js';
import type { SyncProgress } from './events.js';
import type { EngineClock, SyncLogger, SyncTuning } from './options.js';
import type { AccountReport, SyncIssue, SyncStage } from './report.js';
import { storableText } from '@finsync/internals/text';

export interface RunContext {
  connectionId: string;
  client: ProviderClient;
  storage: Storage;
  /**
   * Every write of the run is fenced by a worker's lease, on a store that enforces leases: no other
   * worker's run commits to the connection while this one holds it. A run without a lease (a "sync
   * now", a second server without leases) still may, so this narrows what may change, not rules it out.
   */
  leased: boolean;
  tuning: SyncTuning;
  clock: EngineClock;
  signal: AbortSignal;
  logger: SyncLogger | undefined;
  onProgress: (progress: SyncProgress) => void;
  onAccountDone: (report: AccountReport) => void;
}

/**
 * Stops the whole connection's run: the key was refused, the provider rate-limited us, the caller
 * aborted, or the worker lost the connection's lease.
 */
export class StopRun extends Error {
  /** The report of the account the run stopped in, as far as it got: what it committed stays reported. */
  account: AccountReport | undefined;
  /** The account's closing write (its balance and verdict) was stored before the run stopped. */
  closingStored = false;

  constructor(readonly issue: SyncIssue) {
    super(issue.message);
  }
}

export function issue(stage: SyncStage, accountId: string | null, error: unknown): SyncIssue {
  const err = error instanceof Error ? error : new Error(String(error));
  // The message is stored (an account's lastError): as every store keeps it (see `storableText`).
  return { stage, accountId, message: storableText(err.message), error: err };
}

/** Whether the run can write no more: it was aborted, or lost its lease (which refuses every write). */
function cannotWrite(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || error instanceof RequestAbortedError || error instanceof LeaseLostError;
}

/**
 * Whether `error` stops the run while it may still write: a refused key or a rate limit concerns the
 * whole connection, and a write made before the run stops is still its own.
 */
export function stopsTheRunWithWritesAllowed(error: unknown, signal: AbortSignal): boolean {
  return !cannotWrite(error, signal) && (isAuthFailure(error) || error instanceof RateLimitError);
}

/** Translates a provider failure into a run stop where it concerns the whole connection. */
export function stopIfConnectionWide(
  stage: SyncStage,
  accountId: string | null,
  error: unknown,
  signal: AbortSignal,
): void {
  // A lost lease refuses every later write too: going on would only call the provider for nothing.
  if (cannotWrite(error, signal) || stopsTheRunWithWritesAllowed(error, signal))
    throw new StopRun(issue(stage, accountId, error));
}
