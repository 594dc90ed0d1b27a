/**
 * The measured pipeline, whatever the storage: sandbox over loopback HTTP → ProviderClient →
 * SyncEngine → storage. A first (full) sync, then optionally a no-op re-sync and an incremental day.
 * Runs inside a child process (see harness/child.ts), so its peak RSS is this configuration's alone.
 */
import { ProviderClient } from '@finsync/provider';
import { SyncEngine, type ConnectionReport, type Storage } from '@finsync/sync';
import { API_KEY, CONNECTION_ID, TODAY, windowedStartDate, type SyncMode } from '../data/data-set.js';
import { countingFetch, type RequestLog } from '../data/request-log.js';
import type { SandboxProcess } from '../data/sandbox-process.js';
import { MiB, peakRssMiB, sampleMemory, type MemoryBreakdown } from './memory-sampler.js';

export interface RequestCounts {
  total: number;
  accounts: number;
  transactions: number;
  balance: number;
  holdings: number;
  /** Fewest and most transactions requests any one account got. */
  transactionsPerAccount: { min: number; max: number };
  balancePerAccount: { min: number; max: number };
  accountCount: number;
}

export interface FullSyncResult {
  /** Transactions stored after the first sync. */
  rows: number;
  ms: number;
  requests: RequestCounts;
  /** Feed entries the first sync wrote (one per change). */
  feedEntries: number;
  /** Peak RSS before the sync started (runtime, modules, storage open) and after it. */
  baselineRssMiB: number;
  peakRssMiB: number;
  /** The transactions URLs the engine asked, in order (for the plain-HTTP replay). */
  transactionUrls: string[];
  /** Where the memory is: see `MemoryBreakdown`. */
  memory: MemoryBreakdown;
}

export interface ResyncResult {
  ok: boolean;
  ms: number;
  requests: RequestCounts;
  /** Feed entries written (`lastSeq()` difference): every change to the mirror writes one. */
  feedEntriesWritten: number;
  /** Transactions the provider sent (after client-side filtering). */
  fetched: number;
  added: number;
  modified: number;
  removed: number;
}

export interface EngineRunResult {
  full: FullSyncResult;
  noop?: ResyncResult;
  day?: ResyncResult & { today: string };
}

export interface EngineRunOptions {
  storage: Storage;
  sandbox: SandboxProcess;
  mode: SyncMode;
  /** Only the first sync (memory runs, PostgreSQL). */
  fullOnly: boolean;
  /** Called between the steps, for counters the storage alone knows (SQLite's total_changes). */
  onStep?: (step: 'before-noop' | 'after-noop') => void;
}

function minMax(values: Iterable<number>, accountCount: number): { min: number; max: number } {
  const list = [...values];
  // An account never asked counts as 0 requests.
  if (list.length < accountCount) list.push(0);
  return list.length === 0 ? { min: 0, max: 0 } : { min: Math.min(...list), max: Math.max(...list) };
}

function counts(log: RequestLog, accountCount: number): RequestCounts {
  return {
    total: log.count(),
    accounts: log.count('accounts'),
    transactions: log.count('transactions'),
    balance: log.count('balance'),
    holdings: log.count('holdings'),
    transactionsPerAccount: minMax(log.perAccount('transactions').values(), accountCount),
    balancePerAccount: minMax(log.perAccount('balance').values(), accountCount),
    accountCount,
  };
}

function assertOk(report: ConnectionReport, step: string): void {
  if (!report.ok) throw new Error(`${step} failed: ${report.issues.map((i) => i.message).join('; ')}`);
}

function totals(report: ConnectionReport) {
  const sum = (field: 'fetched' | 'added' | 'modified' | 'removed') =>
    report.accounts.reduce((n, a) => n + a[field], 0);
  return { fetched: sum('fetched'), added: sum('added'), modified: sum('modified'), removed: sum('removed') };
}

/**
 * The engine every measured sync runs: its "today" follows the sandbox's clock (so the incremental day
 * asks for the new day), the throttle is off, and a windowed sync starts before the oldest row.
 */
export async function benchEngine(options: {
  storage: Storage;
  sandbox: SandboxProcess;
  mode: SyncMode;
  today: () => string;
  fetch: typeof globalThis.fetch;
}): Promise<SyncEngine> {
  const { storage, sandbox, mode, today, fetch } = options;
  const engine = new SyncEngine({
    storage,
    clock: { now: () => new Date(`${today()}T12:00:00Z`), today },
    ...(mode === 'windowed' ? { startDate: windowedStartDate() } : {}),
  });
  await engine.addConnection({
    id: CONNECTION_ID,
    // The throttle is off: the sandbox has no rate limit, and 90 requests a minute would measure the
    // throttle rather than the pipeline.
    client: new ProviderClient({ apiKey: API_KEY, baseUrl: sandbox.baseUrl, rateLimit: false, fetch }),
  });
  return engine;
}

export async function runEngine(options: EngineRunOptions): Promise<EngineRunResult> {
  const { storage, sandbox, mode } = options;
  let today = TODAY;
  const { fetch, log } = countingFetch();
  const engine = await benchEngine({ storage, sandbox, mode, today: () => today, fetch });
  await storage.init();

  const baselineRssMiB = peakRssMiB();
  const sampler = sampleMemory();
  const started = performance.now();
  const first = await engine.sync(CONNECTION_ID);
  const ms = performance.now() - started;
  const peak = peakRssMiB();
  const sampled = sampler.stop();
  // gc is there when the child runs with --expose-gc (harness/spawn-task.ts passes it).
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const memory: MemoryBreakdown = {
    ...sampled,
    retainedHeapMiB: gc ? process.memoryUsage().heapUsed / MiB : null,
  };
  assertOk(first, 'first sync');
  const accountCount = first.accounts.length;
  const full: FullSyncResult = {
    rows: await storage.countTransactions(CONNECTION_ID),
    ms,
    requests: counts(log, accountCount),
    feedEntries: await storage.lastSeq(),
    baselineRssMiB,
    peakRssMiB: peak,
    transactionUrls: log.urls.filter((u) => new URL(u).pathname.endsWith('/transactions')),
    memory,
  };
  if (options.fullOnly) return { full };

  // No-op re-sync: nothing changed upstream, so nothing may be written.
  options.onStep?.('before-noop');
  log.reset();
  const seqBeforeNoop = await storage.lastSeq();
  const noopStarted = performance.now();
  const noopReport = await engine.sync(CONNECTION_ID);
  const noopMs = performance.now() - noopStarted;
  options.onStep?.('after-noop');
  const noop: ResyncResult = {
    ok: noopReport.ok,
    ms: noopMs,
    requests: counts(log, accountCount),
    feedEntriesWritten: (await storage.lastSeq()) - seqBeforeNoop,
    ...totals(noopReport),
  };

  // Incremental day: the sandbox moves one day on (new rows, pending rows post under new ids).
  today = await sandbox.advance(1);
  log.reset();
  const seqBeforeDay = await storage.lastSeq();
  const dayStarted = performance.now();
  const dayReport = await engine.sync(CONNECTION_ID);
  const dayMs = performance.now() - dayStarted;
  const day = {
    ok: dayReport.ok,
    ms: dayMs,
    today,
    requests: counts(log, accountCount),
    feedEntriesWritten: (await storage.lastSeq()) - seqBeforeDay,
    ...totals(dayReport),
  };
  return { full, noop, day };
}
