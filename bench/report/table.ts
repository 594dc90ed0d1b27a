/**
 * Turns a run's figures into the one printed table (the targets are in targets.ts). The table is a
 * list of sections, each a function from the results to its lines; a new workload adds its section
 * to `SECTIONS`. Every ratio is of two medians measured in this same run (format.ts).
 */
import { MODES, type SyncMode } from '../data/data-set.js';
import type { Summary } from '../harness/stats.js';
import { connectionsLabel, fmt, perSecond, rates, type Rates } from './format.js';
import { layout, type Line, type Row } from './layout.js';
import type { BenchResults, MemoryConfig } from './results.js';
import { PATCH_MIN_RATIO } from './targets.js';

const MODE_LABEL: Record<SyncMode, string> = {
  whole: 'whole history (default)',
  windowed: 'windowed (startDate)',
};

const runs = (s: Summary) => String(s.samples.length);

type Section = (r: BenchResults, x: Rates) => Line[];

/** A row for a timed measurement: its runs, median and spread come from `ms`; no rate when undefined. */
function timedRow(
  label: string,
  count: string,
  ms: Summary,
  rate: number | undefined,
  peakRss: string,
  note: string,
): Row {
  return [
    label,
    count,
    runs(ms),
    fmt.ms(ms.median),
    fmt.spread(ms),
    rate === undefined ? '' : fmt.rate(rate),
    peakRss,
    note,
  ];
}

/** The table's sections, top to bottom. */
const SECTIONS: readonly Section[] = [
  sqliteSection,
  postgresSection,
  providerClientSection,
  memorySection,
  fleetSection,
  referencePatchSection,
];

export function renderTable(r: BenchResults): string {
  const x = rates(r);
  return layout(SECTIONS.flatMap((section) => section(r, x)));
}

/** Into SQLite: the engine's syncs and everything they are compared with. */
function sqliteSection(r: BenchResults, x: Rates): Line[] {
  return [
    `SQLite — ${fmt.int(r.sqlite.sync.whole.rows)} transactions, 10 accounts, ${r.config.historyDays / 365} years`,
    ...fullSyncRows(r, x),
    ...rawSqliteRows(r, x),
    ...rawHttpRows(r, x),
    ...naiveRows(r, x),
    ...noopRows(r),
    ...incrementalDayRows(r),
  ];
}

function fullSyncRows(r: BenchResults, x: Rates): Line[] {
  return MODES.map((m) => {
    const s = r.sqlite.sync[m];
    return timedRow(
      `full sync → SQLite, ${MODE_LABEL[m]}`,
      fmt.int(s.rows),
      s.ms,
      x.sync[m],
      fmt.mib(s.peakRssMiB.median),
      [
        `${fmt.ratio(x.sync[m] / x.raw.rows)} raw rows`,
        `${fmt.ratio(x.sync[m] / x.raw.rowsFeed)} raw rows+feed`,
        `${fmt.ratio(x.sync[m] / x.plain[m])} raw HTTP`,
        `${fmt.ratio(x.sync[m] / x.naive.default)} naive`,
        `${fmt.ratio(x.sync[m] / x.naive.wal)} naive-WAL`,
      ].join(' · '),
    );
  });
}

/** The raw upsert loops (the limit), then the storage adapter alone (a share of the sync, not a limit). */
function rawSqliteRows(r: BenchResults, x: Rates): Line[] {
  const { raw } = r.sqlite;
  const lines: Line[] = (
    [
      ['rows', `raw SQLite upsert, rows only (${fmt.int(r.config.batchRows)}/tx)`],
      ['rows+feed', `raw SQLite upsert, rows + feed (${fmt.int(r.config.batchRows)}/tx)`],
    ] as const
  ).map(([variant, label]) => {
    const ms = raw.ms[variant];
    return timedRow(
      label,
      fmt.int(raw.rows),
      ms,
      perSecond(raw.rows, ms),
      '',
      'the limit: prepared statements, no HTTP, no engine',
    );
  });
  const ms = raw.ms.apply;
  lines.push(
    timedRow(
      'SqliteStorage.apply alone, same rows (2,000/apply)',
      fmt.int(raw.rows),
      ms,
      perSecond(raw.rows, ms),
      '',
      `not a limit: the storage adapter's share of the sync; ${fmt.ratio(perSecond(raw.rows, ms) / x.raw.rowsFeed)} raw rows+feed`,
    ),
  );
  return lines;
}

