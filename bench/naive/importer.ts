/**
 * The naive importer: fetch every account's whole history into one array (plain fetch +
 * JSON.parse), then insert row by row, each INSERT its own autocommit transaction, into the same
 * schema. Timed end to end: fetch plus inserts.
 *
 * Two variants, because what an autocommit costs depends entirely on the journal settings:
 * - `default`: the file opened the way a script would (`new Database(file)`, better-sqlite3's
 *   defaults: rollback journal, synchronous = FULL), so every row is a commit with fsyncs;
 * - `wal`: the storage's own settings (WAL, synchronous = NORMAL), where a commit costs no fsync.
 *
 * An fsync-bound autocommit loop runs at a steady rate, and 100k rows of it take minutes, so the
 * inserts stop after `budgetMs` and the rest is extrapolated from the rate so far (the result says
 * how many rows were really inserted).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStorage, migrate } from '@finsync/sqlite';
import { sandboxOptions } from '../data/data-set.js';
import { fetchJson } from '../data/fetch-json.js';
import { startSandboxProcess } from '../data/sandbox-process.js';
import { TRANSACTION_COLUMNS, upsertTail } from '../data/same-rows.js';
import { tempDir } from '../harness/temp-dir.js';

export type NaiveVariant = 'default' | 'wal';

export interface NaiveConfig {
  rows: number;
  reps: number;
  budgetMs: number;
}

export interface NaiveSample {
  rows: number;
  fetchMs: number;
  /** Rows really inserted before the budget ran out, and the time they took. */
  inserted: number;
  insertMs: number;
  /** fetchMs + the time all rows would take at the measured insert rate. */
  totalMs: number;
}

export type NaiveResult = Record<NaiveVariant, NaiveSample[]>;

interface WireTransaction {
  id: string | number | null;
  amount: number | string;
  currency: string | null;
  date: string;
  merchant: string | null;
  description: string | null;
  isPending: boolean;
}

async function fetchEverything(baseUrl: string): Promise<{ accountId: string; row: WireTransaction }[]> {
  const all: { accountId: string; row: WireTransaction }[] = [];
  const { accounts } = await fetchJson<{ accounts: { id: number | string }[] }>(`${baseUrl}/accounts`);
  for (const account of accounts) {
    const accountId = String(account.id);
    const url = `${baseUrl}/accounts/${encodeURIComponent(accountId)}/transactions?include_pending=true`;
    const { transactions } = await fetchJson<{ transactions: WireTransaction[] }>(url);
    for (const row of transactions) all.push({ accountId, row });
  }
  return all;
}

async function importOnce(baseUrl: string, variant: NaiveVariant, budgetMs: number): Promise<NaiveSample> {
  const tmp = tempDir();
  const filename = join(tmp.dir, 'naive.db');
  // Same schema either way: the storage's migrations.
  let storage: SqliteStorage | undefined;
  let db: Database.Database;
  if (variant === 'wal') {
    storage = new SqliteStorage({ filename });
    await storage.init();
    db = storage.database;
  } else {
    db = new Database(filename);
    migrate(db);
  }
  try {
    const insert = db.prepare(
      `INSERT INTO transactions (${TRANSACTION_COLUMNS.join(', ')}) ` +
        `VALUES (${TRANSACTION_COLUMNS.map(() => '?').join(', ')}) ${upsertTail()}`,
    );
    const started = performance.now();
    const all = await fetchEverything(baseUrl);
    const fetched = performance.now();
    let inserted = 0;
    for (const { accountId, row } of all) {
      insert.run(
        'bench',
        accountId,
        row.id === null || row.id === '' ? `pending:${inserted}` : `id:${row.id}`,
        row.id === null || row.id === '' ? null : String(row.id),
        String(row.amount),
        row.currency,
        row.date,
        row.merchant,
        row.description,
        row.isPending ? 1 : 0,
      );
      inserted += 1;
      if (performance.now() - fetched > budgetMs) break;
    }
    const insertMs = performance.now() - fetched;
    const fetchMs = fetched - started;
    return {
      rows: all.length,
      fetchMs,
      inserted,
      insertMs,
      totalMs: fetchMs + (insertMs * all.length) / inserted,
    };
  } finally {
    if (storage) await storage.close();
    else db.close();
    tmp.remove();
  }
}

export async function naive(config: NaiveConfig): Promise<NaiveResult> {
  const sandbox = await startSandboxProcess(sandboxOptions(config.rows));
  try {
    const result: NaiveResult = { default: [], wal: [] };
    for (let rep = 0; rep < config.reps; rep++) {
      for (const variant of ['default', 'wal'] as const) {
        result[variant].push(await importOnce(sandbox.baseUrl, variant, config.budgetMs));
      }
    }
    return result;
  } finally {
    await sandbox.stop();
  }
}
