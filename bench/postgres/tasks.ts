/**
 * The full sync into PostgreSQL, and beside it the raw limit: a tight loop of multi-row
 * `INSERT … SELECT FROM unnest(…) ON CONFLICT DO UPDATE` upserts of the same rows, as many per
 * statement as the engine commits at most (`batchRows`, 2,000 in `npm run bench`), into the same schema (a PostgresStorage initializes it). Every run gets a fresh schema,
 * dropped afterwards.
 */
import { PostgresStorage } from '@finsync/postgres';
import type { TransactionChange } from '@finsync/sync';
import pg from 'pg';
// Internal to the adapter, imported by path: the limit binds its arrays the way the adapter does.
import { arrayLiteral } from '../../packages/postgres/src/array-literal.js';
import { jsonArrayOf, type SqlValue } from '../../packages/postgres/src/rows.js';
import { sandboxOptions, type SyncMode } from '../data/data-set.js';
import { startSandboxProcess } from '../data/sandbox-process.js';
import {
  addedChanges,
  ENGINE_BATCH_SIZE,
  loadRecords,
  TRANSACTION_COLUMNS,
  timeApply,
  transactionParams,
  upsertTail,
} from '../data/same-rows.js';
import { runEngine, type EngineRunResult } from '../engine/run-engine.js';
import type { RawVariant } from '../sqlite/raw.js';

function schemaName(label: string): string {
  return `finsync_bench_${label}_${process.pid}_${Date.now().toString(36)}`;
}

async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

export interface PostgresSyncConfig {
  rows: number;
  mode: SyncMode;
  url: string;
}

export async function postgresSync(config: PostgresSyncConfig): Promise<EngineRunResult> {
  const sandbox = await startSandboxProcess(sandboxOptions(config.rows));
  const schema = schemaName('sync');
  const storage = new PostgresStorage({ connectionString: config.url, schema });
  try {
    return await runEngine({ storage, sandbox, mode: config.mode, fullOnly: true });
  } finally {
    await dropSchema(storage.pool, schema).catch(() => undefined);
    await storage.close();
    await sandbox.stop();
  }
}

export interface PostgresRawConfig {
  rows: number;
  reps: number;
  batchRows: number;
  url: string;
}

export interface PostgresRawResult {
  rows: number;
  ms: Record<RawVariant, number[]>;
}

const TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'boolean'];

/** One batch as column arrays, the shape `unnest` takes (what the storage binds too). */
interface Batch {
  columns: SqlValue[][];
  feed: SqlValue[][];
}

export async function postgresRaw(config: PostgresRawConfig): Promise<PostgresRawResult> {
  const sandbox = await startSandboxProcess(sandboxOptions(config.rows));
  let records;
  try {
    records = await loadRecords(sandbox.baseUrl);
  } finally {
    await sandbox.stop();
  }
  // Column arrays are built before the clock starts; serializing them is pg's work, inside the clock.
  const batches: Batch[] = [];
  for (let from = 0; from < records.length; from += config.batchRows) {
    const slice = records.slice(from, from + config.batchRows);
    const params = slice.map(transactionParams);
    batches.push({
      columns: TRANSACTION_COLUMNS.map((_, c) => params.map((p) => p[c] ?? null)),
      feed: [
        slice.map((r) => r.connectionId),
        slice.map((r) => r.accountId),
        slice.map((r) => r.key),
        slice.map((r) => JSON.stringify(r)),
      ],
    });
  }
  const rows = records.length;
  const changes = addedChanges(records);
  records = undefined;

  const pool = new pg.Pool({ connectionString: config.url, max: 1 });
  pool.on('error', () => undefined);
  const ms: Record<RawVariant, number[]> = { rows: [], 'rows+feed': [], apply: [] };
  try {
    for (let rep = 0; rep < config.reps; rep++) {
      // Rotate the order, so no variant always runs first.
      const order: RawVariant[] = ['rows', 'rows+feed', 'apply'];
      for (let i = 0; i < order.length; i++) {
        const variant = order[(i + rep) % order.length]!;
        ms[variant].push(
          variant === 'apply'
            ? await timeStorageApply(pool, changes)
            : await timeLoop(pool, batches, variant === 'rows+feed'),
        );
      }
    }
  } finally {
    await pool.end();
  }
  return { rows, ms };
}

async function timeLoop(pool: pg.Pool, batches: Batch[], withFeed: boolean): Promise<number> {
  const schema = schemaName('raw');
  // The storage's migrations create the schema: same tables, same indexes.
  const storage = new PostgresStorage({ pool, schema });
  await storage.init();
  await storage.close();
  const s = `"${schema}"`;
  const upsert =
    `INSERT INTO ${s}.transactions (${TRANSACTION_COLUMNS.join(', ')}) ` +
    `SELECT * FROM unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) ${upsertTail()}`;
  // The records as one JSON array, read back element by element, as the storage binds them
  // (packages/postgres/src/rows.ts, feedParams).
  const appendFeed =
    `INSERT INTO ${s}.feed (connection_id, account_id, entity, op, key, record, link_flags, at) ` +
    `SELECT c, a, 'transaction', 'added', k, r, 0, now() ` +
    `FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), json_array_elements($4::json)) AS u(c, a, k, r)`;
  const client = await pool.connect();
  try {
    const started = performance.now();
    for (const batch of batches) {
      // Arrays are written as literals inside the clock, as the storage writes them: the cheapest
      // way known here to bind them (pg's own encoder took ~0.4 s more per 100k rows).
      if (withFeed) {
        // The engine commits a batch's rows and feed entries together, so this does too.
        await client.query('BEGIN');
        await client.query(upsert, batch.columns.map(arrayLiteral));
        const [connections, accounts, keys, records] = batch.feed;
        await client.query(appendFeed, [
          arrayLiteral(connections!),
          arrayLiteral(accounts!),
          arrayLiteral(keys!),
          jsonArrayOf(records!),
        ]);
        await client.query('COMMIT');
      } else {
        await client.query(upsert, batch.columns.map(arrayLiteral));
      }
    }
    return performance.now() - started;
  } finally {
    client.release();
    await dropSchema(pool, schema);
  }
}

/** The adapter alone: `PostgresStorage.apply` of the same rows, 2,000 changes per call (see data/same-rows.ts). */
async function timeStorageApply(pool: pg.Pool, changes: readonly TransactionChange[]): Promise<number> {
  const schema = schemaName('apply');
  const storage = new PostgresStorage({ pool, schema });
  try {
    await storage.init();
    return await timeApply(storage, changes, ENGINE_BATCH_SIZE);
  } finally {
    await storage.close();
    await dropSchema(pool, schema);
  }
}
