/**
 * Chooses the database: SQLite in the data directory (the default), or PostgreSQL when a URL is
 * given (`DATABASE_URL`). Either way it returns the engine's storage and the app store, sharing one
 * connection (SQLite) or one pool (PostgreSQL).
 */
import { join } from 'node:path';
import { PostgresStorage } from '@finsync/postgres';
import { SqliteStorage } from '@finsync/sqlite';
import type { Storage } from '@finsync/sync';
import { PostgresAppStore } from './postgres.js';
import { SqliteAppStore } from './sqlite.js';
import type { AppStore } from './types.js';

export type DatabaseConfig =
  | { kind: 'sqlite' }
  | {
      kind: 'postgres';
      /** e.g. `postgres://user@host:5432/db` */
      url: string;
      /** The engine's schema; default `finsync`. */
      schema?: string;
      /** The app's tables; default `<schema>_app` (`finsync_app`). Must differ from `schema`. */
      appSchema?: string;
      /** Connections the one pool opens at most, shared by the API and the syncs; default 10 (node-postgres's). */
      poolSize?: number;
    };

export interface OpenedStores {
  store: AppStore;
  /** The engine's storage. */
  storage: Storage;
  /** Where the data is, for logs: a file or `postgres <schema>, <appSchema>` (no credentials). */
  description: string;
}

export function openStores(database: DatabaseConfig, dataDir: string): OpenedStores {
  if (database.kind === 'sqlite') {
    const file = join(dataDir, 'finsync.db');
    const store = new SqliteAppStore(file);
    return {
      store,
      storage: store.guard(new SqliteStorage({ database: store.database })),
      description: file,
    };
  }
  const schema = database.schema ?? 'finsync';
  const appSchema = database.appSchema ?? `${schema}_app`;
  // Each schema records its own migrations in its own ledger table: they cannot share one.
  if (appSchema === schema) throw new TypeError(`the app schema must differ from the engine's (${schema})`);
  const store = new PostgresAppStore({
    connectionString: database.url,
    schema: appSchema,
    ...(database.poolSize === undefined ? {} : { poolSize: database.poolSize }),
  });
  return {
    store,
    storage: new PostgresStorage({ pool: store.pool, schema }),
    description: `postgres, schemas ${schema} (engine) and ${appSchema} (app)`,
  };
}

/** `DATABASE_URL` set: PostgreSQL (`FINSYNC_PG_SCHEMA`, `FINSYNC_PG_APP_SCHEMA`); else SQLite. */
export function databaseFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  const url = env.DATABASE_URL?.trim();
  if (!url) return { kind: 'sqlite' };
  return {
    kind: 'postgres',
    url,
    ...(env.FINSYNC_PG_SCHEMA ? { schema: env.FINSYNC_PG_SCHEMA } : {}),
    ...(env.FINSYNC_PG_APP_SCHEMA ? { appSchema: env.FINSYNC_PG_APP_SCHEMA } : {}),
  };
}
