/**
 * How figures print, and the rates every ratio is built from. Every ratio is of two medians measured
 * in this same run; rows/s is the run's rows over the median time.
 */
import { MODES, type SyncMode } from '../data/data-set.js';
import type { Summary } from '../harness/stats.js';
import type { BenchResults, RawFigures } from './results.js';

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  rate: (n: number) =>
    n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : fmt.int(n),
  ms: (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(n < 10 ? 1 : 0)} ms`),
  ratio: (n: number) => (n >= 10 ? `${n.toFixed(0)}×` : `${n.toFixed(2)}×`),
  mib: (n: number) => `${Math.round(n)} MiB`,
  signedMib: (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(Math.round(n))} MiB`,
  spread: (s: Summary) => `±${Math.round((s.spread * 100) / 2)}%`,
};

export const connectionsLabel = (connections: number) =>
  `${connections} connection${connections === 1 ? '' : 's'}`;

export const perSecond = (rows: number, ms: Summary) => rows / (ms.median / 1000);

/** The figures every ratio is built from, in rows per second. */
export function rates(r: BenchResults) {
  const raw = (f: RawFigures) => ({
    rows: perSecond(f.rows, f.ms.rows),
    rowsFeed: perSecond(f.rows, f.ms['rows+feed']),
  });
  const pg = 'skipped' in r.postgres ? null : r.postgres;
  return {
    sync: Object.fromEntries(
      MODES.map((m) => [m, perSecond(r.sqlite.sync[m].rows, r.sqlite.sync[m].ms)]),
    ) as Record<SyncMode, number>,
    raw: raw(r.sqlite.raw),
    plain: Object.fromEntries(MODES.map((m) => [m, perSecond(r.http[m].rows, r.http[m].plainMs)])) as Record<
      SyncMode,
      number
    >,
    client: Object.fromEntries(
      MODES.map((m) => [m, perSecond(r.http[m].rows, r.http[m].clientMs)]),
    ) as Record<SyncMode, number>,
    naive: {
      default: perSecond(r.sqlite.naive.default.rows, r.sqlite.naive.default.totalMs),
      wal: perSecond(r.sqlite.naive.wal.rows, r.sqlite.naive.wal.totalMs),
    },
    pg: pg && { sync: perSecond(pg.sync.rows, pg.sync.ms), raw: raw(pg.raw) },
  };
}

export type Rates = ReturnType<typeof rates>;
