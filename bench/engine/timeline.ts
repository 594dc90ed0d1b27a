/**
 * Where a first sync waits (`npm run bench:timeline`): one first sync of the bench's data, in this
 * process, with every storage call and every provider request timed. A CPU profile says what the
 * engine's thread does; this says what the chain of commits waits for between them: the first answer,
 * the change from one account to the next, or the engine's own work on the next page.
 *
 *   npm run bench:timeline -- [--store sqlite|postgres] [--rows 100000] [--mode whole|windowed]
 *                              [--record FILE | --cached FILE]
 *
 * `--record` writes the paths the sync asked for to FILE; `--cached` has the sandbox render those
 * answers before the sync and serve them as stored bytes, so the provider costs this machine what a
 * remote one would (its socket writes) instead of about 8 µs of CPU a row on the cores the sync uses.
 *
 * The sync is the bench's (the same sandbox, data and engine options: run-engine.ts), but it runs from
 * source, with its storage wrapped and each answer's body passed through one more stream to see when it
 * ends, so it takes a little longer than in `npm run bench`. CPU times come from /proc (Linux only).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { PostgresStorage } from '@finsync/postgres';
import { SqliteStorage } from '@finsync/sqlite';
import type { Storage, WriteBatch } from '@finsync/sync';
import { CONNECTION_ID, TODAY, sandboxOptions, type SyncMode } from '../data/data-set.js';
import { endpointOf, pathOf } from '../data/request-log.js';
import { startSandboxProcess } from '../data/sandbox-process.js';
import { flag, stringFlag } from '../harness/flags.js';
import { machineBusyMs, postgresCpuMs, processCpuMs } from '../harness/proc-cpu.js';
import { tempDir } from '../harness/temp-dir.js';
import { postgresUrl } from '../postgres/probe.js';
import { benchEngine } from './run-engine.js';

interface Span {
  start: number;
  end: number;
}
/** One `apply`: when it ran, and the account whose state it stores (none: the connection's own). */
interface Commit extends Span {
  accountId: string | null;
}
interface Answer {
  /** Path and query, as the sandbox's "warm" command takes them. */
  path: string;
  endpoint: string;
  accountId: string | null;
  asked: number;
  headers: number;
  complete: number;
}

/** `storage` with each method's calls timed; `apply` calls also listed with their account. */
function timedStorage(
  storage: Storage,
  calls: Map<string, Span[]>,
  commits: Commit[],
  now: () => number,
): Storage {
  return new Proxy(storage, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const start = now();
        const result: unknown = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.finally(() => {
          const span = { start, end: now() };
          calls.set(property, [...(calls.get(property) ?? []), span]);
          if (property === 'apply')
            commits.push({
              ...span,
              accountId: (args[0] as WriteBatch).accountStates?.[0]?.accountId ?? null,
            });
        });
      };
    },
  });
}

