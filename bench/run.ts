/**
 * `npm run bench`: the sync pipeline measured against its physical limits and a naive importer.
 * Prints one table and the targets as PASS/MISS lines, and writes every sample to a JSON file.
 *
 *   node --conditions=@finsync/source --import tsx bench/run.ts [flags]
 *
 *   --rows N          transactions in the main data set (default 100000; e.g. 1000000)
 *   --runs N          repetitions of every measurement (default 3); figures are medians
 *   --http-reps N     alternating passes of the client and plain-fetch measurement (default 5), and
 *                     pulls of each in the side-by-side (peers) measurement
 *   --memory-rows L   comma-separated sizes for the memory comparison (default 100000,300000 and --rows)
 *   --memory-runs N   runs per size and mode of the judged memory comparison (default --runs, at least 3):
 *                     a peak RSS spreads by several MiB run to run, against a 10 % growth target
 *   --naive-budget-ms time box of the naive importer's row-by-row inserts (default 5000)
 *   --no-postgres     skip PostgreSQL even when a server answers
 *   --patch-seconds N seconds per point of the reference-server PATCH measurement (default 5)
 *   --no-patch        skip the reference-server PATCH measurement
 *   --fleet-workers L worker counts of the short fleet run (default 1,2; `npm run bench:fleet` runs 1-4)
 *   --no-fleet        skip the fleet run (it needs PostgreSQL)
 *   --out FILE        JSON output (default bench/results/latest.json)
 *
 * Each measurement runs in its own child process (harness/child.ts) with its own sandbox server
 * process: peak RSS is per configuration, and no run inherits another's heap. The folders hold the
 * parts (docs/benchmarks.md, "Files"); this file only says which runs, in what order.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { HISTORY_DAYS, MODES, type SyncMode } from './data/data-set.js';
import { ENGINE_BATCH_SIZE } from './data/same-rows.js';
import { flag, hasFlag, stringFlag } from './harness/flags.js';
import { loadAverage, machineInfo } from './harness/machine.js';
import { createProgress } from './harness/progress.js';
import { runTask } from './harness/spawn-task.js';
import { measureFleetInBench } from './fleet/in-bench.js';
import { measurePeers } from './http/peers.js';
import { measureReferencePatch } from './patch/measure.js';
import { measurePostgres } from './postgres/measure.js';
import { postgresUrl, probePostgres } from './postgres/probe.js';
import {
  httpFigures,
  naiveFigures,
  peersFigures,
  resyncFigures,
  summarizeRaw,
  syncFigures,
  validationFigures,
} from './report/figures.js';
import type { BenchResults } from './report/results.js';
import { renderTable } from './report/table.js';
import { renderBudget } from './report/budget.js';
import { evaluateTargets, renderTargets } from './report/targets.js';
import { measureMemory } from './sqlite/memory.js';
import type { SqliteSyncResult } from './sqlite/sync.js';

const started = performance.now();
const progress = createProgress(started);
const rows = flag('rows', 100_000);
const runs = flag('runs', 3);
const memoryRuns = flag('memory-runs', Math.max(runs, 3));
for (const [name, value] of [
  ['runs', runs],
  ['memory-runs', memoryRuns],
] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a whole number of at least 1`);
}
const httpReps = flag('http-reps', 5);
const naiveBudgetMs = flag('naive-budget-ms', 5_000);
const patchSeconds = flag('patch-seconds', 5);
// The raw loops commit as many rows at a time as the engine does at most (its default batchSize, and
// a whole-history page): smaller commits rewrite the same index pages more often and slowed the loop.
const batchRows = ENGINE_BATCH_SIZE;
const memorySizes = (stringFlag('memory-rows')?.split(',').map(Number) ?? [100_000, 300_000, rows])
  .filter((n, i, all) => Number.isFinite(n) && n > 0 && all.indexOf(n) === i)
  .sort((a, b) => a - b);
const out = resolve(stringFlag('out') ?? new URL('./results/latest.json', import.meta.url).pathname);

// PostgreSQL: used when a server answers, skipped with the reason otherwise.
const pgUrl = hasFlag('no-postgres') ? null : postgresUrl();
const pgProbe = pgUrl === null ? { reason: '--no-postgres' } : await probePostgres(pgUrl);
const machine = machineInfo('version' in pgProbe ? pgProbe.version : null);
progress(
  `${rows.toLocaleString('en-US')} rows, ${runs} runs, memory sizes ${memorySizes.join(', ')} (${memoryRuns} runs each); ` +
    `${machine.cpus} cores, Node ${machine.node}, SQLite ${machine.sqlite}, PostgreSQL ${machine.postgres ?? `skipped (${'reason' in pgProbe ? pgProbe.reason : ''})`}`,
);

// The measurements, in this order (each is a child process or two; see harness/tasks.ts).

// Full sync, no-op re-sync and incremental day into SQLite; the modes alternate run by run.
const syncRuns: Record<SyncMode, SqliteSyncResult[]> = { whole: [], windowed: [] };
for (let run = 1; run <= runs; run++) {
  for (const mode of MODES) {
    progress(`full sync → SQLite (${mode}), run ${run}/${runs}`);
    syncRuns[mode].push(await runTask('sqlite-sync', { rows, mode, fullOnly: false }));
  }
}

// The raw SQLite limit.
progress(`raw SQLite upserts, ${runs} runs per variant`);
const raw = await runTask('sqlite-raw', { rows, reps: runs, batchRows });

// Plain fetch + JSON.parse and the provider client, same server, same URLs.
progress(`raw HTTP and provider client, ${httpReps} passes each per mode`);
const http = await runTask('http', { rows, reps: httpReps });

// The same client pull and a plain one side by side, each in its own process (its own peak RSS).
const peers = await measurePeers({ rows, reps: httpReps, progress });

// The naive importer.
progress(`naive importer, ${runs} runs per variant (inserts time-boxed at ${naiveBudgetMs} ms)`);
const naive = await runTask('naive', { rows, reps: runs, budgetMs: naiveBudgetMs });

const postgres = await measurePostgres({ url: pgUrl, probe: pgProbe, rows, runs, batchRows, progress });

const memory = await measureMemory({
  sizes: memorySizes,
  runs: memoryRuns,
  diagnosticRuns: runs,
  rows,
  syncRuns,
  progress,
});

// The fleet: SyncWorker processes on PostgreSQL against a provider with latency and a per-key limit.
const fleet = await measureFleetInBench({
  skip: hasFlag('no-fleet')
    ? '--no-fleet'
    : pgUrl === null || !('version' in pgProbe)
      ? 'no PostgreSQL'
      : null,
  url: pgUrl ?? '',
  workers: (stringFlag('fleet-workers') ?? '1,2').split(',').map(Number),
  svg: resolve(dirname(out), 'fleet.svg'),
  progress,
});

// Another workload plugs in here: its measurement (a parent-side function like measurePostgres,
// which runs tasks of harness/tasks.ts or its own processes), its figures under one more key of
// BenchResults (report/results.ts), a section in report/table.ts (SECTIONS) and its targets in
// report/targets.ts (TARGETS).

// The reference-server PATCH, after the rest: autocannon keeps both cores busy.
const referencePatch = await measureReferencePatch({
  skip: hasFlag('no-patch') ? '--no-patch' : null,
  seconds: patchSeconds,
  progress,
});

// The results, in the JSON's shape (report/results.ts).
const sync = {
  whole: syncFigures(syncRuns.whole, syncRuns.whole[0]!.databaseMiB),
  windowed: syncFigures(syncRuns.windowed, syncRuns.windowed[0]!.databaseMiB),
};
if (sync.whole.rows !== sync.windowed.rows || sync.whole.rows !== raw.rows) {
  progress(
    `warning: row counts differ (whole ${sync.whole.rows}, windowed ${sync.windowed.rows}, raw ${raw.rows})`,
  );
}
const results: BenchResults = {
  startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
  durationMs: 0,
  machine,
  config: {
    rows,
    accounts: 10,
    historyDays: HISTORY_DAYS,
    runs,
    memoryRuns,
    httpReps,
    batchRows,
    naiveBudgetMs,
    memorySizes,
    postgresUrl: pgUrl,
  },
  sqlite: {
    sync,
    noop: {
      whole: resyncFigures(syncRuns.whole, 'noop'),
      windowed: resyncFigures(syncRuns.windowed, 'noop'),
    },
    day: { whole: resyncFigures(syncRuns.whole, 'day'), windowed: resyncFigures(syncRuns.windowed, 'day') },
    raw: { rows: raw.rows, ms: summarizeRaw(raw.ms) },
    naive: { default: naiveFigures(naive.default), wal: naiveFigures(naive.wal) },
  },
  http: { whole: httpFigures(http.whole), windowed: httpFigures(http.windowed) },
  validation: validationFigures(http.validation),
  peers: peersFigures(peers),
  postgres,
  memory,
  fleet,
  referencePatch,
  targets: [],
};
results.targets = evaluateTargets(results);
results.durationMs = performance.now() - started;
machine.loadAverageAtEnd = loadAverage();

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(renderTable(results));
console.log();
console.log(renderTargets(results.targets));
console.log();
console.log(renderBudget(results));
console.log();
console.log(
  `${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, SQLite ${machine.sqlite}` +
    `${machine.postgres ? `, PostgreSQL ${machine.postgres}` : ''}; commit ${machine.commit ?? '?'}` +
    `${machine.dirtyPackages ? ' + uncommitted changes in packages/' : ''}; load average ` +
    `${machine.loadAverageAtStart[0]} → ${machine.loadAverageAtEnd[0]}; took ${(results.durationMs / 1000).toFixed(0)} s; ` +
    `JSON: ${out}`,
);
