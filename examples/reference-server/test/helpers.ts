import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { vi } from 'vitest';
import type { SandboxOptions } from '@finsync/provider/sandbox';
import {
  freshSchemaName,
  makeTempDir,
  postgresSuiteName,
  removeTempDir,
  testPostgresUrl,
} from '@finsync/test-utils';
import {
  SANDBOX,
  startReferenceServer,
  type DatabaseConfig,
  type RunningServer,
  type StartOptions,
} from '../src/server.js';
import type { SqliteAppStore } from '../src/store/sqlite.js';
import type { AppStore, UnitOfWork } from '../src/store/types.js';
import { createApiKey, createUser } from '../src/users.js';

const POSTGRES_URL = testPostgresUrl();

export interface Backend {
  kind: DatabaseConfig['kind'];
  /** The describe name; says why when the backend is skipped. */
  title: string;
  skip: boolean;
}

/** Every suite runs once per backend; PostgreSQL only when FINSYNC_TEST_POSTGRES_URL is set. */
export const BACKENDS: Backend[] = [
  { kind: 'sqlite', title: 'on SQLite', skip: false },
  {
    kind: 'postgres',
    title: postgresSuiteName('on PostgreSQL'),
    skip: !POSTGRES_URL,
  },
];

export interface TestServer {
  server: RunningServer;
  dataDir: string;
  keys: { alice: string; aliceReadOnly: string; bob: string };
  users: { alice: string; bob: string };
  request(
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }>;
  /**
   * Everything the database holds, by place: the SQLite files (the WAL checkpointed first), or every
   * row of every table of both PostgreSQL schemas cast to text (bytea as hex), like a dump.
   */
  dump(): Promise<Map<string, Buffer>>;
  /** Places `dump()` must include: the main file, or the tables that hold the keys. */
  dumpMustInclude: string[];
  close(): Promise<void>;
}

export async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function dumpPostgres(schemas: string[]): Promise<Map<string, Buffer>> {
  return withClient(async (client) => {
    const tables = await client.query<{ table_schema: string; table_name: string }>(
      `SELECT table_schema, table_name FROM information_schema.tables
       WHERE table_schema = ANY($1::text[]) AND table_type = 'BASE TABLE' ORDER BY 1, 2`,
      [schemas],
    );
    const dump = new Map<string, Buffer>();
    for (const { table_schema, table_name } of tables.rows) {
      // Names from the catalog, quoted: the test's own random schemas and the migrations' tables.
      const { rows } = await client.query<{ row: string }>(
        `SELECT t::text AS row FROM "${table_schema}"."${table_name}" t`,
      );
      dump.set(`${table_schema}.${table_name}`, Buffer.from(rows.map((r) => r.row).join('\n'), 'utf8'));
    }
    return dump;
  });
}

export interface TestDatabase {
  database: DatabaseConfig;
  dataDir: string;
  /** The PostgreSQL schemas (engine, app); fresh and random for each test database. */
  schemas: [string, string];
  /** Removes the data directory and drops the schemas. */
  cleanup(): Promise<void>;
}

/** A fresh data directory, and for PostgreSQL fresh random schemas (engine + app). */
export function testDatabase(backend: Backend): TestDatabase {
  const dataDir = makeTempDir('ref');
  const schema = freshSchemaName('rs_test');
  const appSchema = `${schema}_app`;
  return {
    database:
      backend.kind === 'postgres'
        ? { kind: 'postgres', url: POSTGRES_URL!, schema, appSchema }
        : { kind: 'sqlite' },
    dataDir,
    schemas: [schema, appSchema],
    async cleanup() {
      try {
        if (backend.kind === 'postgres') {
          await withClient(async (client) => {
            await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
            await client.query(`DROP SCHEMA IF EXISTS "${appSchema}" CASCADE`);
          });
        }
      } finally {
        removeTempDir(dataDir);
      }
    },
  };
}

/**
 * What the property tests drive: a server on its own sandbox (no scheduler) with one user, her API key
 * and the sandbox's provider key, that a step may restart on the same data.
 */
export interface SandboxUser {
  /** The server now running (a new one after each `restart`). */
  readonly server: RunningServer;
  readonly userId: string;
  /** Parsed JSON of a request made with the user's key; a body goes as JSON. */
  api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Every row of a paginated transactions list (`path` may carry a query). */
  listAll<T>(path: string): Promise<T[]>;
  /** Stops the server and starts it again on the same data, at the day the sandbox had reached. */
  restart(): Promise<void>;
  /** Stops the server and removes its data. */
  close(): Promise<void>;
}

