/**
 * Turns a run's figures into the one printed table (the targets are in targets.ts). Every ratio is
 * of two medians measured in this same run; rows/s is the run's rows over the median time.
 */
import { MODES, type SyncMode } from '../data/data-set.js';
import type { Summary } from '../harness/stats.js';
import type { BenchResults, MemoryConfig, RawFigures } from './results.js';

const MODE_LABEL: Record<SyncMode, string> = {
  whole: 'whole history (default)',
  windowed: 'windowed (startDate)',
};

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  rate: (n: number) =>
    n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : fmt.int(n),
  ms: (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(n < 10 ? 1 : 0)} ms`),
  ratio: (n: number) => (n >= 10 ? `${n.toFixed(0)}×` : `${n.toFixed(2)}×`),
  mib: (n: number) => `${Math.round(n)} MiB`,
  spread: (s: Summary) => `±${Math.round((s.spread * 100) / 2)}%`,
};

const perSecond = (rows: number, ms: Summary) => rows / (ms.median / 1000);

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

type Row = [string, string, string, string, string, string, string, string];
const HEADER: Row = [
  'measurement',
  'rows',
  'runs',
  'median',
  'spread',
  'rows/s',
  'peak RSS',
  'compared in this run',
];

export function renderTable(r: BenchResults): string {
  const x = rates(r);
  const runs = (s: Summary) => String(s.samples.length);
  const rows: (Row | string)[] = [];
  const { sqlite } = r;

  rows.push(
    `SQLite — ${fmt.int(sqlite.sync.whole.rows)} transactions, 10 accounts, ${r.config.historyDays / 365} years`,
  );
  for (const m of MODES) {
    const s = sqlite.sync[m];
    rows.push([
      `full sync → SQLite, ${MODE_LABEL[m]}`,
      fmt.int(s.rows),
      runs(s.ms),
      fmt.ms(s.ms.median),
      fmt.spread(s.ms),
      fmt.rate(x.sync[m]),
      fmt.mib(s.peakRssMiB.median),
      [
        `${fmt.ratio(x.sync[m] / x.raw.rows)} raw rows`,
        `${fmt.ratio(x.sync[m] / x.raw.rowsFeed)} raw rows+feed`,
        `${fmt.ratio(x.sync[m] / x.plain[m])} raw HTTP`,
        `${fmt.ratio(x.sync[m] / x.naive.default)} naive`,
        `${fmt.ratio(x.sync[m] / x.naive.wal)} naive-WAL`,
      ].join(' · '),
    ]);
  }
  for (const [variant, label] of [
    ['rows', 'raw SQLite upsert, rows only (1,000/tx)'],
    ['rows+feed', 'raw SQLite upsert, rows + feed (1,000/tx)'],
  ] as const) {
    const ms = sqlite.raw.ms[variant];
    rows.push([
      label,
      fmt.int(sqlite.raw.rows),
      runs(ms),
      fmt.ms(ms.median),
      fmt.spread(ms),
      fmt.rate(perSecond(sqlite.raw.rows, ms)),
      '',
      'the limit: prepared statements, no HTTP, no engine',
    ]);
  }
  {
    const ms = sqlite.raw.ms.apply;
    rows.push([
      'SqliteStorage.apply alone, same rows (2,000/apply)',
      fmt.int(sqlite.raw.rows),
      runs(ms),
      fmt.ms(ms.median),
      fmt.spread(ms),
      fmt.rate(perSecond(sqlite.raw.rows, ms)),
      '',
      `not a limit: the storage adapter's share of the sync; ${fmt.ratio(perSecond(sqlite.raw.rows, ms) / x.raw.rowsFeed)} raw rows+feed`,
    ]);
  }
  for (const m of MODES) {
    const h = r.http[m];
    rows.push([
      `raw HTTP, fetch + JSON.parse, ${m} URLs`,
      fmt.int(h.rows),
      runs(h.plainMs),
      fmt.ms(h.plainMs.median),
      fmt.spread(h.plainMs),
      fmt.rate(x.plain[m]),
      '',
      `${h.pages} responses, same server, same URLs as the engine`,
    ]);
  }
  for (const [variant, label] of [
    ['default', 'naive importer, default pragmas'],
    ['wal', 'naive importer, WAL + synchronous=NORMAL'],
  ] as const) {
    const n = sqlite.naive[variant];
    const done = Math.min(...n.inserted);
    const note = done < n.rows ? `inserts extrapolated from ${fmt.int(done)}+ rows` : 'every row inserted';
    rows.push([
      label,
      fmt.int(n.rows),
      runs(n.totalMs),
      fmt.ms(n.totalMs.median),
      fmt.spread(n.totalMs),
      fmt.rate(x.naive[variant]),
      '',
      `fetch ${fmt.ms(n.fetchMs.median)}; autocommit per row; ${note}`,
    ]);
  }
  for (const m of MODES) {
    const n = sqlite.noop[m];
    const q = n.requests[0]!;
    rows.push([
      `no-op re-sync, ${m}`,
      `${Math.max(...n.feedEntriesWritten)} written`,
      runs(n.ms),
      fmt.ms(n.ms.median),
      fmt.spread(n.ms),
      '',
      '',
      `requests: ${q.accounts} accounts + ${q.transactions} transactions (${q.transactionsPerAccount.max}/account) + ${q.balance} balance + ${q.holdings} holdings; ${fmt.int(n.fetched)} rows re-read; ${Math.max(...(n.bookkeepingRows ?? [0]))} bookkeeping rows`,
    ]);
  }
  for (const m of MODES) {
    const d = sqlite.day[m];
    const q = d.requests[0]!;
    rows.push([
      `incremental day, ${m}`,
      `${fmt.int(d.fetched)} read`,
      runs(d.ms),
      fmt.ms(d.ms.median),
      fmt.spread(d.ms),
      fmt.rate(perSecond(d.fetched, d.ms)),
      '',
      `${median0(d.feedEntriesWritten)} feed entries (+${d.added} ~${d.modified} −${d.removed}); ${q.total} requests (${q.transactions} transactions)`,
    ]);
  }

  if ('skipped' in r.postgres) rows.push(`PostgreSQL — skipped: ${r.postgres.skipped}`);
  else {
    const pg = r.postgres;
    const pgx = x.pg!;
    rows.push(`PostgreSQL ${pg.version}`);
    rows.push([
      `full sync → PostgreSQL, ${MODE_LABEL.whole}`,
      fmt.int(pg.sync.rows),
      runs(pg.sync.ms),
      fmt.ms(pg.sync.ms.median),
      fmt.spread(pg.sync.ms),
      fmt.rate(pgx.sync),
      fmt.mib(pg.sync.peakRssMiB.median),
      `${fmt.ratio(pgx.sync / pgx.raw.rows)} raw rows · ${fmt.ratio(pgx.sync / pgx.raw.rowsFeed)} raw rows+feed · ${fmt.ratio(pgx.sync / x.sync.whole)} the SQLite sync`,
    ]);
    for (const [variant, label] of [
      ['rows', 'raw unnest upsert, rows only (1,000/stmt)'],
      ['rows+feed', 'raw unnest upsert, rows + feed (1,000/tx)'],
      ['apply', 'PostgresStorage.apply alone, same rows (2,000/apply)'],
    ] as const) {
      const ms = pg.raw.ms[variant];
      rows.push([
        label,
        fmt.int(pg.raw.rows),
        runs(ms),
        fmt.ms(ms.median),
        fmt.spread(ms),
        fmt.rate(perSecond(pg.raw.rows, ms)),
        '',
        variant === 'apply'
          ? `not a limit: the adapter's share; ${fmt.ratio(perSecond(pg.raw.rows, ms) / pgx.raw.rowsFeed)} raw rows+feed`
          : 'the limit: one INSERT … SELECT FROM unnest(…) per batch',
      ]);
    }
  }

  rows.push('Provider client (throttle off) vs plain fetch + JSON.parse, same server, same URLs');
  for (const m of MODES) {
    const h = r.http[m];
    const pagesPerSecond = h.pages / (h.clientMs.median / 1000);
    const plainPages = h.pages / (h.plainMs.median / 1000);
    rows.push([
      `ProviderClient.listTransactions().pages(), ${m}`,
      fmt.int(h.rows),
      runs(h.clientMs),
      fmt.ms(h.clientMs.median),
      fmt.spread(h.clientMs),
      fmt.rate(x.client[m]),
      '',
      `${pagesPerSecond.toFixed(1)} pages/s vs ${plainPages.toFixed(1)} plain: ${fmt.ratio(x.client[m] / x.plain[m])}`,
    ]);
  }
  for (const [label, ms] of [
    ['JSON.parse of the whole-history bodies, in memory', r.validation.jsonParseMs],
    ["the client's zod schema on the same parsed bodies", r.validation.schemaParseMs],
  ] as const) {
    rows.push([
      label,
      fmt.int(r.validation.rows),
      runs(ms),
      fmt.ms(ms.median),
      fmt.spread(ms),
      fmt.rate(perSecond(r.validation.rows, ms)),
      '',
      `${((ms.median * 1000) / r.validation.rows).toFixed(2)} µs/row`,
    ]);
  }

  rows.push('Memory: peak RSS of a full sync into SQLite, one process per run (sizes separated by /)');
  const sizes = r.config.memorySizes;
  const memoryLabels: Record<MemoryConfig, string> = {
    whole: `peak RSS, ${MODE_LABEL.whole}`,
    windowed: `peak RSS, ${MODE_LABEL.windowed}`,
    'windowed-capped': `peak RSS, windowed, old space ≤ ${r.memory.cappedOldSpaceMiB} MiB`,
  };
  for (const config of ['whole', 'windowed', 'windowed-capped'] as const) {
    const points = sizes.map((n) => r.memory.points[config][n]!);
    const peaks = points.map((p) => p.peakRssMiB);
    const growth = peaks.at(-1)!.median / peaks[0]!.median;
    const list = (values: (number | null)[]) =>
      values.map((v) => (v === null ? '?' : Math.round(v))).join('/');
    rows.push([
      memoryLabels[config],
      sizes.map((n) => fmt.int(r.memory.rows[n] ?? n)).join(' / '),
      String(peaks[0]!.samples.length),
      points.map((p) => fmt.ms(p.ms)).join(' / '),
      peaks.map(fmt.spread).join(' / '),
      '',
      peaks.map((p) => Math.round(p.median)).join(' / '),
      `${fmt.ratio(growth)} RSS for ${fmt.ratio(sizes.at(-1)! / sizes[0]!)} history; heap used at peak ` +
        `${list(points.map((p) => p.peakHeapUsedMiB))} MiB, after GC ${list(points.map((p) => p.retainedHeapMiB))} MiB`,
    ]);
  }
  rows.push(`Reference-server PATCH (item 6): ${r.referencePatch.note}`);
  return layout(rows);
}

function median0(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
}

function layout(rows: (Row | string)[]): string {
  const cells = rows.filter((row): row is Row => typeof row !== 'string');
  const widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (row: Row) =>
    row
      .map((cell, i) =>
        i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  const rule = '-'.repeat(widths.reduce((a, b) => a + b + 2, -2));
  const out = [line(HEADER), rule];
  for (const row of rows) out.push(typeof row === 'string' ? `— ${row}` : line(row));
  return out.join('\n');
}
