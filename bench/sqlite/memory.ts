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

/** Old-space cap of the memory diagnostic; a windowed sync needs far less (see docs/benchmarks.md). */
export const CAPPED_OLD_SPACE_MIB = 64;

const CONFIGS: readonly MemoryConfig[] = ['whole', 'windowed', 'windowed-capped'];

export interface MemoryOptions {
  /** Data set sizes, smallest first. */
  sizes: readonly number[];
  runs: number;
  /** The main size and its full-sync runs, reused rather than measured again. */
  rows: number;
  syncRuns: Record<SyncMode, SqliteSyncResult[]>;
  progress: Progress;
}

export async function measureMemory(options: MemoryOptions): Promise<MemoryFigures> {
  const { sizes, runs, rows, progress } = options;
  const memory: MemoryFigures = {
    rows: {},
    cappedOldSpaceMiB: CAPPED_OLD_SPACE_MIB,
    points: { whole: {}, windowed: {}, 'windowed-capped': {} },
  };
  for (const size of sizes) {
    const bySize: Record<MemoryConfig, EngineRunResult[]> = {
      whole: [],
      windowed: [],
      'windowed-capped': [],
    };
    if (size === rows) Object.assign(bySize, options.syncRuns);
    for (let run = 1; run <= runs; run++) {
      for (const config of CONFIGS) {
        if (size === rows && config !== 'windowed-capped') continue;
        const mode: SyncMode = config === 'whole' ? 'whole' : 'windowed';
        const nodeFlags =
          config === 'windowed-capped' ? [`--max-old-space-size=${CAPPED_OLD_SPACE_MIB}`] : [];
        progress(`memory: full sync of ${size.toLocaleString('en-US')} rows (${config}), run ${run}/${runs}`);
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
