/**
 * Whether a PATCH joins a group commit (store/sqlite-group-commit.ts) or commits at once, alone. A
 * group forms over one turn of the event loop, so each grouped PATCH waits for its turn's end to
 * learn who shares its commit. When one client sends its PATCHes one after another on one
 * connection, nobody ever does, and the wait is about 5 % of each PATCH (docs/benchmarks.md,
 * "Reference-server PATCH"). After a streak of PATCHes on one connection with none from any other,
 * they commit at once; the first PATCH from another connection brings grouping back.
 */
import type { Socket } from 'node:net';

/** PATCHes in a row on one connection, after the first, before they commit alone. */
const STREAK = 8;

export class ConnectionStreak {
  /** A number for each connection seen: no reference that would keep a closed socket alive. */
  readonly #numbers = new WeakMap<Socket, number>();
  #nextNumber = 0;
  #last = -1;
  #streak = 0;

  /** Whether the PATCH that arrived on `socket` should join a group commit. */
  shouldGroup(socket: Socket): boolean {
    let number = this.#numbers.get(socket);
    if (number === undefined) this.#numbers.set(socket, (number = this.#nextNumber++));
    if (number === this.#last) this.#streak++;
    else {
      this.#last = number;
      this.#streak = 0;
    }
    return this.#streak < STREAK;
  }
}
