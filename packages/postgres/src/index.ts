export { PostgresStorage } from './storage.js';
export type { PostgresStorageOptions } from './storage.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, readSchemaVersion, assertSchemaCurrent } from './migrations.js';
export type { Migration, MigrationResult, MigrateOptions } from './migrations.js';
export type { Database } from './db.js';
export { DEFAULT_SCHEMA } from './schema.js';
export { SchemaTooNewError, SchemaOutdatedError } from './errors.js';
