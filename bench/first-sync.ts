/**
 * A first sync into SQLite, end to end: the sandbox provider over loopback HTTP (in its own process)
 * → @finsync/provider → @finsync/sync → @finsync/sqlite. Prints rows/s and peak RSS, then a no-op
 * re-sync and an incremental day, as counts (requests, rows written) and times.
 *
 *   node --conditions=@finsync/source --import tsx bench/first-sync.ts --rows 100000
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderClient } from '@finsync/provider';
import { PostgresStorage } from '@finsync/postgres';
import { SqliteStorage } from '@finsync/sqlite';
import { SyncEngine, type Storage } from '@finsync/sync';
import { flag, heavyAccounts, peakRssMiB, startSandboxProcess } from './lib.js';

const rows = flag('rows', 100_000);
const historyDays = flag('days', 5 * 365);
const today = '2026-06-30';
// --windowed: give the engine a startDate, so the first sync walks 90-day windows instead of asking
// for each account's whole history in one response.
const windowed = process.argv.includes('--windowed');
// --postgres: write into PostgreSQL (FINSYNC_TEST_POSTGRES_URL or DATABASE_URL) instead of SQLite.
const postgresUrl = process.argv.includes('--postgres')
  ? (process.env.FINSYNC_TEST_POSTGRES_URL ??
    process.env.DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/test')
  : undefined;
const schema = `finsync_bench_${process.pid}`;
const { accounts } = heavyAccounts(rows, historyDays);
const sandbox = await startSandboxProcess({ seed: 1, today, historyDays, accounts });
const dir = mkdtempSync(join(tmpdir(), 'finsync-bench-'));
const filename = join(dir, 'bench.db');

let requests = 0;
const countingFetch: typeof fetch = (input, init) => {
  requests += 1;
  return fetch(input, init);
};

try {
  let clockToday = today;
  const storage: Storage = postgresUrl
    ? new PostgresStorage({ connectionString: postgresUrl, schema })
    : new SqliteStorage({ filename });
  const engine = new SyncEngine({
    storage,
    clock: { now: () => new Date(`${clockToday}T12:00:00Z`), today: () => clockToday },
    ...(windowed
      ? {
          startDate: new Date(Date.parse(`${today}T00:00:00Z`) - historyDays * 86_400_000)
            .toISOString()
            .slice(0, 10),
        }
      : {}),
  });
  await engine.addConnection({
    id: 'bench',
    client: new ProviderClient({
      apiKey: 'sandbox-key',
      baseUrl: sandbox.baseUrl,
      rateLimit: false,
      fetch: countingFetch,
    }),
  });

  const started = performance.now();
  const first = await engine.sync('bench');
  const firstMs = performance.now() - started;
  const stored = await storage.countTransactions('bench');
  if (!first.ok) throw new Error(`first sync failed: ${first.issues.map((i) => i.message).join('; ')}`);
  const firstRequests = requests;

  requests = 0;
  const seqBefore = await storage.lastSeq();
  const noopStarted = performance.now();
  const noop = await engine.sync('bench');
  const noopMs = performance.now() - noopStarted;
  const noopWritten = (await storage.lastSeq()) - seqBefore;
  const noopRequests = requests;

  clockToday = await sandbox.advance(1);
  requests = 0;
  const dayStarted = performance.now();
  const day = await engine.sync('bench');
  const dayMs = performance.now() - dayStarted;
  const dayWritten = (await storage.lastSeq()) - seqBefore - noopWritten;

  if (postgresUrl) {
    await (storage as PostgresStorage).pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
  await storage.close();
  const result = {
    rows: stored,
    storage: postgresUrl ? 'postgres' : 'sqlite',
    mode: windowed ? 'windowed (startDate)' : 'whole history per request',
    accounts: accounts.length,
    firstSync: {
      ms: Math.round(firstMs),
      rowsPerSecond: Math.round(stored / (firstMs / 1000)),
      requests: firstRequests,
    },
    peakRssMiB: Math.round(peakRssMiB()),
    databaseMiB: postgresUrl ? null : Math.round(statSync(filename).size / 2 ** 20),
    noopResync: {
      ok: noop.ok,
      ms: Math.round(noopMs),
      requests: noopRequests,
      feedEntriesWritten: noopWritten,
    },
    incrementalDay: { ok: day.ok, ms: Math.round(dayMs), requests, feedEntriesWritten: dayWritten },
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