/** `fetch` that notes when each request was asked, when its headers came and when its body ended. */
function timedFetch(answers: Answer[], now: () => number): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const answer: Answer = {
      path: pathOf(url),
      ...endpointOf(url),
      asked: now(),
      headers: NaN,
      complete: NaN,
    };
    answers.push(answer);
    const response = await fetch(input, init);
    answer.headers = now();
    if (!response.body) {
      answer.complete = answer.headers;
      return response;
    }
    const body = response.body.pipeThrough(
      new TransformStream({ flush: () => void (answer.complete = now()) }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;
const seconds = (valueMs: number) => `${(valueMs / 1000).toFixed(2)} s`;
const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)} %`;

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function openStorage(
  store: string,
): Promise<{ storage: Storage; label: string; close: () => Promise<void> }> {
  if (store === 'sqlite') {
    const tmp = tempDir();
    const storage = new SqliteStorage({ filename: join(tmp.dir, 'timeline.db') });
    return {
      storage,
      label: 'SQLite',
      close: async () => {
        await storage.close();
        tmp.remove();
      },
    };
  }
  if (store === 'postgres') {
    const schema = `finsync_bench_timeline_${process.pid}_${Date.now().toString(36)}`;
    const storage = new PostgresStorage({ connectionString: postgresUrl(), schema });
    return {
      storage,
      label: 'PostgreSQL',
      close: async () => {
        await storage.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
        await storage.close();
      },
    };
  }
  throw new Error(`--store is sqlite or postgres, not ${store}`);
}

const store = stringFlag('store') ?? 'sqlite';
const rows = flag('rows', 100_000);
const mode = (stringFlag('mode') ?? 'whole') as SyncMode;
if (mode !== 'whole' && mode !== 'windowed')
  throw new Error(`--mode is whole or windowed, not ${String(mode)}`);

const recordTo = stringFlag('record');
const cachedFrom = stringFlag('cached');
const sandbox = await startSandboxProcess(sandboxOptions(rows));
if (cachedFrom) {
  const paths = JSON.parse(readFileSync(cachedFrom, 'utf8')) as string[];
  console.log(`the sandbox rendered ${await sandbox.warm(paths)} answers ahead (${cachedFrom})`);
}
const opened = await openStorage(store);
try {
  let origin = performance.now();
  const now = () => performance.now() - origin;
  const calls = new Map<string, Span[]>();
  const commits: Commit[] = [];
  const answers: Answer[] = [];
  const storage = timedStorage(opened.storage, calls, commits, now);
  const engine = await benchEngine({
    storage,
    sandbox,
    mode,
    today: () => TODAY,
    fetch: timedFetch(answers, now),
  });
  await storage.init();
  calls.clear();

  const before = {
    self: process.cpuUsage(),
    sandbox: processCpuMs(sandbox.pid),
    postgres: postgresCpuMs(),
    machine: machineBusyMs(),
    loop: performance.eventLoopUtilization(),
  };
  origin = performance.now();
  const report = await engine.sync(CONNECTION_ID);
  const total = now();
  const self = process.cpuUsage(before.self);
  const cpu = {
    self: (self.user + self.system) / 1000,
    sandbox: processCpuMs(sandbox.pid) - before.sandbox,
    postgres: postgresCpuMs() - before.postgres,
    machine: machineBusyMs() - before.machine,
  };
  const loop = performance.eventLoopUtilization(before.loop);
  if (!report.ok) throw new Error(`the sync failed: ${report.issues.map((i) => i.message).join('; ')}`);
  const stored = await opened.storage.countTransactions(CONNECTION_ID);
  if (recordTo) writeFileSync(recordTo, JSON.stringify(answers.map((a) => a.path)));

  const cores = availableParallelism();
  console.log(
    `timeline of a first sync (${mode}), ${stored.toLocaleString('en-US')} rows into ${opened.label}`,
  );
  console.log(
    `sync ${ms(total)}; this thread busy ${percent(loop.utilization, 1)}; CPU: this process ${seconds(cpu.self)}, ` +
      `the sandbox ${seconds(cpu.sandbox)}` +
      (store === 'postgres' ? `, PostgreSQL ${seconds(cpu.postgres)}` : '') +
      `, the machine ${seconds(cpu.machine)} (${percent(cpu.machine, total * cores)} of its ${cores} cores)`,
  );

  // The gaps of the chain of commits, by what came before each: the first commit with an account's
  // rows waits for the first answer; one whose account differs from the commit before starts an account.
  let inCommits = 0;
  let previousEnd = 0;
  let previousAccount: string | null = null;
  let seenAccount = false;
  const gaps = { first: 0, accountChanges: 0, changes: 0, elsewhere: 0 };
  const largest: { gap: number; index: number; why: string }[] = [];
  for (const [index, commit] of commits.entries()) {
    const gap = Math.max(0, commit.start - previousEnd);
    inCommits += commit.end - commit.start;
    let why = 'after the commit before';
    if (commit.accountId !== null && !seenAccount) {
      why = 'the first answer';
      gaps.first += gap;
      seenAccount = true;
    } else if (
      commit.accountId !== null &&
      previousAccount !== null &&
      commit.accountId !== previousAccount
    ) {
      why = `the change to account ${commit.accountId}`;
      gaps.accountChanges += gap;
      gaps.changes += 1;
    } else gaps.elsewhere += gap;
    largest.push({ gap, index, why });
    if (commit.accountId !== null) previousAccount = commit.accountId;
    previousEnd = commit.end;
  }
  const between = total - inCommits;
  console.log(
    `apply: ${commits.length} calls, ${ms(inCommits)} in them (${percent(inCommits, total)} of the sync); ` +
      `${ms(between)} outside them: before the first of an account ${ms(gaps.first)}, ` +
      `at the ${gaps.changes} changes of account ${ms(gaps.accountChanges)}, ` +
      `elsewhere ${ms(gaps.elsewhere)}, after the last ${ms(Math.max(0, total - previousEnd))}`,
  );
  const durations = commits.map((c) => c.end - c.start).sort((a, b) => a - b);
  console.log(
    `one apply call: p10 ${ms(quantile(durations, 0.1))}, p50 ${ms(quantile(durations, 0.5))}, ` +
      `p90 ${ms(quantile(durations, 0.9))}, longest ${ms(quantile(durations, 1))}`,
  );
  console.log('the longest waits between commits:');
  for (const { gap, index, why } of largest.sort((a, b) => b.gap - a.gap).slice(0, 8))
    console.log(`  ${ms(gap).padStart(9)} before commit ${index + 1} (${why})`);

  console.log('other storage calls (beside the commits or between them): calls, time in them');
  for (const [name, spans] of [...calls].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (name === 'apply') continue;
    const time = spans.reduce((sum, s) => sum + s.end - s.start, 0);
    console.log(`  ${name.padEnd(24)} ${String(spans.length).padStart(6)}  ${ms(time).padStart(9)}`);
  }

  console.log(
    'the transactions answers (ms from the start): asked, headers, body ended, first commit of the account',
  );
  for (const answer of answers.filter((a) => a.endpoint === 'transactions')) {
    const first = commits.find((c) => c.accountId === answer.accountId && c.start >= answer.complete);
    const cells = [answer.asked, answer.headers, answer.complete, first?.start ?? NaN].map((t) =>
      Number.isNaN(t) ? '—' : Math.round(t).toLocaleString('en-US'),
    );
    console.log(
      `  account ${String(answer.accountId).padEnd(8)} ${cells.map((c) => c.padStart(8)).join(' ')}`,
    );
  }
} finally {
  await opened.close();
  await sandbox.stop();
}
