/**
 * Shared pieces of the benchmark: the data set, the sandbox server process, request counting,
 * flags and statistics. Nothing here measures anything by itself.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { SandboxAccountSpec, SandboxOptions } from '@finsync/provider/sandbox';

/** The sandbox's "today" at the start of every run; the incremental-day step moves it forward. */
export const TODAY = '2026-06-30';
/** Years of history (five), so the data looks like a real account's and windowed walks are long. */
export const HISTORY_DAYS = 5 * 365;
export const SEED = 1;
export const API_KEY = 'sandbox-key';
export const CONNECTION_ID = 'bench';

/**
 * How the engine is asked for a first sync:
 * - `whole`: no `startDate` (the engine's default): one request per account for its whole history;
 * - `windowed`: a `startDate` before the oldest data, so the history is walked in 90-day windows.
 */
export type SyncMode = 'whole' | 'windowed';
export const MODES: readonly SyncMode[] = ['whole', 'windowed'];

/** A day before the sandbox's oldest row: what `windowed` passes as `startDate`. */
export function windowedStartDate(): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) - (HISTORY_DAYS + 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
}

export interface SandboxProcess {
  baseUrl: string;
  advance(days: number): Promise<string>;
  stop(): Promise<void>;
}

/** The sandbox options for a data set of about `rows` transactions. */
export function sandboxOptions(rows: number): SandboxOptions {
  return {
    seed: SEED,
    today: TODAY,
    historyDays: HISTORY_DAYS,
    accounts: heavyAccounts(rows, HISTORY_DAYS).accounts,
  };
}

/**
 * Starts bench/sandbox-server.ts in a child process, so the server's CPU and memory are not the
 * measured process's (they still share the machine's two cores, which is part of the noise).
 */
export async function startSandboxProcess(options: SandboxOptions): Promise<SandboxProcess> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@finsync/source',
      '--import',
      'tsx',
      new URL('./sandbox-server.ts', import.meta.url).pathname,
      JSON.stringify(options),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () =>
    JSON.parse(((await lines.next()).value as string | undefined) ?? '{}') as Record<string, string>;
  const { baseUrl } = await next();
  if (!baseUrl) throw new Error('sandbox server did not start');
  return {
    baseUrl,
    async advance(days) {
      child.stdin.write(`advance ${days}\n`);
      return (await next()).today!;
    },
    async stop() {
      child.stdin.end();
      await once(child, 'exit');
    },
  };
}

/** Ten busy current accounts, sized so the whole history holds about `rows` transactions. */
export function heavyAccounts(
  rows: number,
  historyDays: number,
): { accounts: SandboxAccountSpec[]; transactionsPerDay: number } {
  const count = 10;
  const perDay = rows / (count * historyDays);
  const accounts: SandboxAccountSpec[] = Array.from({ length: count }, (_, i) => ({
    id: 9000 + i,
    name: `Busy Account ${i + 1}`,
    institutionName: 'Bench Bank',
    provider: 'gocardless',
    currency: i % 3 === 0 ? 'EUR' : 'GBP',
    profile: 'current',
    transactionsPerDay: perDay,
  }));
  return { accounts, transactionsPerDay: perDay };
}

export type Endpoint = 'accounts' | 'transactions' | 'balance' | 'holdings' | 'other';

export interface RequestLog {
  /** Every request's URL, in order. */
  urls: string[];
  count(endpoint?: Endpoint): number;
  /** Requests to `endpoint` per account id. */
  perAccount(endpoint: Endpoint): Map<string, number>;
  reset(): void;
}

export function endpointOf(url: string): { endpoint: Endpoint; accountId: string | null } {
  const path = new URL(url).pathname;
  const match = /\/accounts\/([^/]+)\/(transactions|balance|holdings)\/?$/.exec(path);
  if (match) return { endpoint: match[2] as Endpoint, accountId: decodeURIComponent(match[1]!) };
  return { endpoint: /\/accounts\/?$/.test(path) ? 'accounts' : 'other', accountId: null };
}

/** A `fetch` for ProviderClient that records every request it is asked to send (retries included). */
export function countingFetch(): { fetch: typeof fetch; log: RequestLog } {
  const urls: string[] = [];
  const log: RequestLog = {
    urls,
    count: (endpoint) =>
      endpoint === undefined ? urls.length : urls.filter((u) => endpointOf(u).endpoint === endpoint).length,
    perAccount(endpoint) {
      const counts = new Map<string, number>();
      for (const url of urls) {
        const { endpoint: e, accountId } = endpointOf(url);
        if (e === endpoint && accountId !== null) counts.set(accountId, (counts.get(accountId) ?? 0) + 1);
      }
      return counts;
    },
    reset: () => void urls.splice(0),
  };
  const counting: typeof fetch = (input, init) => {
    // ky hands fetch a Request; plain callers pass a string or URL.
    urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return fetch(input, init);
  };
  return { fetch: counting, log };
}

/** The plain baseline: fetch + JSON.parse, as any script would do it. */
export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { 'x-api-key': API_KEY, accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return JSON.parse(await response.text()) as T;
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'finsync-bench-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Peak resident set size of this process so far. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median and spread of repeated measurements; `spread` is (max − min) / median. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  spread: number;
  samples: number[];
}

export function summarize(samples: readonly number[]): Summary {
  const m = median(samples);
  const min = Math.min(...samples);
  const max = Math.max(...samples);
  return { median: m, min, max, spread: m === 0 ? 0 : (max - min) / m, samples: [...samples] };
}

export function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number`);
  return value;
}

export function stringFlag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return undefined;
  const value = process.argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}

export function hasFlag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
