/**
 * The raw SQLite limit: a tight loop upserting the engine's own rows into the storage's own
 * schema (a SqliteStorage on a temp file, initialized, so the same tables, indexes and pragmas)
 * with better-sqlite3 prepared statements, as many rows per transaction as the engine commits at most
 * (`ENGINE_BATCH_SIZE`, 2,000). No HTTP, no engine.
 *
 * Two variants: `rows` (the transactions table only, what the targets call the raw limit) and
 * `rows+feed` (plus one feed row per transaction, which is what the engine writes for a first sync).
 * Everything bound is computed before the clock starts, the feed's JSON included: the loop measures
 * SQLite and the binding layer only.
 *
 * A third, `apply`, is not a limit but a decomposition: the storage adapter alone
 * (`SqliteStorage.apply` of the same rows as `added` changes, 2,000 per call like the engine), so
 * the full sync's time can be split into client, storage and the engine's own work.
 */
import { join } from 'node:path';
import { SqliteStorage } from '@finsync/sqlite';
import type { TransactionChange } from '@finsync/sync';
import { sandboxOptions } from '../data/data-set.js';
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
import { tempDir } from '../harness/temp-dir.js';

export type RawVariant = 'rows' | 'rows+feed' | 'apply';

export interface SqliteRawConfig {
  rows: number;
  reps: number;
  batchRows: number;
}

export interface SqliteRawResult {
  rows: number;
  /** Milliseconds per repetition, per variant. */
  ms: Record<RawVariant, number[]>;
}

type SqlParams = (string | number | null)[];

export async function sqliteRaw(config: SqliteRawConfig): Promise<SqliteRawResult> {
  // The rows come from the same server the engine reads; the server is stopped before timing, so
  // the loop has both cores to itself.
  const sandbox = await startSandboxProcess(sandboxOptions(config.rows));
  let records;
  try {
    records = await loadRecords(sandbox.baseUrl);
  } finally {
    await sandbox.stop();
  }
  const rows: SqlParams[] = records.map((r) =>
    transactionParams(r).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)),
  );
  // The engine stores the record as JSON in the feed; link flags 0 (a first sync replaces nothing).
  const feed: SqlParams[] = records.map((r) => [
    r.connectionId,
    r.accountId,
    'transaction',
    'added',
    r.key,
    JSON.stringify(r),
    null,
    null,
    0,
    '', // `at`, set per transaction like the storage does
  ]);
  const changes = addedChanges(records);
  records = undefined;

  const ms: Record<RawVariant, number[]> = { rows: [], 'rows+feed': [], apply: [] };
  for (let rep = 0; rep < config.reps; rep++) {
    // Rotate the order, so no variant always runs on a warmer (or more fragmented) disk.
    const order: RawVariant[] = ['rows', 'rows+feed', 'apply'];
    for (let i = 0; i < order.length; i++) {
      const variant = order[(i + rep) % order.length]!;
      ms[variant].push(
        variant === 'apply'
          ? await timeStorageApply(changes)
          : await timeLoop(rows, variant === 'rows+feed' ? feed : null, config.batchRows),
      );
    }
  }
  return { rows: rows.length, ms };
}

async function timeLoop(rows: SqlParams[], feed: SqlParams[] | null, batchRows: number): Promise<number> {
  const tmp = tempDir();
  const storage = new SqliteStorage({ filename: join(tmp.dir, 'raw.db') });
  try {
    // init() migrates: the same schema, indexes and pragmas (WAL, synchronous = NORMAL) as the engine's.
    await storage.init();
    const db = storage.database;
    const upsert = db.prepare<[SqlParams]>(
      `INSERT INTO transactions (${TRANSACTION_COLUMNS.join(', ')}) ` +
        `VALUES (${TRANSACTION_COLUMNS.map(() => '?').join(', ')}) ${upsertTail()}`,
    );
    const appendFeed = db.prepare<[SqlParams]>(
      'INSERT INTO feed (connection_id, account_id, entity, op, key, record, replaces, replaced_by, link_flags, at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const batch = db.transaction((from: number, to: number) => {
      const at = new Date().toISOString();
      for (let i = from; i < to; i++) {
        upsert.run(rows[i]!);
        if (feed) {
          const entry = feed[i]!;
          entry[9] = at;
          appendFeed.run(entry);
        }
      }
    });
    const started = performance.now();
    for (let from = 0; from < rows.length; from += batchRows)
      batch(from, Math.min(rows.length, from + batchRows));
    return performance.now() - started;
  } finally {
    await storage.close();
    tmp.remove();
  }
}

async function timeStorageApply(changes: readonly TransactionChange[]): Promise<number> {
  const tmp = tempDir();
  const storage = new SqliteStorage({ filename: join(tmp.dir, 'apply.db') });
  try {
    await storage.init();
    return await timeApply(storage, changes, ENGINE_BATCH_SIZE);
  } finally {
    await storage.close();
    tmp.remove();
  }
}
