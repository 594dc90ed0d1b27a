export { SqliteStorage } from './storage.js';
export type { SqliteStorageOptions, SqliteFileOptions, SqliteHandleOptions } from './storage.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, readSchemaVersion } from './migrations.js';
export type { Migration, MigrationResult } from './migrations.js';
export { DatabaseBusyError, SchemaTooNewError, SchemaOutdatedError } from './errors.js';
