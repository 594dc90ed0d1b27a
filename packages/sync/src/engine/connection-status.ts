/**
 * The connection status machine (`active`, `paused`, `reauth_required`), written once. Pure: the
 * engine, the scheduler and the storages ask these functions instead of reading the fields. The
 * table in the package's SPEC.md ("Connection status") is what this code does, row by row.
 */
import { AuthenticationError, PermissionDeniedError, RateLimitError } from '@finsync/provider';
import type { ConnectionState } from '../model.js';
import { storableText } from '@finsync/internals/text';

/** What moves a connection's state. A run ends with exactly one of the `run-*` events or a stop. */
export type ConnectionEvent =
  /** A run begins (it was not skipped). */
  | { type: 'run-started'; at: Date }
  /** A run ended with no issue at all. */
  | { type: 'run-succeeded'; at: Date }
  /** A run ended with issues, none of which stopped it (one account failed, say). */
  | { type: 'run-failed' }
  /** The provider refused the key (401/403). */
  | { type: 'auth-refused'; reason: string }
  /**
   * The provider rate-limited us (a 429, or its 500 that wraps one). `retryAfterMs` is the wait it
   * stated, `null` when it stated none (then `defaultPauseMs` applies).
   */
  | { type: 'rate-limited'; at: Date; retryAfterMs: number | null; defaultPauseMs: number; reason: string }
  /** The run was stopped from our side: the caller aborted, the engine stopped, the lease was lost. */
  | { type: 'run-aborted' }
  /** The user gave the connection a new key (or client). */
  | { type: 'credentials-replaced' };

/**
 * The longest pause a rate limit sets. A provider's stated wait past a day is a broken header, not
 * a plan: taken as it is, a wait of 400 billion seconds gave a `pausedUntil` in the year 14702,
 * which PostgreSQL cannot read, and every claim of every worker failed on it.
 */
export const MAX_PAUSE_MS = 24 * 60 * 60 * 1000;

/** A connection seen for the first time. */
export function newConnectionState(id: string, createdAt: Date): ConnectionState {
  return {
    id,
    status: 'active',
    pausedUntil: null,
    statusReason: null,
    lastRunAt: null,
    lastSuccessAt: null,
    createdAt: createdAt.toISOString(),
  };
}

export function nextConnectionState(state: ConnectionState, event: ConnectionEvent): ConnectionState {
  switch (event.type) {
    case 'run-started':
      return { ...state, lastRunAt: event.at.toISOString() };
    case 'run-succeeded':
      return { ...active(state), lastSuccessAt: event.at.toISOString() };
    case 'run-failed':
      // Getting through without a stop shows the rate limit is over; nothing else is learnt.
      return state.status === 'paused' ? active(state) : state;
    case 'auth-refused':
      return { ...state, status: 'reauth_required', pausedUntil: null, statusReason: event.reason };
    case 'rate-limited': {
      const pauseMs = Math.min(event.retryAfterMs ?? event.defaultPauseMs, MAX_PAUSE_MS);
      return {
        ...state,
        status: 'paused',
        pausedUntil: new Date(event.at.getTime() + pauseMs).toISOString(),
        statusReason: event.reason,
      };
    }
    case 'run-aborted':
      // Says nothing about the provider or the key.
      return state;
    case 'credentials-replaced':
      return active(state);
  }
}

function active(state: ConnectionState): ConnectionState {
  return { ...state, status: 'active', pausedUntil: null, statusReason: null };
}

/** A 401 or 403: the provider refused the key. */
export function isAuthFailure(error: unknown): boolean {
  return error instanceof AuthenticationError || error instanceof PermissionDeniedError;
}

/**
 * The event for a run stopped by `cause` (the error of the issue that stopped it) at `at`: a
 * refused key, a rate limit, or else a stop from our side.
 */
export function stopEvent(cause: Error, at: Date, defaultPauseMs: number): ConnectionEvent {
  if (isAuthFailure(cause)) return { type: 'auth-refused', reason: storableText(cause.message) };
  if (cause instanceof RateLimitError)
    return {
      type: 'rate-limited',
      at,
      retryAfterMs: cause.retryAfterMs ?? null,
      defaultPauseMs,
      reason: storableText(cause.message),
    };
  return { type: 'run-aborted' };
}

/**
 * When the provider may be called for this connection, as far as its status says: `'on-new-key'`
 * (never, until `credentials-replaced`), from a time while paused (epoch ms; a pause that has
 * expired stays `paused` until the next run ends), or `'on-schedule'`.
 */
export function callsResume(state: ConnectionState): 'on-new-key' | 'on-schedule' | number {
  if (state.status === 'reauth_required') return 'on-new-key';
  if (state.status === 'paused' && state.pausedUntil) return Date.parse(state.pausedUntil);
  return 'on-schedule';
}

/**
 * Whether a run may call the provider at `now` (epoch ms). The storages' due-work queries say
 * the same thing in SQL: not `reauth_required`, and not `paused` with `pausedUntil` after now.
 */
export function mayCall(state: ConnectionState, now: number): boolean {
  const resume = callsResume(state);
  return resume === 'on-schedule' || (resume !== 'on-new-key' && resume <= now);
}
