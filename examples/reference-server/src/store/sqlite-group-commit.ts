/**
 * Group commit on SQLite: the units of work asked for with `{ group: true }` in one turn of the event
 * loop run in one database transaction, each inside its own savepoint, so they pay for one
 * `BEGIN IMMEDIATE` and one `COMMIT` between them — about a ninth of a PATCH's time each
 * (docs/benchmarks.md, "Reference-server PATCH").
 *
 * Each unit keeps its own outcome: one that throws is rolled back to its savepoint and its caller
 * gets the error, while the others commit. Each answer is given only after the group has committed,
 * so no caller hears of a write that could still be lost; when the commit itself fails, every caller
 * of the group gets that failure and nothing of the group is kept. Units run one after the other in
 * the order they were asked for, each seeing the writes of those before it, as they would in separate
 * transactions taken in turn.
 */
import { prepareCached, type Db } from './sqlite-schema.js';
import { runSteps, step, thenApply, type Awaitable, type Steps } from './steps.js';
import type { UnitOfWork } from './types.js';

interface Member {
  work: (unit: UnitOfWork) => Awaitable<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** More waiting units than this start another group: one group's answers should not wait long. */
const MAX_GROUP = 64;

export class CommitGroups {
  readonly #db: Db;
  /** Runs a whole group as one unit of work (`SqliteAppStore.atomically`). */
  readonly #atomically: <T>(work: (unit: UnitOfWork) => Awaitable<T>) => Awaitable<T>;
  #forming: Member[] | undefined;

  constructor(db: Db, atomically: <T>(work: (unit: UnitOfWork) => Awaitable<T>) => Awaitable<T>) {
    this.#db = db;
    this.#atomically = atomically;
  }

  /** `work`'s value once the group it joined has committed. */
  join<T>(work: (unit: UnitOfWork) => Awaitable<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.#forming || this.#forming.length >= MAX_GROUP) {
        const group: Member[] = [];
        this.#forming = group;
        // After the I/O callbacks of this turn: the units their requests asked for are all in.
        setImmediate(() => this.#run(group));
      }
      this.#forming.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #run(group: Member[]): void {
    if (this.#forming === group) this.#forming = undefined;
    let outcomes: Awaitable<Outcome[]>;
    try {
      outcomes =
        group.length === 1
          ? // Alone in its group: its own transaction is its savepoint (two statements fewer).
            this.#atomically((unit) => thenApply(group[0]!.work(unit), (value) => [{ ok: true, value }]))
          : this.#atomically((unit) => runSteps(this.#members(unit, group)));
    } catch (error) {
      for (const member of group) member.reject(error);
      return;
    }
    const settle = (settled: Outcome[]) =>
      settled.forEach((outcome, i) =>
        outcome.ok ? group[i]!.resolve(outcome.value) : group[i]!.reject(outcome.error),
      );
    if (!(outcomes instanceof Promise)) return settle(outcomes);
    outcomes.then(settle, (error: unknown) => {
      for (const member of group) member.reject(error);
    });
  }

  *#members(unit: UnitOfWork, group: Member[]): Steps<Outcome[]> {
    const statement = (sql: string) => prepareCached(this.#db, sql).run();
    const outcomes: Outcome[] = [];
    for (const member of group) {
      statement('SAVEPOINT grouped_unit');
      try {
        const value = yield* step(member.work(unit));
        statement('RELEASE grouped_unit');
        outcomes.push({ ok: true, value });
      } catch (error) {
        // SQLite has rolled back the whole transaction itself (a full disk, say): the group fails.
        if (!this.#db.inTransaction) throw error;
        statement('ROLLBACK TO grouped_unit');
        statement('RELEASE grouped_unit');
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}
