import { SyncError } from '@finsync/sync';

/**
 * The schema was migrated by a newer release of this package. Using it anyway would mean writing
 * rows this code does not understand, so `init()` and `migrate()` refuse; upgrade `@finsync/postgres`.
 */
export class SchemaTooNewError extends SyncError {
  override readonly name: string = 'SchemaTooNewError';
  /** The schema that was checked. */
  readonly schema: string;
  /** The highest migration version recorded in the database. */
  readonly databaseVersion: number;
  /** The highest migration version this code knows (`SCHEMA_VERSION`). */
  readonly supportedVersion: number;

  constructor(schema: string, databaseVersion: number, supportedVersion: number) {
    super(
      `schema ${schema} is at version ${databaseVersion}, newer than the ${supportedVersion} this version of ` +
        '@finsync/postgres knows; upgrade @finsync/postgres to use it',
    );
    this.schema = schema;
    this.databaseVersion = databaseVersion;
    this.supportedVersion = supportedVersion;
  }
}

/**
 * A storage created with `migrate: 'manual'` found its schema behind this code's: run `migrate()`
 * (or start one storage with `migrate: 'auto'`) first.
 */
export class SchemaOutdatedError extends SyncError {
  override readonly name: string = 'SchemaOutdatedError';
  /** The schema that was checked. */
  readonly schema: string;
  /** The highest migration version recorded in the database. */
  readonly databaseVersion: number;
  /** The schema version this code needs (`SCHEMA_VERSION`). */
  readonly supportedVersion: number;

  constructor(schema: string, databaseVersion: number, supportedVersion: number) {
    super(
      `schema ${schema} is at version ${databaseVersion} but this code needs ${supportedVersion}; ` +
        "run migrate() or use migrate: 'auto'",
    );
    this.schema = schema;
    this.databaseVersion = databaseVersion;
    this.supportedVersion = supportedVersion;
  }
}
