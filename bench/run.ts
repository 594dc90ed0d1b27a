/**
 * `npm run bench`: the sync pipeline measured against its physical limits and a naive importer
 * (issue 6, items 1–5; item 6 is a hook in reference-patch.ts). Prints one table and the targets as
 * PASS/MISS lines, and writes every sample to a JSON file.
 *
 *   node --conditions=@finsync/source --import tsx bench/run.ts [flags]
 *
 *   --rows N          transactions in the main data set (default 100000; e.g. 1000000)
 *   --runs N          repetitions of every measurement (default 3); figures are medians
 *   --http-reps N     alternating passes of the client and plain-fetch measurement (default 5)
 *   --memory-rows L   comma-separated sizes for the memory comparison (default 100000,300000 and --rows)
 *   --naive-budget-ms time box of the naive importer's row-by-row inserts (default 5000)
 *   --no-postgres     skip PostgreSQL even when a server answers
 *   --out FILE        JSON output (default bench/results/latest.json)
 *
 * Each measurement runs in its own child process (child.ts) with its own sandbox server process:
 * peak RSS is per configuration, and no run inherits another's heap.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { EngineRunResult } from './engine-run.js';
import {
  HISTORY_DAYS,
  MODES,
  flag,
  hasFlag,
  median,
  stringFlag,
  summarize,
  type Summary,
  type SyncMode,
} from './lib.js';
import { postgresUrl, probePostgres } from './postgres-probe.js';
import { measureReferencePatch } from './reference-patch.js';
import { renderTable } from './report.js';
import { evaluateTargets, renderBudget, renderTargets } from './targets.js';
import type { BenchResults, MachineInfo, MemoryConfig, ResyncFigures, SyncFigures } from './results.js';
import { runTask } from './spawn-task.js';
import type { RawVariant } from './sqlite-raw.js';
import type { SqliteSyncResult } from './sqlite-sync.js';

const started = performance.now();
const rows = flag('rows', 100_000);
const runs = flag('runs', 3);
const httpReps = flag('http-reps', 5);
const naiveBudgetMs = flag('naive-budget-ms', 5_000);
const batchRows = 1_000;
/** Old-space cap of the memory diagnostic; a windowed sync needs far less (see docs/benchmarks.md). */
const CAPPED_OLD_SPACE_MIB = 64;
const memorySizes = (stringFlag('memory-rows')?.split(',').map(Number) ?? [100_000, 300_000, rows])
  .filter((n, i, all) => Number.isFinite(n) && n > 0 && all.indexOf(n) === i)
  .sort((a, b) => a - b);
const out = resolve(stringFlag('out') ?? new URL('./results/latest.json', import.meta.url).pathname);

function progress(message: string): void {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
}