function rawHttpRows(r: BenchResults, x: Rates): Line[] {
  return MODES.map((m) => {
    const h = r.http[m];
    return timedRow(
      `raw HTTP, fetch + JSON.parse, ${m} URLs`,
      fmt.int(h.rows),
      h.plainMs,
      x.plain[m],
      '',
      `${h.pages} responses, same server, same URLs as the engine`,
    );
  });
}

function naiveRows(r: BenchResults, x: Rates): Line[] {
  return (
    [
      ['default', 'naive importer, default pragmas'],
      ['wal', 'naive importer, WAL + synchronous=NORMAL'],
    ] as const
  ).map(([variant, label]) => {
    const n = r.sqlite.naive[variant];
    const done = Math.min(...n.inserted);
    const note = done < n.rows ? `inserts extrapolated from ${fmt.int(done)}+ rows` : 'every row inserted';
    return timedRow(
      label,
      fmt.int(n.rows),
      n.totalMs,
      x.naive[variant],
      '',
      `fetch ${fmt.ms(n.fetchMs.median)}; autocommit per row; ${note}`,
    );
  });
}

function noopRows(r: BenchResults): Line[] {
  return MODES.map((m) => {
    const n = r.sqlite.noop[m];
    const q = n.requests[0]!;
    return timedRow(
      `no-op re-sync, ${m}`,
      `${Math.max(...n.feedEntriesWritten)} written`,
      n.ms,
      undefined,
      '',
      `requests: ${q.accounts} accounts + ${q.transactions} transactions (${q.transactionsPerAccount.max}/account) + ${q.balance} balance + ${q.holdings} holdings; ${fmt.int(n.fetched)} rows re-read; ${Math.max(...(n.bookkeepingRows ?? [0]))} bookkeeping rows`,
    );
  });
}

function incrementalDayRows(r: BenchResults): Line[] {
  return MODES.map((m) => {
    const d = r.sqlite.day[m];
    const q = d.requests[0]!;
    return timedRow(
      `incremental day, ${m}`,
      `${fmt.int(d.fetched)} read`,
      d.ms,
      perSecond(d.fetched, d.ms),
      '',
      `${upperMedian(d.feedEntriesWritten)} feed entries (+${d.added} ~${d.modified} −${d.removed}); ${q.total} requests (${q.transactions} transactions)`,
    );
  });
}

/** The whole-history sync into PostgreSQL beside its raw unnest loops, or why it was skipped. */
function postgresSection(r: BenchResults, x: Rates): Line[] {
  if ('skipped' in r.postgres) return [`PostgreSQL — skipped: ${r.postgres.skipped}`];
  const pg = r.postgres;
  const pgx = x.pg!;
  const lines: Line[] = [
    `PostgreSQL ${pg.version}`,
    timedRow(
      `full sync → PostgreSQL, ${MODE_LABEL.whole}`,
      fmt.int(pg.sync.rows),
      pg.sync.ms,
      pgx.sync,
      fmt.mib(pg.sync.peakRssMiB.median),
      `${fmt.ratio(pgx.sync / pgx.raw.rows)} raw rows · ${fmt.ratio(pgx.sync / pgx.raw.rowsFeed)} raw rows+feed · ${fmt.ratio(pgx.sync / x.sync.whole)} the SQLite sync`,
    ),
  ];
  for (const [variant, label] of [
    ['rows', `raw unnest upsert, rows only (${fmt.int(r.config.batchRows)}/stmt)`],
    ['rows+feed', `raw unnest upsert, rows + feed (${fmt.int(r.config.batchRows)}/tx)`],
    ['apply', 'PostgresStorage.apply alone, same rows (2,000/apply)'],
  ] as const) {
    const ms = pg.raw.ms[variant];
    lines.push(
      timedRow(
        label,
        fmt.int(pg.raw.rows),
        ms,
        perSecond(pg.raw.rows, ms),
        '',
        variant === 'apply'
          ? `not a limit: the adapter's share; ${fmt.ratio(perSecond(pg.raw.rows, ms) / pgx.raw.rowsFeed)} raw rows+feed`
          : 'the limit: one INSERT … SELECT FROM unnest(…) per batch',
      ),
    );
  }
  return lines;
}

