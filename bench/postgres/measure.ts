/**
 * The PostgreSQL measurements, run from the parent: the engine's full sync (whole history) and the
 * raw unnest loops, each in its own child process. Skipped, with the reason, when no server answers.
 */
import type { EngineRunResult } from '../engine/run-engine.js';
import type { Progress } from '../harness/progress.js';
import { runTask } from '../harness/spawn-task.js';
import { summarizeRaw, syncFigures } from '../report/figures.js';
import type { PostgresFigures } from '../report/results.js';
import type { PostgresProbe } from './probe.js';

export interface PostgresOptions {
  /** null when PostgreSQL was switched off (`--no-postgres`). */
  url: string | null;
  probe: PostgresProbe;
  rows: number;
  runs: number;
  batchRows: number;
  progress: Progress;
}

export async function measurePostgres(
  options: PostgresOptions,
): Promise<PostgresFigures | { skipped: string }> {
  const { url, probe, rows, runs, batchRows, progress } = options;
  if (url === null || !('version' in probe)) {
    const skipped = { skipped: 'reason' in probe ? probe.reason : 'no server' };
    progress(`PostgreSQL skipped: ${skipped.skipped}`);
    return skipped;
  }
  const syncRuns: EngineRunResult[] = [];
  for (let run = 1; run <= runs; run++) {
    progress(`full sync → PostgreSQL (whole), run ${run}/${runs}`);
    syncRuns.push(await runTask('postgres-sync', { rows, mode: 'whole', url }));
  }
  progress(`raw PostgreSQL unnest upserts, ${runs} runs per variant`);
  const raw = await runTask('postgres-raw', { rows, reps: runs, batchRows, url });
  return {
    version: probe.version,
    sync: syncFigures(syncRuns),
    raw: { rows: raw.rows, ms: summarizeRaw(raw.ms) },
  };
}