function machineInfo(postgres: string | null): MachineInfo {
  const require = createRequire(import.meta.url);
  const db = new Database(':memory:');
  const sqlite = db.prepare<[], string>('SELECT sqlite_version()').pluck().get() ?? 'unknown';
  db.close();
  let commit: string | null = null;
  let dirtyPackages = false;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    dirtyPackages =
      execFileSync('git', ['status', '--porcelain', '--', 'packages'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    // Not a git checkout: fine.
  }
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    sqlite,
    betterSqlite3: (require('better-sqlite3/package.json') as { version: string }).version,
    postgres,
    commit,
    dirtyPackages,
    loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

function syncFigures(results: readonly EngineRunResult[], databaseMiB?: number): SyncFigures {
  const first = results[0]!.full;
  return {
    rows: first.rows,
    ms: summarize(results.map((r) => r.full.ms)),
    peakRssMiB: summarize(results.map((r) => r.full.peakRssMiB)),
    baselineRssMiB: summarize(results.map((r) => r.full.baselineRssMiB)),
    requests: first.requests,
    ...(databaseMiB === undefined ? {} : { databaseMiB }),
  };
}

function summarizeRaw(ms: Record<RawVariant, number[]>): Record<RawVariant, Summary> {
  return { rows: summarize(ms.rows), 'rows+feed': summarize(ms['rows+feed']), apply: summarize(ms.apply) };
}

function resyncFigures(results: readonly SqliteSyncResult[], step: 'noop' | 'day'): ResyncFigures {
  const steps = results.map((r) => r[step]!);
  const first = steps[0]!;
  return {
    ms: summarize(steps.map((s) => s.ms)),
    requests: steps.map((s) => s.requests),
    feedEntriesWritten: steps.map((s) => s.feedEntriesWritten),
    fetched: first.fetched,
    added: first.added,
    modified: first.modified,
    removed: first.removed,
    ...(step === 'noop' ? { bookkeepingRows: results.map((r) => r.noopBookkeepingRows ?? 0) } : {}),
  };
}

// PostgreSQL: used when a server answers, skipped with the reason otherwise.
const pgUrl = hasFlag('no-postgres') ? null : postgresUrl();
const pgProbe = pgUrl === null ? { reason: '--no-postgres' } : await probePostgres(pgUrl);
const machine = machineInfo('version' in pgProbe ? pgProbe.version : null);
progress(
  `${rows.toLocaleString('en-US')} rows, ${runs} runs, memory sizes ${memorySizes.join(', ')}; ` +
    `${machine.cpus} cores, Node ${machine.node}, SQLite ${machine.sqlite}, PostgreSQL ${machine.postgres ?? `skipped (${'reason' in pgProbe ? pgProbe.reason : ''})`}`,
);

// 1–3. Full sync, no-op re-sync and incremental day into SQLite; the modes alternate run by run.
const syncRuns: Record<SyncMode, SqliteSyncResult[]> = { whole: [], windowed: [] };
for (let run = 1; run <= runs; run++) {
  for (const mode of MODES) {
    progress(`full sync → SQLite (${mode}), run ${run}/${runs}`);
    syncRuns[mode].push(await runTask('sqlite-sync', { rows, mode, fullOnly: false }));
  }
}

// 1a. The raw SQLite limit.
progress(`raw SQLite upserts, ${runs} runs per variant`);
const raw = await runTask('sqlite-raw', { rows, reps: runs, batchRows });

// 1b and 5. Plain fetch + JSON.parse and the provider client, same server, same URLs.
progress(`raw HTTP and provider client, ${httpReps} passes each per mode`);
const http = await runTask('http', { rows, reps: httpReps });

// 1c. The naive importer.
progress(`naive importer, ${runs} runs per variant (inserts time-boxed at ${naiveBudgetMs} ms)`);
const naive = await runTask('naive', { rows, reps: runs, budgetMs: naiveBudgetMs });

// 4. PostgreSQL.
let postgres: BenchResults['postgres'];
if (pgUrl === null || !('version' in pgProbe)) {
  postgres = { skipped: 'reason' in pgProbe ? pgProbe.reason : 'no server' };
  progress(`PostgreSQL skipped: ${postgres.skipped}`);
} else {
  const pgRuns: EngineRunResult[] = [];
  for (let run = 1; run <= runs; run++) {
    progress(`full sync → PostgreSQL (whole), run ${run}/${runs}`);
    pgRuns.push(await runTask('postgres-sync', { rows, mode: 'whole', url: pgUrl }));
  }
  progress(`raw PostgreSQL unnest upserts, ${runs} runs per variant`);
  const pgRaw = await runTask('postgres-raw', { rows, reps: runs, batchRows, url: pgUrl });
  postgres = {
    version: pgProbe.version,
    sync: syncFigures(pgRuns),
    raw: {
      rows: pgRaw.rows,
      ms: summarizeRaw(pgRaw.ms),
    },
  };
}

// Memory: peak RSS of the first sync at each size, in both modes with default flags (the main size's
// runs count already), plus the windowed mode with V8's old space capped, as a diagnostic.
const memory: BenchResults['memory'] = {
  rows: {},
  cappedOldSpaceMiB: CAPPED_OLD_SPACE_MIB,
  points: { whole: {}, windowed: {}, 'windowed-capped': {} },
};
const memoryConfigs: MemoryConfig[] = ['whole', 'windowed', 'windowed-capped'];
for (const size of memorySizes) {
  const bySize: Record<MemoryConfig, EngineRunResult[]> = { whole: [], windowed: [], 'windowed-capped': [] };
  if (size === rows) Object.assign(bySize, syncRuns);
  for (let run = 1; run <= runs; run++) {
    for (const config of memoryConfigs) {
      if (size === rows && config !== 'windowed-capped') continue;
      const mode: SyncMode = config === 'whole' ? 'whole' : 'windowed';
      const nodeFlags = config === 'windowed-capped' ? [`--max-old-space-size=${CAPPED_OLD_SPACE_MIB}`] : [];
      progress(`memory: full sync of ${size.toLocaleString('en-US')} rows (${config}), run ${run}/${runs}`);
      bySize[config].push(await runTask('sqlite-sync', { rows: size, mode, fullOnly: true }, { nodeFlags }));
    }
  }
  memory.rows[size] = bySize.whole[0]!.full.rows;
  for (const config of memoryConfigs) {
    const full = bySize[config].map((r) => r.full);
    const retained = full.map((f) => f.memory.retainedHeapMiB);
    memory.points[config][size] = {
      peakRssMiB: summarize(full.map((f) => f.peakRssMiB)),
      peakHeapUsedMiB: median(full.map((f) => f.memory.peakHeapUsedMiB)),
      retainedHeapMiB: retained.includes(null) ? null : median(retained as number[]),
      ms: median(full.map((f) => f.ms)),
    };
  }
}

// 6. Reference-server PATCH: a hook, not measured in this run.
const referencePatch = await measureReferencePatch();

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
    raw: {
      rows: raw.rows,
      ms: summarizeRaw(raw.ms),
    },
    naive: {
      default: naiveFigures(naive.default),
      wal: naiveFigures(naive.wal),
    },
  },
  http: Object.fromEntries(
    MODES.map((m) => [
      m,
      {
        pages: http[m].pages,
        rows: http[m].rows,
        plainMs: summarize(http[m].plainMs),
        clientMs: summarize(http[m].clientMs),
      },
    ]),
  ) as BenchResults['http'],
  validation: {
    rows: http.validation.rows,
    jsonParseMs: summarize(http.validation.jsonParseMs),
    schemaParseMs: summarize(http.validation.schemaParseMs),
  },
  postgres,
  memory,
  referencePatch,
  targets: [],
};
results.targets = evaluateTargets(results);
results.durationMs = performance.now() - started;
machine.loadAverageAtEnd = os.loadavg().map((n) => Math.round(n * 100) / 100);

function naiveFigures(samples: typeof naive.default) {
  return {
    rows: samples[0]!.rows,
    totalMs: summarize(samples.map((s) => s.totalMs)),
    fetchMs: summarize(samples.map((s) => s.fetchMs)),
    inserted: samples.map((s) => s.inserted),
  };
}

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
