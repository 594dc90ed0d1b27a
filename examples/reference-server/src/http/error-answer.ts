/**
 * How an error thrown by the API's own code is answered: one mapping for `app.onError` and for the
 * PATCH answered outside Hono (direct-update.ts), so the two cannot answer the same error differently.
 */
import { ApiProblem } from '../problem.js';
import { ReadTimedOut } from '../store/types.js';
import { AnsweredAsTimedOut } from './deadline.js';

export interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  errors?: string[] | undefined;
  /** Seconds, for `Retry-After`. */
  retryAfter?: number | undefined;
}

/** What a request still running after the request timeout is answered. */
export const TIMED_OUT: ErrorAnswer = {
  status: 503,
  code: 'service_unavailable',
  message: 'The request took too long; try again',
  retryAfter: 5,
};

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // SQLite's lock timeout; PostgreSQL's lock and connection-loss classes.
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === '55P03' || code === '57P01';
}

/** The answer to an `ApiProblem` or a busy database; undefined for anything else (a 500, logged). */
export function errorAnswer(error: unknown): ErrorAnswer | undefined {
  // Its request has been answered so already; the error only rolled its write back.
  if (error instanceof AnsweredAsTimedOut) return TIMED_OUT;
  // A read the store bounded by the request's remaining time ran out of it: the same answer.
  if (error instanceof ReadTimedOut) return TIMED_OUT;
  if (error instanceof ApiProblem) {
    const retryAfter = error.status === 503 || error.status === 429 ? 5 : undefined;
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      errors: error.errors,
      retryAfter,
    };
  }
  if (isBusy(error))
    // Another process holds the database's write lock (SQLite), or the database is going away.
    return {
      status: 503,
      code: 'database_busy',
      message: 'The database is busy; try again in a moment',
      retryAfter: 1,
    };
  return undefined;
}

export const INTERNAL_ERROR: ErrorAnswer = {
  status: 500,
  code: 'internal_server_error',
  message: 'An unexpected error occurred',
};
