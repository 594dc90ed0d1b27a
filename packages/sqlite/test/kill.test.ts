import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { toDecimalString } from '@finsync/provider';
import { SandboxProvider, startSandboxServer, type SandboxServer } from '@finsync/provider/sandbox';
import type { MirrorTransaction } from '@finsync/sync';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../src/index.js';

const child = fileURLToPath(new URL('./fixtures/sync-child.ts', import.meta.url));

/** Runs the child sync; with `killAfter`, sends SIGKILL once it has reported that many progress events. */
async function runChild(filename: string, baseUrl: string, today: string, killAfter?: number) {
  const proc = spawn(
    process.execPath,
    ['--conditions=@finsync/source', '--import', 'tsx', child, filename, baseUrl, today],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let progress = 0;
  let killed = false;
  for await (const line of createInterface({ input: proc.stdout })) {
    if (line.startsWith('progress')) progress += 1;
    if (killAfter !== undefined && progress >= killAfter && !killed) {
      proc.kill('SIGKILL');
      killed = true;
    }
  }
  const [code, signal] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal, stderr, progress, killed };
}

function signature(
  withId: boolean,
  t: {
    id?: string | null;
    providerId?: string | null;
    amount: string;
    date: string;
    isPending: boolean;
    merchant: string | null;
  },
) {
  // A bank that re-issues ids shows whichever id a row had when last re-read: compare content.
  const id = withId ? (t.providerId ?? t.id ?? '-') : '?';
  return `${id}|${toDecimalString(t.amount)}|${t.date}|${t.isPending}|${t.merchant ?? ''}`;
}

async function expectConsistent(filename: string, sandbox: SandboxProvider) {
  const storage = new SqliteStorage({ filename });
  await storage.init();
  try {
    expect(storage.database.pragma('integrity_check', { simple: true })).toBe('ok');
    for (const account of sandbox.listAccounts().filter((a) => a.status === 'ACTIVE')) {
      // Each purchase once: a hold the bank lists beside its posted twin is not mirrored.
      const withId = account.reissueIdsEveryDays === null;
      const expected = [...sandbox.transactionsOf(account.id, { includePending: true, from: '2026-01-01' })]
        .filter((t) => !t.lingering)
        .map((t) => signature(withId, t))
        .sort();
      const actual = (await storage.findTransactions('kill', account.id))
        .map((t) => signature(withId, t))
        .sort();
      expect(actual, `account ${account.id}`).toEqual(expected);
    }
    // The feed replays to exactly the mirror: nothing lost, nothing added twice.
    const replayed = new Map<string, MirrorTransaction>();
    for (let after = 0; ;) {
      const page = await storage.readChanges({ after, limit: 2_000, connectionId: 'kill' });
      if (page.length === 0) break;
      for (const entry of page) {
        if (entry.entity !== 'transaction') continue;
        const key = `${entry.accountId}/${entry.key}`;
        if (entry.op === 'removed') replayed.delete(key);
        else replayed.set(key, entry.record!);
      }
      after = page.at(-1)!.seq;
    }
    expect(replayed.size).toBe(await storage.countTransactions('kill'));
    for await (const row of storage.scanTransactions('kill'))
      expect(replayed.get(`${row.accountId}/${row.key}`)).toEqual(row);
  } finally {
    await storage.close();
  }
}

describe('SIGKILL at any point (child process)', () => {
  let dir: string;
  let sandbox: SandboxProvider;
  let server: SandboxServer;

  beforeAll(async () => {
    dir = makeTempDir('kill');
    sandbox = new SandboxProvider({ seed: 11, today: '2026-06-30', historyDays: 181, transactionsPerDay: 4 });
    sandbox.faults.add({ kind: 'latency', ms: 3 });
    server = await startSandboxServer(sandbox);
  });

  afterAll(async () => {
    await server.close();
    removeTempDir(dir);
  });

  it('leaves a consistent store that the next run completes, with nothing lost or duplicated', async () => {
    const filename = join(dir, 'kill.db');
    // Kill the first sync at several depths; each restart resumes from what was committed.
    let kills = 0;
    for (const killAfter of [2, 5, 9, 14, 20]) {
      const run = await runChild(filename, server.baseUrl, sandbox.today, killAfter);
      if (!run.killed) break;
      expect(run.signal, run.stderr).toBe('SIGKILL');
      kills += 1;
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    const finished = await runChild(filename, server.baseUrl, sandbox.today);
    expect(finished.code, finished.stderr).toBe(0);
    await expectConsistent(filename, sandbox);

    // A new day (pending rows post, new rows arrive), killed mid-run, then completed.
    sandbox.advanceDays(3);
    const killed = await runChild(filename, server.baseUrl, sandbox.today, 3);
    expect(killed.killed || killed.code === 0, killed.stderr).toBe(true);
    const done = await runChild(filename, server.baseUrl, sandbox.today);
    expect(done.code, done.stderr).toBe(0);
    await expectConsistent(filename, sandbox);
  }, 120_000);
});
