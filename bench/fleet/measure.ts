/**
 * The fleet: many connections kept fresh by `SyncWorker` processes on one PostgreSQL, against a
 * provider with the real one's latency and per-key limit. Two experiments for each worker count:
 *
 * - capacity: every connection due at once; how many syncs a second the workers finish. At a
 *   6-hour interval, one worker keeps `rate × 21 600 s` connections fresh.
 * - freshness: the request rate of 50,000 connections per worker at a 6-hour interval, compressed
 *   in time — `50 000 / 21 600 s ≈ 2.3` syncs a second per worker, so `2.3 × interval` connections
 *   on an interval of seconds — and how stale connections get (time since the last success)
 *   against that interval.
 *
 * Connections are first synced once (their whole, short history), so both experiments measure
 * routine re-syncs, the steady state of a fleet.
 */
import { PostgresStorage } from '@finsync/postgres';
import pg from 'pg';
import { postgresCpuMs } from '../harness/proc-cpu.js';
import { spawnJsonLines, type JsonLineProcess } from './processes.js';
import {
  percentile,
  type CapacityResult,
  type FleetConfig,
  type FleetResults,
  type FreshnessResult,
} from './report.js';

const SIX_HOURS_S = 6 * 3600;
const TARGET_CONNECTIONS_PER_WORKER = 50_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ProviderCounters {
  served: number;
  limited: number;
  cpuMs: number;
}
interface WorkerCounters {
  ok: number;
  failed: number;
  errors: Record<string, number>;
  cpuMs: number;
  rssMiB: number;
}

