/**
 * The memory comparison, run from the parent: peak RSS of the first sync into SQLite at each data set
 * size, one child process per run, in both modes with default flags (the main size's runs count
 * already), plus the windowed mode with V8's old space capped, as a diagnostic.
 */
import type { SyncMode } from '../data/data-set.js';
import type { EngineRunResult } from '../engine/run-engine.js';
import type { Progress } from '../harness/progress.js';
import { runTask } from '../harness/spawn-task.js';
import { median, summarize } from '../harness/stats.js';
import type { MemoryConfig, MemoryFigures } from '../report/results.js';
import type { SqliteSyncResult } from './sync.js';

/** Old-space cap of the memory diagnostic; a windowed sync needs far less (see docs/benchmarks-history.md, "Memory"). */
export const CAPPED_OLD_SPACE_MIB = 64;

const CONFIGS: readonly MemoryConfig[] = ['whole', 'windowed', 'windowed-capped'];

export interface MemoryOptions {
  /** Data set sizes, smallest first. */
  sizes: readonly number[];
  /** Runs per size of the judged configurations (whole, windowed); the medians are judged. */
  runs: number;
  /** Runs per size of the capped diagnostic, which is not judged. */
  diagnosticRuns: number;
  /** The main size and its full-sync runs, which count towards `runs` rather than being repeated. */
  rows: number;
  syncRuns: Record<SyncMode, SqliteSyncResult[]>;
  progress: Progress;
}

export async function measureMemory(options: MemoryOptions): Promise<MemoryFigures> {
  const { sizes, rows, progress } = options;
  const memory: MemoryFigures = {
    rows: {},
    cappedOldSpaceMiB: CAPPED_OLD_SPACE_MIB,
    points: { whole: {}, windowed: {}, 'windowed-capped': {} },
  };
  const runsOf = (config: MemoryConfig) =>
    config === 'windowed-capped' ? options.diagnosticRuns : options.runs;
  for (const size of sizes) {
    const bySize: Record<MemoryConfig, EngineRunResult[]> = {
      whole: [],
      windowed: [],
      'windowed-capped': [],
    };
    if (size === rows) {
      bySize.whole.push(...options.syncRuns.whole);
      bySize.windowed.push(...options.syncRuns.windowed);
    }
    // The configurations alternate run by run, as the sync runs do, so that none always runs on a
    // quieter machine.
    const rounds = Math.max(...CONFIGS.map(runsOf));
    for (let round = 1; round <= rounds; round++) {
      for (const config of CONFIGS) {
        const wanted = runsOf(config);
        const done = bySize[config].length;
        if (done >= wanted || round <= done) continue;
        const mode: SyncMode = config === 'whole' ? 'whole' : 'windowed';
        const nodeFlags =
          config === 'windowed-capped' ? [`--max-old-space-size=${CAPPED_OLD_SPACE_MIB}`] : [];
        progress(
          `memory: full sync of ${size.toLocaleString('en-US')} rows (${config}), run ${done + 1}/${wanted}`,
        );
        bySize[config].push(
          await runTask('sqlite-sync', { rows: size, mode, fullOnly: true }, { nodeFlags }),
        );
      }
    }
    memory.rows[size] = bySize.whole[0]!.full.rows;
    for (const config of CONFIGS) {
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
  return memory;
}
