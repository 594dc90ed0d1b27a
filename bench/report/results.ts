/**
 * The shape of one benchmark run, as run.ts collects it and latest.json stores it. A new workload adds
 * its figures here as one more key (and `{ skipped: reason }` when it can be switched off).
 */
import type { FleetResults } from '../fleet/report.js';
import type { SyncMode } from '../data/data-set.js';
import type { RequestCounts } from '../engine/run-engine.js';
import type { Summary } from '../harness/stats.js';
import type { NaiveVariant } from '../naive/importer.js';
import type { PatchResult } from '../patch/bench-patch.js';
import type { RawVariant } from '../sqlite/raw.js';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  sqlite: string;
  betterSqlite3: string;
  postgres: string | null;
  commit: string | null;
  /** Uncommitted changes under packages/ when the run started: the figures are of that working tree. */
  dirtyPackages: boolean;
  /** 1/5/15-minute load averages at the start and end of the run: other work on the cores is noise. */
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
}

export interface BenchConfig {
  rows: number;
  accounts: number;
  historyDays: number;
  runs: number;
  /** Runs per size and mode of the judged memory comparison (whole, windowed). */
  memoryRuns: number;
  httpReps: number;
  batchRows: number;
  naiveBudgetMs: number;
  memorySizes: number[];
  postgresUrl: string | null;
}

export interface SyncFigures {
  rows: number;
  ms: Summary;
  peakRssMiB: Summary;
  baselineRssMiB: Summary;
  requests: RequestCounts;
  databaseMiB?: number;
}

export interface ResyncFigures {
  ms: Summary;
  /** Per run. */
  requests: RequestCounts[];
  feedEntriesWritten: number[];
  fetched: number;
  added: number;
  modified: number;
  removed: number;
  bookkeepingRows?: number[];
}

export interface RawFigures {
  rows: number;
  ms: Record<RawVariant, Summary>;
}

export interface NaiveFigures {
  rows: number;
  totalMs: Summary;
  fetchMs: Summary;
  /** Rows really inserted per run before the time budget; fewer than `rows` means extrapolated. */
  inserted: number[];
}

export interface HttpFigures {
  pages: number;
  rows: number;
  plainMs: Summary;
  clientMs: Summary;
}

/** A whole pull through the client against a plain fetch + JSON.parse pull, a process per pull. */
export interface PeersFigures {
  rows: number;
  requests: number;
  clientMs: Summary;
  plainMs: Summary;
  clientPeakRssMiB: Summary;
  plainPeakRssMiB: Summary;
}

export interface ValidationFigures {
  rows: number;
  jsonParseMs: Summary;
  schemaParseMs: Summary;
}

export interface PostgresFigures {
  version: string;
  sync: SyncFigures;
  raw: RawFigures;
}

/**
 * `whole` and `windowed` run with Node's default flags (what the targets judge). `windowed-capped`
 * is a diagnostic: the windowed sync with V8's old space capped (`--max-old-space-size`), which
 * shows how much of the peak is garbage V8 had not yet collected rather than data held.
 */
export type MemoryConfig = SyncMode | 'windowed-capped';

export interface MemoryPoint {
  peakRssMiB: Summary;
  /** Medians over the runs. */
  peakHeapUsedMiB: number;
  retainedHeapMiB: number | null;
  ms: number;
}

export interface MemoryFigures {
  /** Data set size → transactions stored. */
  rows: Record<number, number>;
  /** The old-space cap of `windowed-capped`, in MiB. */
  cappedOldSpaceMiB: number;
  points: Record<MemoryConfig, Record<number, MemoryPoint>>;
}

/** The reference server's PATCH against a bare handler, one point per connection count. */
export interface ReferencePatchFigures {
  /** Measured seconds per point and target, after a 1 s warm-up of each. */
  seconds: number;
  points: PatchResult[];
}

export interface Target {
  name: string;
  /** PASS / MISS (a measurement that failed is a MISS), or NOT RUN when it was skipped. */
  verdict: 'PASS' | 'MISS' | 'NOT RUN';
  detail: string;
}

export interface BenchResults {
  startedAt: string;
  durationMs: number;
  machine: MachineInfo;
  config: BenchConfig;
  sqlite: {
    sync: Record<SyncMode, SyncFigures>;
    noop: Record<SyncMode, ResyncFigures>;
    day: Record<SyncMode, ResyncFigures>;
    raw: RawFigures;
    naive: Record<NaiveVariant, NaiveFigures>;
  };
  http: Record<SyncMode, HttpFigures>;
  /** The client's response schema vs JSON.parse on the same bodies in memory (see http/client-vs-fetch.ts). */
  validation: ValidationFigures;
  /** The client's whole pull beside a plain one, each in its own process (http/peers.ts). */
  peers: PeersFigures;
  postgres: PostgresFigures | { skipped: string };
  memory: MemoryFigures;
  /** The short fleet run (fleet/measure.ts); skipped with `--no-fleet` or without PostgreSQL. */
  fleet: FleetResults | NotMeasured;
  /** Skipped with `--no-patch`, or with the error when the measurement failed. */
  referencePatch: ReferencePatchFigures | NotMeasured;
  targets: Target[];
}

/**
 * A measurement not made: switched off (`--no-patch`), impossible here (no PostgreSQL), or `failed`
 * (it threw: a broken target), which its targets count as a MISS, not as NOT RUN.
 */
export interface NotMeasured {
  skipped: string;
  failed?: true;
}