/** The provider client against plain fetch + JSON.parse, then where its extra time goes. */
function providerClientSection(r: BenchResults, x: Rates): Line[] {
  const lines: Line[] = [
    'Provider client (throttle off) vs plain fetch + JSON.parse, same server, same URLs',
  ];
  for (const m of MODES) {
    const h = r.http[m];
    const pagesPerSecond = h.pages / (h.clientMs.median / 1000);
    const plainPages = h.pages / (h.plainMs.median / 1000);
    lines.push(
      timedRow(
        `ProviderClient.listTransactions().pages(), ${m}`,
        fmt.int(h.rows),
        h.clientMs,
        x.client[m],
        '',
        `${pagesPerSecond.toFixed(1)} pages/s vs ${plainPages.toFixed(1)} plain: ${fmt.ratio(x.client[m] / x.plain[m])}`,
      ),
    );
  }
  for (const [label, ms] of [
    ['JSON.parse of the whole-history bodies, in memory', r.validation.jsonParseMs],
    ["the client's zod schema on the same parsed bodies", r.validation.schemaParseMs],
  ] as const) {
    lines.push(
      timedRow(
        label,
        fmt.int(r.validation.rows),
        ms,
        perSecond(r.validation.rows, ms),
        '',
        `${((ms.median * 1000) / r.validation.rows).toFixed(2)} µs/row`,
      ),
    );
  }
  lines.push(...peersRows(r));
  return lines;
}

/** The client's whole pull and a plain one, each in a process of its own, with their peak RSS. */
function peersRows(r: BenchResults): Line[] {
  const p = r.peers;
  const rows = (label: string, ms: Summary, peak: Summary, note: string): Row =>
    timedRow(label, fmt.int(p.rows), ms, perSecond(p.rows, ms), fmt.mib(peak.median), note);
  return [
    rows(
      'peers: ProviderClient whole pull, every row validated',
      p.clientMs,
      p.clientPeakRssMiB,
      `${fmt.ratio(p.clientMs.median / p.plainMs.median)} the plain pull's time, ${fmt.signedMib(p.clientPeakRssMiB.median - p.plainPeakRssMiB.median)} its peak RSS; a process per pull`,
    ),
    rows(
      'peers: plain fetch + JSON.parse whole pull',
      p.plainMs,
      p.plainPeakRssMiB,
      `${p.requests} requests a pull (the account list, then each account's history), the client's URLs`,
    ),
  ];
}

