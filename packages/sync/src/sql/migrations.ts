/**
 * What versioned migrations have in common across SQL adapters. How a step runs (a function on a
 * synchronous handle, SQL text in a transaction) and how the version is stored stay with each
 * adapter; the rules for versions and how a failed step is reported are the same everywhere.
 */

/**
 * One forward-only schema step. Shipped migrations are never edited or reordered: a database that
 * already ran version n will never run it again, so a fix is always a new, higher version. Each
 * adapter adds how the step changes the schema (`up`).
 */
export interface MigrationStep {
  /** Positive integer, strictly increasing through the list. */
  readonly version: number;
  /** A short name for errors and logs (e.g. `initial schema`). */
  readonly name: string;
}

/** What an adapter's `migrate` reports: the versions before and after, and the steps it ran. */
export interface MigrationResult {
  /** Schema version before `migrate` ran (0: never migrated). */
  from: number;
  /** Schema version afterwards. */
  to: number;
  /** Versions this call applied, in order (empty when the schema was current). */
  applied: number[];
}

/**
 * Checks that versions are positive integers in increasing order and returns the last one (0 for
 * no migrations): the version a database is at once all of them ran.
 */
export function checkMigrationOrder(migrations: readonly MigrationStep[]): number {
  let previous = 0;
  for (const migration of migrations) {
    if (!Number.isInteger(migration.version) || migration.version <= previous) {
      throw new TypeError(
        `migration versions must be positive integers in increasing order; got ${migration.version} after ${previous}`,
      );
    }
    previous = migration.version;
  }
  return previous;
}

/** The error to throw for a step that failed: names the step, keeps the reason as message and cause. */
export function migrationFailed(migration: MigrationStep, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`migration ${migration.version} (${migration.name}) failed: ${reason}`, {
    cause: error,
  });
}