export async function measureFleet(config: FleetConfig, log: (line: string) => void): Promise<FleetResults> {
  const today = new Date().toISOString().slice(0, 10);
  const schema = `finsync_fleet_${process.pid}_${Date.now().toString(36)}`;
  const pool = new pg.Pool({ connectionString: config.url, max: 2 });
  const table = `"${schema}".connections`;

  async function startWorkers(
    count: number,
    baseUrl: string,
    intervalMs: number,
  ): Promise<JsonLineProcess<WorkerCounters>[]> {
    return Promise.all(
      Array.from({ length: count }, () =>
        spawnJsonLines<WorkerCounters>('./worker.ts', {
          url: config.url,
          schema,
          baseUrl,
          concurrency: config.concurrency,
          intervalMs,
          pollIntervalMs: 250,
        }),
      ),
    );
  }

  /** Counters of everything at one moment, to subtract. */
  async function snapshot(
    provider: JsonLineProcess<ProviderCounters>,
    workers: JsonLineProcess<WorkerCounters>[],
  ) {
    const db = await pool.query<{ xact: string; tup: string }>(
      'SELECT xact_commit::text AS xact, (tup_inserted + tup_updated + tup_deleted)::text AS tup ' +
        'FROM pg_stat_database WHERE datname = current_database()',
    );
    return {
      at: Date.now(),
      served: provider.latest()?.served ?? 0,
      limited: provider.latest()?.limited ?? 0,
      providerCpuMs: provider.latest()?.cpuMs ?? 0,
      workerCpuMs: workers.map((w) => w.latest()?.cpuMs ?? 0),
      ok: workers.reduce((sum, w) => sum + (w.latest()?.ok ?? 0), 0),
      failed: workers.reduce((sum, w) => sum + (w.latest()?.failed ?? 0), 0),
      postgresCpuMs: postgresCpuMs(),
      xact: Number(db.rows[0]!.xact),
      tuples: Number(db.rows[0]!.tup),
    };
  }
  type Snapshot = Awaited<ReturnType<typeof snapshot>>;

  function rates(a: Snapshot, b: Snapshot) {
    const s = (b.at - a.at) / 1000;
    return {
      seconds: s,
      syncsPerS: (b.ok - a.ok) / s,
      failedPerS: (b.failed - a.failed) / s,
      requestsPerS: (b.served - b.limited - (a.served - a.limited)) / s,
      limitedPerS: (b.limited - a.limited) / s,
      workerCpu: b.workerCpuMs.map((ms, i) => (ms - (a.workerCpuMs[i] ?? 0)) / 1000 / s),
      providerCpu: (b.providerCpuMs - a.providerCpuMs) / 1000 / s,
      postgresCpu: (b.postgresCpuMs - a.postgresCpuMs) / 1000 / s,
      postgresCommitsPerS: (b.xact - a.xact) / s,
      postgresTuplesPerS: (b.tuples - a.tuples) / s,
    };
  }

  async function waitForCounters(processes: JsonLineProcess<unknown>[]): Promise<void> {
    while (processes.some((p) => p.latest() === undefined)) await sleep(100);
  }

  /** All connections due now: the first (whole-history) syncs, by every worker the run uses at most. */
  async function warmUp(baseUrl: string): Promise<number> {
    const started = Date.now();
    const workers = await startWorkers(Math.max(...config.workers), baseUrl, 24 * 3600_000);
    try {
      for (;;) {
        const { rows } = await pool.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM ${table} WHERE last_success_at IS NULL`,
        );
        if (Number(rows[0]!.n) === 0) break;
        if (Date.now() - started > 15 * 60_000)
          throw new Error(`warm-up: ${rows[0]!.n} connections still without a first sync after 15 minutes`);
        await sleep(1000);
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    return (Date.now() - started) / 1000;
  }

  async function capacity(workerCount: number, provider: JsonLineProcess<ProviderCounters>, baseUrl: string) {
    await pool.query(`UPDATE ${table} SET next_run_at = now()`);
    const workers = await startWorkers(workerCount, baseUrl, 24 * 3600_000);
    await waitForCounters([...workers, provider]);
    // The first seconds ramp up (pools connect, claims fill); measure after them.
    await sleep(3000);
    const first = await snapshot(provider, workers);
    let last = first;
    while ((last.at - first.at) / 1000 < config.seconds) {
      await sleep(1000);
      last = await snapshot(provider, workers);
      if (last.ok + last.failed >= config.connections) break;
    }
    const errors = workers.map((w) => w.latest()?.errors ?? {});
    const rssMiB = Math.max(...workers.map((w) => w.latest()?.rssMiB ?? 0));
    await Promise.all(workers.map((w) => w.stop()));
    const r = rates(first, last);
    const perWorker = r.syncsPerS / workerCount;
    const result: CapacityResult = {
      workers: workerCount,
      ...r,
      rssMiB,
      errors,
      connectionsPerWorkerAt6h: Math.floor(perWorker * SIX_HOURS_S),
      workerCpuMsPerSync: (r.workerCpu.reduce((a, b) => a + b, 0) * 1000) / r.syncsPerS,
      postgresCpuMsPerSync: (r.postgresCpu * 1000) / r.syncsPerS,
      providerCpuMsPerSync: (r.providerCpu * 1000) / r.syncsPerS,
    };
    return result;
  }

  async function freshness(
    workerCount: number,
    provider: JsonLineProcess<ProviderCounters>,
    baseUrl: string,
  ) {
    const intervalS = config.intervalS;
    const count = Math.min(
      config.connections,
      Math.round((TARGET_CONNECTIONS_PER_WORKER / SIX_HOURS_S) * intervalS * workerCount),
    );
    // Steady state by construction: each connection last succeeded one interval before its next run,
    // and the next runs are spread evenly over the coming interval.
    await pool.query(`UPDATE ${table} SET next_run_at = 'infinity'`);
    await pool.query(
      `WITH chosen AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM ${table} ORDER BY id LIMIT $1),
       planned AS (SELECT id, now() + make_interval(secs => $2::float8 * n / $1) AS next FROM chosen)
       UPDATE ${table} c SET next_run_at = p.next,
         last_success_at = to_char((p.next - make_interval(secs => $2::float8)) AT TIME ZONE 'UTC',
                                   'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       FROM planned p WHERE c.id = p.id`,
      [count, intervalS],
    );
    const workers = await startWorkers(workerCount, baseUrl, intervalS * 1000);
    await waitForCounters([...workers, provider]);
    const first = await snapshot(provider, workers);
    const staleness: number[] = [];
    let last = first;
    while ((last.at - first.at) / 1000 < intervalS * 2.5) {
      await sleep(1000);
      const { rows } = await pool.query<{ s: number }>(
        `SELECT EXTRACT(EPOCH FROM now() - last_success_at::timestamptz)::float8 AS s FROM ${table}
         WHERE next_run_at <> 'infinity'`,
      );
      for (const row of rows) staleness.push(row.s);
      last = await snapshot(provider, workers);
    }
    const errors = workers.map((w) => w.latest()?.errors ?? {});
    await Promise.all(workers.map((w) => w.stop()));
    staleness.sort((a, b) => a - b);
    const result: FreshnessResult = {
      workers: workerCount,
      connections: count,
      intervalS,
      ...rates(first, last),
      errors,
      stalenessP50: percentile(staleness, 0.5) / intervalS,
      stalenessP99: percentile(staleness, 0.99) / intervalS,
      stalenessMax: (staleness.at(-1) ?? 0) / intervalS,
    };
    return result;
  }

  const storage = new PostgresStorage({ connectionString: config.url, schema });
  await storage.init();
  await storage.close();
  await pool.query(
    `INSERT INTO ${table} (id, status, created_at, next_run_at)
     SELECT 'c' || lpad(g::text, 6, '0'), 'active', now()::text, now() FROM generate_series(1, $1) g`,
    [config.connections],
  );
  const provider = await spawnJsonLines<ProviderCounters>('./provider.ts', {
    latencyMs: config.latencyMs,
    perKeyPerMinute: 100,
    sandbox: { seed: 1, today, historyDays: 14 },
  });
  const baseUrl = String(provider.ready.baseUrl);
  const capacities: CapacityResult[] = [];
  const freshnesses: FreshnessResult[] = [];
  try {
    const warmS = await warmUp(baseUrl);
    log(`warm-up: ${config.connections} first syncs in ${warmS.toFixed(1)} s`);
    for (const w of config.workers) {
      capacities.push(await capacity(w, provider, baseUrl));
      log(`capacity, ${w} worker(s): ${capacities.at(-1)!.syncsPerS.toFixed(1)} syncs/s`);
    }
    for (const w of config.freshnessWorkers ?? config.workers) {
      freshnesses.push(await freshness(w, provider, baseUrl));
      const f = freshnesses.at(-1)!;
      log(`freshness, ${w} worker(s): p99 staleness ${f.stalenessP99.toFixed(2)}× the interval`);
    }
  } finally {
    await provider.stop();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
  }
  const { url: _url, ...shown } = config;
  return { config: shown, capacities, freshnesses };
}