export async function startSandboxUser(backend: Backend, sandbox: SandboxOptions): Promise<SandboxUser> {
  const db = testDatabase(backend);
  const open = (today?: string) =>
    startReferenceServer({
      dataDir: db.dataDir,
      database: db.database,
      port: 0,
      scheduler: false,
      sandbox: today ? { ...sandbox, today } : sandbox,
    });
  let server: RunningServer;
  try {
    server = await open();
  } catch (error) {
    await db.cleanup();
    throw error;
  }
  const user = await createUser(server.runtime.store, 'alice');
  const key = (await createApiKey(server.runtime.store, user.id, { name: 't' })).key;
  await server.runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
  const api = async <T>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'X-Api-Key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  return {
    get server() {
      return server;
    },
    userId: user.id,
    api,
    async listAll<T>(path: string) {
      const rows: T[] = [];
      for (let page = 1; ; page += 1) {
        const { body } = await api<{ transactions: T[]; pagination: { page: number; total_pages: number } }>(
          'GET',
          `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`,
        );
        // As the service's Pagy, a page past the end is the last page again: it says so in
        // `pagination.page`, and a list of exactly 100 rows has no shorter page to stop at.
        if (body.pagination.page < page) return rows;
        rows.push(...body.transactions);
        if (page >= body.pagination.total_pages) return rows;
      }
    },
    async restart() {
      const today = server.runtime.sandbox!.today;
      await server.close();
      server = await open(today);
    },
    async close() {
      try {
        await server.close().catch(() => undefined);
      } finally {
        await db.cleanup();
      }
    },
  };
}

export async function startTestServer(
  backend: Backend,
  sandbox: SandboxOptions = {},
  options: Partial<StartOptions> = {},
): Promise<TestServer> {
  const { database, dataDir, schemas, cleanup } = testDatabase(backend);
  const [schema, appSchema] = schemas;
  let server: RunningServer;
  try {
    server = await startReferenceServer({
      dataDir,
      database,
      port: 0,
      sandbox: { seed: 21, historyDays: 45, transactionsPerDay: 3, ...sandbox },
      syncIntervalMs: 24 * 3_600_000,
      ...options,
    });
  } catch (error) {
    await cleanup();
    throw error;
  }
  const { store } = server.runtime;
  const alice = await createUser(store, 'alice');
  const bob = await createUser(store, 'bob');
  const keys = {
    alice: (await createApiKey(store, alice.id, { name: 'test' })).key,
    aliceReadOnly: (await createApiKey(store, alice.id, { name: 'ro', scope: 'read' })).key,
    bob: (await createApiKey(store, bob.id, { name: 'test' })).key,
  };
  const sandboxKey = sandbox.apiKey ?? 'sandbox-key';
  await server.runtime.setProviderKey(alice.id, sandboxKey, SANDBOX);
  await server.runtime.setProviderKey(bob.id, sandboxKey, SANDBOX);
  await server.runtime.syncUser(alice.id);
  await server.runtime.syncUser(bob.id);
  return {
    server,
    dataDir,
    keys,
    users: { alice: alice.id, bob: bob.id },
    async request(key, method, path, body) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(key ? { 'X-Api-Key': key } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async dump() {
      if (backend.kind === 'postgres') return dumpPostgres([schema, appSchema]);
      // Push the WAL into the main file too, so both are checked with everything written.
      (store as SqliteAppStore).database.pragma('wal_checkpoint(FULL)');
      const files = readdirSync(dataDir).filter((f) => f.startsWith('finsync.db'));
      return new Map(files.map((file) => [file, readFileSync(join(dataDir, file))]));
    },
    dumpMustInclude:
      backend.kind === 'postgres'
        ? [`${appSchema}.app_api_keys`, `${appSchema}.app_provider_credentials`, `${schema}.connections`]
        : ['finsync.db'],
    async close() {
      try {
        await server.close({ graceMs: 0 });
      } finally {
        await cleanup();
      }
    },
  };
}

/**
 * Opens a unit of work and keeps it open (after `first`, e.g. locking a row) until `release()` is
 * called: what a long feed batch does to the writes that come meanwhile. Resolves once it is open.
 */
export async function holdUnitOfWork(
  store: AppStore,
  first?: (unit: UnitOfWork) => unknown,
): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let opened!: () => void;
  const isOpen = new Promise<void>((resolve) => (opened = resolve));
  const holder = store.atomically(async (unit) => {
    await first?.(unit);
    opened();
    await held;
  });
  await isOpen;
  return {
    release: async () => {
      release();
      await holder;
    },
  };
}

/** The SQL statements `database` prepared while `work` ran (a store prepares each once and keeps it). */
export async function statementsPreparedDuring(
  database: SqliteAppStore['database'],
  work: () => unknown,
): Promise<string[]> {
  const prepared: string[] = [];
  const prepare = vi.spyOn(database, 'prepare').mockImplementation(function (
    this: typeof database,
    sql: string,
  ) {
    prepared.push(sql);
    return Database.prototype.prepare.call(this, sql);
  } as typeof database.prepare);
  try {
    await work();
  } finally {
    prepare.mockRestore();
  }
  return prepared;
}

/** SQLite's query plan for `sql` with `params`, its steps joined by ` | `. */
export function queryPlan(database: SqliteAppStore['database'], sql: string, params: unknown[]): string {
  return (database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
    .map((row) => row.detail)
    .join(' | ');
}
