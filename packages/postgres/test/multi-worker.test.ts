import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { toDecimalString } from '@finsync/provider';
import { SandboxProvider, startSandboxServer, type SandboxServer } from '@finsync/provider/sandbox';
import type { ConnectionState, MirrorTransaction } from '@finsync/sync';
import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { dropSchema, url } from './helpers.js';

const child = fileURLToPath(new URL('./fixtures/worker-child.ts', import.meta.url));
const TODAY = '2026-06-30';
const CONNECTIONS = 50;
const WORKERS = 3;

interface Line {
  event: 'ready' | 'start' | 'end';
  workerId: string;
  connectionId?: string;
  ok?: boolean;
  rows?: number;
  error?: string;
  t: number;
}

function signature(
  withId: boolean,
  t: {
    id?: string | null;
    providerId?: string | null;
    amount: string;
    date: string;
    isPending: boolean;
  },
) {
  // A bank that re-issues ids shows whichever id a row had when last re-read: compare content.
  const id = withId ? (t.providerId ?? t.id ?? '-') : '?';
  return `${id}|${toDecimalString(t.amount)}|${t.date}|${t.isPending}`;
}

describe.skipIf(!url)(postgresSuiteName('several worker processes on one PostgreSQL'), () => {
  const schema = freshSchemaName();
  const servers: SandboxServer[] = [];
  const children: ChildProcess[] = [];

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.close()));
    await dropSchema(schema);
  });

  it('syncs every connection once, survives a worker killed mid-run, and never runs a connection on two workers at once', async () => {
    const sandboxes = [1, 2, 3, 4, 5].map(
      (seed) => new SandboxProvider({ seed, today: TODAY, historyDays: 45, transactionsPerDay: 3 }),
    );
    for (const sandbox of sandboxes) {
      sandbox.faults.add({ kind: 'latency', ms: 3 });
      servers.push(await startSandboxServer(sandbox));
    }
    const ids = Array.from({ length: CONNECTIONS }, (_, i) => `conn-${String(i).padStart(2, '0')}`);
    const sandboxOf = (id: string) => Number(id.slice(5)) % sandboxes.length;
    const mapping = Object.fromEntries(ids.map((id) => [id, servers[sandboxOf(id)]!.baseUrl]));

    const storage = new PostgresStorage({ connectionString: url!, schema });
    await storage.init();
    const connections: ConnectionState[] = ids.map((id) => ({
      id,
      status: 'active',
      pausedUntil: null,
      statusReason: null,
      lastRunAt: null,
      lastSuccessAt: null,
      createdAt: new Date().toISOString(),
    }));
    await storage.apply({ changes: [], connections });

    const lines: Line[] = [];
    const started = Date.now();
    const spawnWorker = (workerId: string) => {
      const proc = spawn(
        process.execPath,
        [
          '--conditions=@finsync/source',
          '--import',
          'tsx',
          child,
          url!,
          schema,
          workerId,
          JSON.stringify(mapping),
          TODAY,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      children.push(proc);
      const read = (async () => {
        for await (const line of createInterface({ input: proc.stdout! })) {
          if (line.startsWith('{')) lines.push(JSON.parse(line) as Line);
        }
      })();
      return Object.assign(proc, { read });
    };
    const workers = Array.from({ length: WORKERS }, (_, i) => spawnWorker(`worker-${i + 1}`));
    const victim = workers[0]!;

    const until = async (condition: () => boolean, what: string, timeoutMs = 90_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const open = (workerId: string) => {
      const runs = new Map<string, number>();
      for (const l of lines.filter((x) => x.workerId === workerId)) {
        if (l.event === 'start') runs.set(l.connectionId!, l.t);
        if (l.event === 'end') runs.delete(l.connectionId!);
      }
      return runs;
    };

    // Kill the first worker while it is in the middle of a run, after it has done some work.
    await until(
      () =>
        lines.filter((l) => l.workerId === 'worker-1' && l.event === 'end').length >= 2 &&
        open('worker-1').size > 0,
      'worker-1 to be mid-run',
    );
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    // What it had in flight, read once its last lines are in: a run it ended just before the kill was
    // counted twice when read before (its end line still in the pipe).
    await victim.read;
    const inFlightAtKill = [...open('worker-1').keys()];

    const succeeded = () =>
      new Set(lines.filter((l) => l.event === 'end' && l.ok).map((l) => l.connectionId));
    await until(() => ids.every((id) => succeeded().has(id)), 'every connection to be synced');
    const elapsedMs = Date.now() - started;
    for (const proc of workers.slice(1)) proc.kill('SIGTERM');
    await Promise.all(workers.slice(1).map((proc) => once(proc, 'exit')));

    // No connection ran on two workers at once: a run of the killed worker lasts until the kill.
    for (const id of ids) {
      const runs: Array<{ workerId: string; from: number; to: number }> = [];
      const startedAt = new Map<string, number>();
      for (const l of lines.filter((x) => x.connectionId === id)) {
        if (l.event === 'start') startedAt.set(l.workerId, l.t);
        if (l.event === 'end') runs.push({ workerId: l.workerId, from: startedAt.get(l.workerId)!, to: l.t });
      }
      if (inFlightAtKill.includes(id))
        runs.push({ workerId: 'worker-1', from: startedAt.get('worker-1')!, to: killedAt });
      runs.sort((a, b) => a.from - b.from);
      for (let i = 1; i < runs.length; i += 1)
        expect(runs[i]!.from, `${id} overlaps`).toBeGreaterThanOrEqual(runs[i - 1]!.to);
    }
    // What the killed worker had in flight was taken over once its leases expired.
    for (const id of inFlightAtKill) {
      const takeover = lines.find(
        (l) => l.connectionId === id && l.event === 'start' && l.workerId !== 'worker-1' && l.t > killedAt,
      );
      expect(takeover, `${id} taken over`).toBeDefined();
    }

    // Against the sandbox's ground truth: every row there, nothing twice, and a feed that replays to it.
    let rows = 0;
    for (const id of ids) {
      const sandbox = sandboxes[sandboxOf(id)]!;
      expect((await storage.getConnection(id))?.lastSuccessAt, `${id} succeeded`).not.toBeNull();
      for (const account of sandbox.listAccounts().filter((a) => a.status === 'ACTIVE')) {
        // Each purchase once: a hold the bank lists beside its posted twin is not mirrored.
        const withId = account.reissueIdsEveryDays === null;
        const expected = [...sandbox.transactionsOf(account.id, { includePending: true })]
          .filter((t) => !t.lingering)
          .map((t) => signature(withId, t))
          .sort();
        const actual = (await storage.findTransactions(id, account.id))
          .map((t) => signature(withId, t))
          .sort();
        expect(actual, `${id}/${account.id}`).toEqual(expected);
        rows += actual.length;
      }
      const replayed = new Map<string, MirrorTransaction>();
      for (const entry of await storage.readChanges({ connectionId: id, limit: 100_000 })) {
        if (entry.entity !== 'transaction') continue;
        if (entry.op === 'removed') replayed.delete(`${entry.accountId}/${entry.key}`);
        else replayed.set(`${entry.accountId}/${entry.key}`, entry.record!);
      }
      expect(replayed.size, `${id} feed`).toBe(await storage.countTransactions(id));
    }
    await storage.close();

    const runsPerWorker = Object.fromEntries(
      ['worker-1', 'worker-2', 'worker-3'].map((w) => [
        w,
        lines.filter((l) => l.workerId === w && l.event === 'end').length,
      ]),
    );
    console.log(
      `multi-worker: ${CONNECTIONS} connections, ${rows} rows, synced in ${elapsedMs} ms; runs per worker ${JSON.stringify(runsPerWorker)}; ` +
        `worker-1 killed with ${inFlightAtKill.length} run(s) in flight, taken over by the others`,
    );
    expect(runsPerWorker['worker-2']! + runsPerWorker['worker-3']!).toBeGreaterThan(0);
  }, 150_000);
});
