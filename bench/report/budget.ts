import { MODES } from '../data/data-set.js';
import type { Summary } from '../harness/stats.js';
import { fmt } from './format.js';
import type { BenchResults } from './results.js';

/**
 * Where a full sync's time goes, from this run's medians: the provider client's pass over the same
 * URLs, the storage adapter's `apply` of the same rows, and the rest: the engine's own code (keying,
 * diffing, window reads, bookkeeping), the extra GC of holding a window in several forms, and time
 * spent waiting on the server. The engine reads the next answer while it writes a page, so the
 * parts can overlap: when the client and `apply` add up to more than the sync, the line says by how
 * much they overlapped instead of printing a negative rest (the engine's own code is then hidden in
 * that overlap too). Noise moves the rest as well.
 */
export function renderBudget(r: BenchResults): string {
  const lines = ["Where the full sync's time goes (medians of this run):"];
  const part = (label: string, sync: Summary, client: Summary, apply: Summary) => {
    const rest = sync.median - client.median - apply.median;
    const share = (ms: number) => `${Math.round((ms / sync.median) * 100)}%`;
    const parts =
      `  ${label}: ${fmt.ms(sync.median)} = provider client ${fmt.ms(client.median)} (${share(client.median)})` +
      ` + storage.apply ${fmt.ms(apply.median)} (${share(apply.median)})`;
    lines.push(
      rest >= 0
        ? `${parts} + the rest (engine code, GC, waiting on the server) ${fmt.ms(rest)} (${share(rest)})`
        : `${parts} − ${fmt.ms(-rest)} (${share(-rest)}) that the two overlapped (the next answer is read while a page is written)`,
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
