/**
 * Group commit on SQLite: the units of work asked for with `{ group: true }` in one turn of the event
 * loop (up to 64) run in one database transaction, each inside its own savepoint, so they pay for one
 * `BEGIN IMMEDIATE` and one `COMMIT` between them, and the server handles several requests per turn
 * (docs/benchmarks.md, "Reference-server PATCH"). A unit alone in its turn runs as its own transaction.
 *
 * Each unit keeps its own outcome: one that throws is rolled back to its savepoint and its caller
 * gets the error, while the others commit. Each answer is given only after the group has committed,
 * so no caller is told of a write before it has committed. When the group cannot begin or commit, or
 * a unit meets an error after which SQLite abandons the whole transaction (a full disk), every caller
 * of the group gets that error and nothing of the group is kept. Units run one after the other in the
 * order they were asked for, each seeing the writes of those before it, as they would in separate
 * transactions taken in turn (a unit asked for without `group` in the same turn may run first: the
 * group starts on the next turn).
 */
import { prepareCached, type Db } from './sqlite-schema.js';
import { runSteps, step, thenApply, type Awaitable, type Steps } from './steps.js';
import type { AtomicallyOptions, CommitDeadline, UnitOfWork } from './types.js';

interface Member {
  work: (unit: UnitOfWork) => Awaitable<unknown>;
  deadline: CommitDeadline | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** More waiting units than this start another group: one group's answers should not wait long. */
const MAX_GROUP = 64;

export class CommitGroups {
  readonly #db: Db;
  /** Runs a whole group as one unit of work (`SqliteAppStore.atomically`). */
  readonly #atomically: <T>(
    work: (unit: UnitOfWork) => Awaitable<T>,
    options?: AtomicallyOptions,
  ) => Awaitable<T>;
  #forming: Member[] | undefined;
  /** Groups asked for and not yet settled: `drained()` waits for them. */
  readonly #unsettled = new Set<Promise<void>>();

  constructor(
    db: Db,
    atomically: <T>(work: (unit: UnitOfWork) => Awaitable<T>, options?: AtomicallyOptions) => Awaitable<T>,
  ) {
    this.#db = db;
    this.#atomically = atomically;
  }

  /** `work`'s value once the group it joined has committed. */
  join<T>(work: (unit: UnitOfWork) => Awaitable<T>, deadline?: CommitDeadline): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.#forming || this.#forming.length >= MAX_GROUP) {
        const group: Member[] = [];
        this.#forming = group;
        // After the I/O callbacks of this turn: the units their requests asked for are all in.
        const settled = new Promise<void>((done) =>
          setImmediate(() => void Promise.resolve(this.#run(group)).finally(done)),
        ).finally(() => this.#unsettled.delete(settled));
        this.#unsettled.add(settled);
      }
      this.#forming.push({ work, deadline, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Resolves once every group asked for so far has committed or failed (the store waits before it closes). */
  async drained(): Promise<void> {
    while (this.#unsettled.size > 0) await Promise.all(this.#unsettled);
  }

  #run(group: Member[]): Promise<void> | void {
    if (this.#forming === group) this.#forming = undefined;
    let outcomes: Awaitable<Outcome[]>;
    try {
      outcomes =
        group.length === 1
          ? // Alone in its group: its own transaction is its savepoint (two statements fewer).
            this.#atomically((unit) => thenApply(group[0]!.work(unit), (value) => [{ ok: true, value }]), {
              deadline: group[0]!.deadline,
            })
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
    return outcomes.then(settle, (error: unknown) => {
      for (const member of group) member.reject(error);
    });
  }

  *#members(unit: UnitOfWork, group: Member[]): Steps<Outcome[]> {
    const statement = (sql: string) => prepareCached(this.#db, sql).run();
    const outcomes: Outcome[] = [];
    for (const member of group) {
      statement('SAVEPOINT grouped_unit');
      try {
        member.deadline?.ensureOpen();
        const value = yield* step(member.work(unit));
        // Past its request's deadline, a unit is rolled back like one that threw: its client was told to retry.
        member.deadline?.beginCommit();
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
