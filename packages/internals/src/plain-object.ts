/**
 * Constructors of plain objects, for objects a hot path makes by the hundred thousand and keeps for a
 * while (a page of rows, its records, its changes).
 *
 * V8 follows where the objects of each object literal go (its "allocation site"). When a
 * young-generation collection finds all of a site's objects alive, V8 allocates that site's later
 * objects straight in the old generation ("pretenuring"), and keeps doing so. A whole-history answer's
 * rows, held while it arrives, got the row literal pretenured that way. From then on every row read
 * back from a spilled answer went to the old generation, and so did the engine's records and changes
 * and what they refer to. A 1M-row first sync promoted some 200 MiB instead of 50–90, and its heap
 * peaked some 25 MiB higher (docs/benchmarks-history.md, eighteenth session). Objects made by `new` have no
 * such site.
 */

/**
 * `init` as a constructor whose objects are plain all the same: their prototype is
 * `Object.prototype`, so they are what an object literal with the same properties, assigned in the
 * same order, would be (the same keys in the same order, the same JSON, equal under `toStrictEqual`).
 */
export function plainObjectConstructor<T extends object, A extends unknown[]>(
  init: (this: T, ...args: A) => void,
): new (...args: A) => T {
  (init as unknown as { prototype: object }).prototype = Object.prototype;
  return init as unknown as new (...args: A) => T;
}
