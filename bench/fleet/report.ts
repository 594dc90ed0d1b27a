/** The fleet run's figures as a table, and the PASS/MISS lines for its targets. */

export interface PhaseRates {
  seconds: number;
  syncsPerS: number;
  failedPerS: number;
  requestsPerS: number;
  limitedPerS: number;
  /** CPU cores used by each worker process (1 = one core all the time). */
  workerCpu: number[];
  providerCpu: number;
  postgresCpu: number;
  postgresCommitsPerS: number;
  postgresTuplesPerS: number;
}

export interface CapacityResult extends PhaseRates {
  workers: number;
  rssMiB: number;
  errors: Record<string, number>[];
  connectionsPerWorkerAt6h: number;
  workerCpuMsPerSync: number;
  postgresCpuMsPerSync: number;
  providerCpuMsPerSync: number;
}

export interface FreshnessResult extends PhaseRates {
  workers: number;
  connections: number;
  intervalS: number;
  errors: Record<string, number>[];
  /** Time since the last success, as a multiple of the interval. */
  stalenessP50: number;
  stalenessP99: number;
  stalenessMax: number;
}

export interface FleetConfig {
  /** PostgreSQL the workers share (never written into results). */
  url: string;
  /** Worker process counts of the capacity experiment. */
  workers: number[];
  /** Worker process counts of the freshness experiment (default: `workers`). */
  freshnessWorkers?: number[];
  /** Connections in the capacity experiment (the freshness one uses fewer; see measure.ts). */
  connections: number;
  /** The compressed interval of the freshness experiment, seconds. */
  intervalS: number;
  /** The provider's latency on every request. */
  latencyMs: number;
  /** How long the capacity experiment measures. */
  seconds: number;
  /** Runs in flight per worker. */
  concurrency: number;
}

export interface FleetResults {
  config: Omit<FleetConfig, 'url'>;
  capacities: CapacityResult[];
  freshnesses: FreshnessResult[];
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const TARGET_PER_WORKER = 50_000;
/** Freshness holds when the 99th percentile stays within the interval plus its jitter (10%) and a run. */
const FRESH_P99 = 1.25;

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const cores = (values: number[]) => values.map((v) => fixed(v, 2)).join('+');

/** Right-aligned columns, each as wide as its widest cell or heading. */
function columns(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((cells) => cells[i]!.length)));
  return [head, ...rows].map((cells) => cells.map((c, i) => c.padStart(widths[i]!)).join('  '));
}

function renderCapacity(results: FleetResults): string[] {
  return columns(
    [
      'workers',
      'syncs/s',
      'req/s',
      '429/s',
      'worker cores',
      'pg cores',
      'provider',
      'ms CPU/sync',
      'conns/worker @6h',
    ],
    results.capacities.map((c) => [
      String(c.workers),
      fixed(c.syncsPerS),
      fixed(c.requestsPerS),
      fixed(c.limitedPerS),
      cores(c.workerCpu),
      fixed(c.postgresCpu, 2),
      fixed(c.providerCpu, 2),
      `${fixed(c.workerCpuMsPerSync)}+${fixed(c.postgresCpuMsPerSync)}pg`,
      c.connectionsPerWorkerAt6h.toLocaleString('en-US'),
    ]),
  );
}

function renderFreshness(results: FleetResults): string[] {
  return columns(
    [
      'workers',
      'connections',
      'interval',
      'syncs/s',
      'req/s',
      'p50 stale',
      'p99 stale',
      'max stale',
      'worker cores',
      'pg cores',
    ],
    results.freshnesses.map((f) => [
      String(f.workers),
      String(f.connections),
      `${f.intervalS} s`,
      fixed(f.syncsPerS),
      fixed(f.requestsPerS),
      `${fixed(f.stalenessP50, 2)}×`,
      `${fixed(f.stalenessP99, 2)}×`,
      `${fixed(f.stalenessMax, 2)}×`,
      cores(f.workerCpu),
      fixed(f.postgresCpu, 2),
    ]),
  );
}

export interface FleetTarget {
  name: string;
  verdict: 'PASS' | 'MISS';
  detail: string;
}

/** One worker's capacity at 6 h, how it scales, and freshness at the target's request rate. */
export function evaluateFleetTargets(results: FleetResults): FleetTarget[] {
  const targets: FleetTarget[] = [];
  const one = results.capacities.find((c) => c.workers === 1);
  if (one) {
    const scaling = results.capacities
      .filter((c) => c.workers > 1)
      .map((c) => `${c.workers} workers ${fixed((c.syncsPerS / (one.syncsPerS * c.workers)) * 100, 0)}%`);
    targets.push({
      name: `fleet: one worker keeps ≥ ${TARGET_PER_WORKER.toLocaleString('en-US')} connections fresh at a 6 h interval`,
      verdict: one.connectionsPerWorkerAt6h >= TARGET_PER_WORKER ? 'PASS' : 'MISS',
      detail:
        `${one.connectionsPerWorkerAt6h.toLocaleString('en-US')} (${fixed(one.syncsPerS)} routine re-syncs/s, ` +
        `${fixed(one.requestsPerS)} requests/s)` +
        (scaling.length > 0 ? `; of linear scaling: ${scaling.join(', ')}` : ''),
    });
  }
  for (const f of results.freshnesses) {
    targets.push({
      name: `fleet: ${f.workers} worker(s) at the request rate of ${(f.workers * TARGET_PER_WORKER).toLocaleString('en-US')} connections at 6 h stay fresh`,
      verdict: f.stalenessP99 <= FRESH_P99 && f.failedPerS === 0 ? 'PASS' : 'MISS',
      detail:
        `${f.connections} connections at a ${f.intervalS} s interval: p50/p99/max time since the last success ` +
        `${fixed(f.stalenessP50, 2)}/${fixed(f.stalenessP99, 2)}/${fixed(f.stalenessMax, 2)}× the interval (p99 ≤ ${FRESH_P99}×), ` +
        `${fixed(f.failedPerS, 2)} failed runs/s`,
    });
  }
  return targets;
}

export function renderFleetTable(results: FleetResults): string {
  return [
    `fleet: latency ${results.config.latencyMs} ms a request, 100 requests a minute per key, ` +
      `${results.config.concurrency} runs in flight per worker`,
    '',
    'capacity (every connection due at once)',
    ...renderCapacity(results),
    '',
    'freshness (the request rate of 50,000 connections per worker at 6 h, the interval compressed)',
    ...renderFreshness(results),
    '',
    ...evaluateFleetTargets(results).map((t) => `${t.verdict.padEnd(7)} ${t.name}: ${t.detail}`),
  ].join('\n');
}
