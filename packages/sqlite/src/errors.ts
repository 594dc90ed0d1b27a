import { SyncError } from '@finsync/sync';

/**
 * The database was migrated by a newer release of this package. Opening it anyway would mean
 * writing rows this code does not understand, so `init()` refuses; upgrade `@finsync/sqlite`.
 */
export class SchemaTooNewError extends SyncError {
  override readonly name: string = 'SchemaTooNewError';
  /** The highest migration version recorded in the database. */
  readonly databaseVersion: number;
  /** The highest migration version this code knows (`SCHEMA_VERSION`). */
  readonly supportedVersion: number;

  constructor(databaseVersion: number, supportedVersion: number) {
    super(
      `the database is at schema version ${databaseVersion}, newer than the ${supportedVersion} this version of ` +
        '@finsync/sqlite knows; upgrade @finsync/sqlite to open it',
    );
    this.databaseVersion = databaseVersion;
    this.supportedVersion = supportedVersion;
  }
}

/**
 * A read-only storage was opened on a database whose schema is older than this code's: it cannot
 * migrate it. Open it once read-write (which migrates), then read-only again.
 */
export class SchemaOutdatedError extends SyncError {
  override readonly name: string = 'SchemaOutdatedError';
  /** The highest migration version recorded in the database. */
  readonly databaseVersion: number;
  /** The schema version this code needs (`SCHEMA_VERSION`). */
  readonly supportedVersion: number;

  constructor(databaseVersion: number, supportedVersion: number) {
    super(
      `the database is at schema version ${databaseVersion} but this code needs ${supportedVersion}, and a ` +
        'read-only storage cannot migrate it; open it read-write once first',
    );
    this.databaseVersion = databaseVersion;
    this.supportedVersion = supportedVersion;
  }
}

/**
 * Another connection held the database's write lock for longer than `busyTimeoutMs` (SQLite's
 * `SQLITE_BUSY`): nothing of the write was done, and the same call can be made again. `cause` is the
 * driver's error.
 */
export class DatabaseBusyError extends SyncError {
  override readonly name: string = 'DatabaseBusyError';

  constructor(operation: string, busyTimeoutMs: number | undefined, cause: unknown) {
    super(
      `${operation}: the database stayed locked by another connection` +
        `${busyTimeoutMs === undefined ? '' : ` for ${busyTimeoutMs} ms`} (SQLITE_BUSY); nothing was written, try again`,
      { cause },
    );
  }
}

/** Runs a write, turning the driver's SQLITE_BUSY into a `DatabaseBusyError`. */
export function whileNotBusy<T>(operation: string, busyTimeoutMs: number | undefined, write: () => T): T {
  try {
    return write();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'SQLITE_BUSY' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'))) {
      throw new DatabaseBusyError(operation, busyTimeoutMs, error);
    }
    throw error;
  }
}
