/**
 * The fleet as part of `npm run bench`: a short run — capacity at 1 and 2 workers by default,
 * freshness at one worker on a 40 s compressed interval — so the whole bench stays within minutes;
 * `npm run bench:fleet` runs the full one. A failure is recorded as a skip with its reason, so the
 * rest of the run is kept.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Progress } from '../harness/progress.js';
import { measureFleet } from './measure.js';
import { renderFleetSvg } from './plot.js';
import type { FleetResults } from './report.js';
import type { NotMeasured } from '../report/results.js';

export interface FleetInBenchOptions {
  /** Why it is not measured (`--no-fleet`, no PostgreSQL), or null to measure. */
  skip: string | null;
  url: string;
  workers: number[];
  /** Where the plot goes. */
  svg: string;
  progress: Progress;
}

export async function measureFleetInBench(options: FleetInBenchOptions): Promise<FleetResults | NotMeasured> {
  const { skip, progress } = options;
  if (skip !== null) {
    progress(`fleet skipped: ${skip}`);
    return { skipped: skip };
  }
  progress(`fleet: ${options.workers.join(', ')} worker(s), capacity then freshness`);
  try {
    const results = await measureFleet(
      {
        url: options.url,
        workers: options.workers,
        freshnessWorkers: [1],
        connections: 800,
        intervalS: 40,
        latencyMs: 150,
        seconds: 20,
        concurrency: 48,
      },
      (line) => progress(`fleet: ${line}`),
    );
    mkdirSync(dirname(options.svg), { recursive: true });
    writeFileSync(options.svg, renderFleetSvg(results));
    return results;
  } catch (error) {
    const reason = `failed: ${error instanceof Error ? error.message : String(error)}`;
    progress(`fleet ${reason}`);
    return { skipped: reason, failed: true };
  }
}
