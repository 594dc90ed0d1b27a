/**
 * A request's time limit, shared by the request timeout and the request's units of work, so a
 * request is never answered "timed out, try again" while its write goes on to commit. Whichever
 * comes first wins: the timeout (the unit then rolls back at its commit), or the unit's commit
 * (the timeout then lets the request finish and answers with what was committed).
 */
import type { CommitDeadline } from '../store/types.js';

/** Thrown by `beginCommit` once the request has been answered as timed out; nothing is committed. */
export class AnsweredAsTimedOut extends Error {
  constructor() {
    super('the request was answered as timed out before its write could commit');
    this.name = 'AnsweredAsTimedOut';
  }
}

export class RequestDeadline implements CommitDeadline {
  #state: 'open' | 'expired' | 'committing' = 'open';
  readonly #endsAt: number;

  /** `timeoutMs`: the request timeout, counted from now (unknown when omitted: no end to read by). */
  constructor(timeoutMs = Infinity) {
    this.#endsAt = performance.now() + timeoutMs;
  }

  /** Milliseconds left before the request timeout answers; 0 once it has. */
  remainingMs(): number {
    return this.#state === 'expired' ? 0 : Math.max(0, this.#endsAt - performance.now());
  }

  /** The time is up: whether the request may now be answered as timed out (nothing is committing). */
  expire(): boolean {
    if (this.#state === 'committing') return false;
    this.#state = 'expired';
    return true;
  }

  /** Whether the request has been answered as timed out (what it goes on to do is not answered). */
  get expired(): boolean {
    return this.#state === 'expired';
  }

  ensureOpen(): void {
    if (this.#state === 'expired') throw new AnsweredAsTimedOut();
  }

  beginCommit(): void {
    if (this.#state === 'expired') throw new AnsweredAsTimedOut();
    this.#state = 'committing';
  }
}
