/**
 * Logic written once for a store that answers at once (SQLite: better-sqlite3 is synchronous) and one
 * that answers later (PostgreSQL). A function written as a generator `yield*`s each store call
 * through `step`; `runSteps` runs it to the end synchronously while every call answers at once, and
 * continues asynchronously from the first call that returns a promise (the idea of Babel's gensync).
 * On SQLite a group of PATCHes then runs one after the other in one database transaction, with no
 * promise, microtask or gate between their statements (store/sqlite-group-commit.ts).
 */
export type Awaitable<T> = T | Promise<T>;
export type Steps<T> = Generator<unknown, T, unknown>;

/** `const row = yield* step(unit.lockTransaction(…))`: the value, whether the call answered at once or not. */
export function* step<T>(value: Awaitable<T>): Generator<Awaitable<T>, T, unknown> {
  return (yield value) as T;
}

/** Several calls at once: their values, in order (concurrently when some answer later). */
export function* steps<T extends readonly unknown[]>(values: {
  [K in keyof T]: Awaitable<T[K]>;
}): Generator<unknown, T, unknown> {
  const later = (values as readonly unknown[]).some((value) => value instanceof Promise);
  return (later ? yield Promise.all(values as readonly unknown[]) : values) as unknown as T;
}

/** Runs `work` to its end: its value at once when every step answered at once, else a promise of it. */
export function runSteps<T>(work: Steps<T>): Awaitable<T> {
  let next = work.next();
  while (!next.done) {
    if (next.value instanceof Promise) return continueLater(work, next.value);
    next = work.next(next.value);
  }
  return next.value;
}

async function continueLater<T>(work: Steps<T>, pending: Promise<unknown>): Promise<T> {
  let next: IteratorResult<unknown, T> = { done: false, value: pending };
  while (!next.done) {
    let value: unknown;
    try {
      value = await next.value;
    } catch (error) {
      // The failure goes to the step that made the call, where the logic may catch it.
      next = work.throw(error);
      continue;
    }
    next = work.next(value);
  }
  return next.value;
}

/** `f` of the value, at once when the value is there, else when it comes. */
export function thenApply<T, U>(value: Awaitable<T>, f: (value: T) => U): Awaitable<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