/** Peak RSS per data set size, one row per configuration, the sizes side by side. */
function memorySection(r: BenchResults): Line[] {
  const sizes = r.config.memorySizes;
  const labels: Record<MemoryConfig, string> = {
    whole: `peak RSS, ${MODE_LABEL.whole}`,
    windowed: `peak RSS, ${MODE_LABEL.windowed}`,
    'windowed-capped': `peak RSS, windowed, old space ≤ ${r.memory.cappedOldSpaceMiB} MiB`,
  };
  const list = (values: (number | null)[]) => values.map((v) => (v === null ? '?' : Math.round(v))).join('/');
  const lines: Line[] = [
    'Memory: peak RSS of a full sync into SQLite, one process per run (sizes separated by /)',
  ];
  for (const config of ['whole', 'windowed', 'windowed-capped'] as const) {
    const points = sizes.map((n) => r.memory.points[config][n]!);
    const peaks = points.map((p) => p.peakRssMiB);
    const growth = peaks.at(-1)!.median / peaks[0]!.median;
    lines.push([
      labels[config],
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
  return lines;
}

/**
 * The reference server's PATCH against a bare handler doing the same SQLite update, one row per
 * connection count: "rows" are the requests sent (each writes one row), "median" the median latency.
 */
function referencePatchSection(r: BenchResults): Line[] {
  const patch = r.referencePatch;
  if ('skipped' in patch) return [`Reference-server PATCH — skipped: ${patch.skipped}`];
  const lines: Line[] = [
    `Reference-server PATCH vs a bare node:http handler doing the same SQLite UPDATE (autocannon, ${patch.seconds} s per point in 1 s slices alternating with the bare handler's; rows = requests sent, each writing one row; the reference server logs each request as npm start does)`,
  ];
  for (const p of patch.points) {
    const ratio = p.reference.rps / p.bare.rps;
    lines.push([
      `PATCH /api/v1/transactions/:id, ${connectionsLabel(p.connections)}`,
      fmt.int(p.reference.requests),
      '1',
      fmt.ms(p.reference.p50),
      '',
      fmt.rate(p.reference.rps),
      '',
      `${ratio >= PATCH_MIN_RATIO ? 'PASS' : 'MISS'} ${fmt.ratio(ratio)} the bare handler (${fmt.rate(p.bare.rps)} req/s); ` +
        `p50/p99 ${p.reference.p50}/${p.reference.p99} ms vs ${p.bare.p50}/${p.bare.p99} ms`,
    ]);
  }
  return lines;
}

/**
 * The fleet, one row per experiment: "rows" are the syncs finished while measuring, "peak RSS" the
 * largest worker's. The standalone `npm run bench:fleet` prints the fuller table.
 */
function fleetSection(r: BenchResults): Line[] {
  const fleet = r.fleet;
  if ('skipped' in fleet) return [`Fleet of SyncWorker processes — skipped: ${fleet.skipped}`];
  const lines: Line[] = [
    `Fleet: SyncWorker processes on one PostgreSQL, provider latency ${fleet.config.latencyMs} ms, 100 requests/min per key, ${fleet.config.concurrency} runs in flight per worker`,
  ];
  for (const c of fleet.capacities) {
    const cores = c.workerCpu.reduce((a, b) => a + b, 0);
    lines.push([
      `capacity, ${c.workers} worker${c.workers > 1 ? 's' : ''} (all due at once)`,
      fmt.int(Math.round(c.syncsPerS * c.seconds)),
      '1',
      '',
      '',
      '',
      `${c.rssMiB.toFixed(0)} MiB`,
      `${c.syncsPerS.toFixed(1)} syncs/s, ${c.requestsPerS.toFixed(0)} req/s; ${c.connectionsPerWorkerAt6h.toLocaleString('en-US')} connections per worker at 6 h; ` +
        `cores: workers ${cores.toFixed(2)}, PostgreSQL ${c.postgresCpu.toFixed(2)}, provider ${c.providerCpu.toFixed(2)}`,
    ]);
  }
  for (const f of fleet.freshnesses) {
    lines.push([
      `freshness, ${f.workers} worker${f.workers > 1 ? 's' : ''}, ${f.connections} conns every ${f.intervalS} s`,
      fmt.int(Math.round(f.syncsPerS * f.seconds)),
      '1',
      '',
      '',
      '',
      '',
      `time since last success p50/p99/max ${f.stalenessP50.toFixed(2)}/${f.stalenessP99.toFixed(2)}/${f.stalenessMax.toFixed(2)}× the interval; ${f.requestsPerS.toFixed(0)} req/s`,
    ]);
  }
  return lines;
}

/** The upper median (the middle value, or the higher of the two middle ones): a count, not an average. */
function upperMedian(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
}
