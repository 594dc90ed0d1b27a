import { MODES } from '../data/data-set.js';
import type { Summary } from '../harness/stats.js';
import { fmt } from './format.js';
import type { BenchResults } from './results.js';

/**
 * Where a full sync's time goes, from this run's medians: the engine runs its parts one after the
 * other (fetch a window, then write it), so its time is about the provider client's pass over the
 * same URLs, plus the storage adapter's `apply` of the same rows, plus the rest: the engine's own
 * code (keying, diffing, window reads, bookkeeping), the extra GC of holding a window in several
 * forms, and time spent waiting on the server. The rest is what remains; noise can make it small or
 * even negative.
 */
export function renderBudget(r: BenchResults): string {
  const lines = ["Where the full sync's time goes (sequential parts, medians of this run):"];
  const part = (label: string, sync: Summary, client: Summary, apply: Summary) => {
    const rest = sync.median - client.median - apply.median;
    const share = (ms: number) => `${Math.round((ms / sync.median) * 100)}%`;
    lines.push(
      `  ${label}: ${fmt.ms(sync.median)} = provider client ${fmt.ms(client.median)} (${share(client.median)})` +
        ` + storage.apply ${fmt.ms(apply.median)} (${share(apply.median)})` +
        ` + the rest (engine code, GC, waiting on the server) ${fmt.ms(rest)} (${share(rest)})`,
    );
  };
  for (const m of MODES) {
    part(`SQLite, ${m}`, r.sqlite.sync[m].ms, r.http[m].clientMs, r.sqlite.raw.ms.apply);
  }
  if (!('skipped' in r.postgres)) {
    part('PostgreSQL, whole', r.postgres.sync.ms, r.http.whole.clientMs, r.postgres.raw.ms.apply);
  }
  return lines.join('\n');
}
