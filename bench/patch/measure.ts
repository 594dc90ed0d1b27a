/**
 * The PATCH measurement as part of `npm run bench`: run last, after the sync measurements, because
 * autocannon keeps both cores busy. A failure is recorded with its reason and judged a MISS, so a
 * broken reference server neither throws away the rest of a run nor passes for one not measured.
 */
import type { Progress } from '../harness/progress.js';
import type { NotMeasured, ReferencePatchFigures } from '../report/results.js';
import { PATCH_CONNECTIONS, benchPatch } from './bench-patch.js';

export interface ReferencePatchOptions {
  /** Why it is not measured (e.g. `--no-patch`), or null to measure. */
  skip: string | null;
  /** Measured seconds per connection count and target. */
  seconds: number;
  progress: Progress;
}

export async function measureReferencePatch(
  options: ReferencePatchOptions,
): Promise<ReferencePatchFigures | NotMeasured> {
  const { skip, seconds, progress } = options;
  if (skip !== null) {
    progress(`reference-server PATCH skipped: ${skip}`);
    return { skipped: skip };
  }
  progress(
    `reference-server PATCH vs a bare handler, ${seconds} s per point at ${PATCH_CONNECTIONS.join(', ')} connections`,
  );
  try {
    return { seconds, points: await benchPatch({ seconds, concurrency: PATCH_CONNECTIONS }) };
  } catch (error) {
    const reason = `failed: ${error instanceof Error ? error.message : String(error)}`;
    progress(`reference-server PATCH ${reason}`);
    return { skipped: reason, failed: true };
  }
}
