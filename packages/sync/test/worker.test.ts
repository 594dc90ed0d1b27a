import { ProviderClient } from '@finsync/provider';
import { SandboxProvider } from '@finsync/provider/sandbox';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { LeaseLostError, MemoryStorage, SyncEngine, SyncWorker, type WorkerRunEvent } from '../src/index.js';
import { connectionState } from '../src/testing/fixtures.js';
import { server, useMsw } from './harness.js';

useMsw();

function sandboxAt(host: string, seed: number) {
  const sandbox = new SandboxProvider({ seed, historyDays: 20, transactionsPerDay: 2 });
  server.use(http.all(`https://${host}/api/v1/*`, ({ request }) => sandbox.handle(request)));
  return sandbox;
}

describe('SyncWorker', () => {
  for (const [how, offsetMs] of [
    ['behind', -3_600_000],
    ['ahead of', 3_600_000],
  ] as const) {
    it(`judges its lease by its own clock, an hour ${how} the machine's: the run commits`, async () => {
      const storage = new MemoryStorage();
      const sandbox = sandboxAt('clock.test', 3);
      await storage.apply({ changes: [], connections: [connectionState('c1')] });
      const worker = new SyncWorker({
        storage,
        workerId: 'w1',
        leaseMs: 60_000,
        pollIntervalMs: 20,
        clock: { now: () => new Date(Date.now() + offsetMs), today: () => sandbox.today },
        credentials: async () =>
          new ProviderClient({
            apiKey: 'sandbox-key',
            baseUrl: 'https://clock.test/api/v1',
            rateLimit: false,
            maxRetries: 0,
          }),
      });
      const ran = new Promise<WorkerRunEvent>((resolve) => worker.onRun(resolve));
      worker.start();
      const event = await ran;
      await worker.stop();
      expect(event.error).toBeUndefined();
      expect(event.report?.ok, JSON.stringify(event.report?.issues)).toBe(true);
      expect(await storage.countTransactions('c1')).toBeGreaterThan(0);
    });
  }

  it("the memory storage's fence judges a lease at the batch's time: held before it ends, lost after, a bad time refused", async () => {
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    // A worker whose clock is a year ahead of the machine's.
    const T = new Date(Date.now() + 365 * 86_400_000);
    expect(await storage.claimDue('w1', { limit: 1, leaseMs: 1_000, now: T })).toEqual(['c1']);
    const at = (ms: number) => new Date(T.getTime() + ms).toISOString();
    const fenced = (time: string) =>
      storage.apply({ changes: [], fence: { connectionId: 'c1', workerId: 'w1', at: time } });
    await expect(fenced(at(500))).resolves.toBeUndefined();
    // Past its lease by its own clock, though not by the machine's: refused.
    await expect(fenced(at(1_500))).rejects.toBeInstanceOf(LeaseLostError);
    // Only a timestamp: Date.parse alone reads "1" and "Nov 30 1999" as times long past any lease.
    for (const time of ['not a time', '1', 'Nov 30 1999', '2026'])
      await expect(fenced(time)).rejects.toThrow(/fence.at must be an ISO timestamp/);
  });

  it('several workers over one store sync every connection exactly once at a time', async () => {
    const storage = new MemoryStorage();
    const sandboxes = [sandboxAt('a.test', 1), sandboxAt('b.test', 2)];
    const ids = Array.from({ length: 12 }, (_, i) => `conn-${i}`);
    await storage.apply({ changes: [], connections: ids.map((id) => connectionState(id)) });
    const credentials = async (id: string) =>
      new ProviderClient({
        apiKey: 'sandbox-key',
        baseUrl: `https://${Number(id.split('-')[1]) % 2 ? 'b' : 'a'}.test/api/v1`,
        rateLimit: false,
        maxRetries: 0,
      });

    const running = new Map<string, string>();
    let overlaps = 0;
    const runs: WorkerRunEvent[] = [];
    const workers = ['w1', 'w2', 'w3'].map((workerId) => {
      const worker = new SyncWorker({
        storage,
        credentials,
        workerId,
        concurrency: 2,
        leaseMs: 5_000,
        pollIntervalMs: 20,
        clock: { today: () => sandboxes[0]!.today },
      });
      worker.on('run:start', ({ connectionId }) => {
        if (running.has(connectionId)) overlaps += 1;
        running.set(connectionId, workerId);
      });
      worker.onRun((event) => {
        running.delete(event.connectionId);
        runs.push(event);
      });
      return worker;
    });
    for (const w of workers) w.start();
    for (let i = 0; i < 200 && runs.length < ids.length; i += 1) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(workers.map((w) => w.stop()));

    expect(overlaps).toBe(0);
    expect(runs.map((r) => r.connectionId).sort()).toEqual([...ids].sort());
    expect(runs.every((r) => r.report?.ok)).toBe(true);
    expect(new Set(runs.map((r) => r.workerId)).size).toBeGreaterThan(1);
    // Each connection is done and not due again for about an interval.
    const leases = await storage.listLeases();
    expect(
      leases.every((l) => l.workerId === null && Date.parse(l.nextRunAt!) > Date.now() + 60 * 60_000),
    ).toBe(true);
    for (const id of ids) expect(await storage.countTransactions(id)).toBeGreaterThan(0);
  });

  it('stopped while a claim is in flight, it starts nothing and gives the leases back at once', async () => {
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: ['c1', 'c2'].map((id) => connectionState(id)) });
    // The storage answers the claim only after stop() was called.
    let answerClaim!: () => void;
    const claimAnswered = new Promise<void>((resolve) => (answerClaim = resolve));
    const claimDue = storage.claimDue.bind(storage);
    storage.claimDue = async (...args) => {
      const claimed = await claimDue(...args);
      await claimAnswered;
      return claimed;
    };
    let started = 0;
    const worker = new SyncWorker({
      storage,
      credentials: async () => undefined,
      workerId: 'w1',
      leaseMs: 60_000,
      pollIntervalMs: 10,
    });
    worker.on('run:start', () => (started += 1));
    worker.start();
    await new Promise((r) => setTimeout(r, 20));
    const stopped = worker.stop();
    answerClaim();
    await stopped;
    expect(started).toBe(0);
    expect((await storage.listLeases()).every((l) => l.workerId === null)).toBe(true);
    // Due at once for the next worker.
    expect(await storage.claimDue('w2', { limit: 5, leaseMs: 60_000, now: new Date() })).toHaveLength(2);
  });

  it('a run whose lease is taken over stops at its next write, with a report, calling the provider no more', async () => {
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    const sandbox = sandboxAt('lost.test', 3);
    sandbox.faults.add({ kind: 'latency', ms: 30, match: { endpoint: 'transactions' } });
    const worker = new SyncWorker({
      storage,
      credentials: async () =>
        new ProviderClient({
          apiKey: 'sandbox-key',
          baseUrl: 'https://lost.test/api/v1',
          rateLimit: false,
          maxRetries: 0,
        }),
      workerId: 'w1',
      leaseMs: 60_000,
      pollIntervalMs: 10,
      clock: { today: () => sandbox.today },
    });
    const runs: WorkerRunEvent[] = [];
    worker.onRun((event) => runs.push(event));
    let accountsDone = 0;
    worker.on('account:done', () => (accountsDone += 1));
    worker.start();
    while (accountsDone < 1) await new Promise((r) => setTimeout(r, 5));
    // Another worker judges the lease expired (a minute on) and takes it.
    expect(
      await storage.claimDue('w2', { limit: 1, leaseMs: 60_000, now: new Date(Date.now() + 61_000) }),
    ).toEqual(['c1']);
    const requestsAtTakeOver = sandbox.requests.length;
    while (runs.length === 0) await new Promise((r) => setTimeout(r, 5));
    await worker.stop();
    const [run] = runs;
    expect(run!.error).toBeUndefined();
    expect(run!.report!.ok).toBe(false);
    expect(run!.report!.issues.at(-1)!.error).toBeInstanceOf(LeaseLostError);
    // At most the requests already under way, and the next account's, sent ahead.
    expect(sandbox.requests.length - requestsAtTakeOver).toBeLessThanOrEqual(3);
    expect((await storage.listLeases()).find((l) => l.connectionId === 'c1')?.workerId).toBe('w2');
  });

  it('stopped with abort, gives its connections back due now, not five minutes on', async () => {
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    const sandbox = sandboxAt('stop.test', 4);
    sandbox.faults.add({ kind: 'latency', ms: 30 });
    const worker = new SyncWorker({
      storage,
      credentials: async () =>
        new ProviderClient({
          apiKey: 'sandbox-key',
          baseUrl: 'https://stop.test/api/v1',
          rateLimit: false,
          maxRetries: 0,
        }),
      workerId: 'w1',
      pollIntervalMs: 10,
      clock: { today: () => sandbox.today },
    });
    let started = false;
    worker.on('run:start', () => (started = true));
    worker.start();
    while (!started) await new Promise((r) => setTimeout(r, 5));
    await worker.stop({ abort: true });
    const [lease] = await storage.listLeases();
    expect(lease!.workerId).toBeNull();
    expect(Date.parse(lease!.nextRunAt!)).toBeLessThanOrEqual(Date.now());
  });

  it('a write fenced by a lease the worker no longer holds is refused and changes nothing', async () => {
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    expect(await storage.claimDue('w1', { limit: 5, leaseMs: 1, now: new Date() })).toEqual(['c1']);
    await new Promise((r) => setTimeout(r, 5));
    expect(await storage.renewLease('c1', 'w1', { leaseMs: 1_000, now: new Date() })).toBe(false);
    expect(await storage.claimDue('w2', { limit: 5, leaseMs: 60_000, now: new Date() })).toEqual(['c1']);
    const seq = await storage.lastSeq();
    await expect(
      storage.apply({
        changes: [
          {
            entity: 'account',
            op: 'added',
            connectionId: 'c1',
            accountId: 'a',
            key: 'a',
            record: {
              connectionId: 'c1',
              id: 'a',
              name: 'A',
              institutionName: null,
              institutionLogo: null,
              provider: null,
              upstreamStatus: 'ACTIVE',
              currency: null,
              state: 'active',
              balance: null,
              reconciliation: null,
            },
          },
        ],
        fence: { connectionId: 'c1', workerId: 'w1' },
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(await storage.lastSeq()).toBe(seq);
    expect(await storage.claimDue('w3', { limit: 5, leaseMs: 60_000, now: new Date() })).toEqual([]);
  });

  it('does not claim connections that wait for re-auth, are paused, or are not due', async () => {
    const storage = new MemoryStorage();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await storage.apply({
      changes: [],
      connections: [
        connectionState('ok'),
        connectionState('reauth', { status: 'reauth_required' }),
        connectionState('paused', { status: 'paused', pausedUntil: future }),
        connectionState('later'),
      ],
    });
    const first = await storage.claimDue('x', { limit: 10, leaseMs: 60_000, now: new Date() });
    expect(first.sort()).toEqual(['later', 'ok']);
    // Leased connections are not due for anyone else.
    expect(await storage.claimDue('y', { limit: 10, leaseMs: 60_000, now: new Date() })).toEqual([]);
    await storage.releaseLease('later', 'x', new Date(Date.now() + 3_600_000));
    await storage.releaseLease('ok', 'x', new Date(Date.now() - 1));
    expect(await storage.claimDue('y', { limit: 10, leaseMs: 60_000, now: new Date() })).toEqual(['ok']);
  });

  it('a connection removed while its run is being set up stays removed: nothing stored again, nothing synced', async () => {
    const storage = new MemoryStorage();
    const sandbox = sandboxAt('gone.test', 5);
    await storage.apply({ changes: [], connections: [connectionState('gone')] });
    const runs: WorkerRunEvent[] = [];
    const worker = new SyncWorker({
      storage,
      // The user deletes the connection while the worker looks its key up.
      credentials: async (id) => {
        await storage.removeConnection(id);
        return {
          apiKey: 'sandbox-key',
          clientOptions: { baseUrl: 'https://gone.test/api/v1', rateLimit: false },
        };
      },
      leaseMs: 5_000,
      pollIntervalMs: 20,
      clock: { today: () => sandbox.today },
    });
    worker.onRun((event) => runs.push(event));
    worker.start();
    for (let i = 0; i < 50 && runs.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100)); // time for a second claim, were it due
    await worker.stop();
    expect(runs).toHaveLength(1);
    expect(await storage.getConnection('gone')).toBeUndefined();
    expect(await storage.countTransactions('gone')).toBe(0);
    expect(await storage.lastSeq()).toBe(0);
  });

  it("a new key given from another process during a run with the old one: the old key's 401 does not stick", async () => {
    const storage = new MemoryStorage();
    const sandbox = sandboxAt('rotate.test', 6);
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    // The app's key store: the worker reads it at each claim.
    let key = 'old-key';
    let firstAnswer!: () => void;
    const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
    let oldKeyAsked!: () => void;
    const asked = new Promise<void>((resolve) => (oldKeyAsked = resolve));
    server.use(
      http.all('https://rotate.test/api/v1/*', async ({ request }) => {
        if (request.headers.get('x-api-key') !== 'old-key')
          return sandbox.handle(new Request(request, { headers: { 'x-api-key': 'sandbox-key' } }));
        oldKeyAsked();
        await answered; // the old key's answer comes after the new key is given
        return new Response(JSON.stringify({ error: 'unauthorized', message: 'API key invalid' }), {
          status: 401,
        });
      }),
    );
    const credentials = async () => ({
      apiKey: key,
      clientOptions: { baseUrl: 'https://rotate.test/api/v1', rateLimit: false as const, maxRetries: 0 },
    });
    const runs: WorkerRunEvent[] = [];
    const worker = new SyncWorker({
      storage,
      credentials,
      leaseMs: 5_000,
      pollIntervalMs: 20,
      intervalMs: 60 * 60_000,
      clock: { today: () => sandbox.today },
    });
    worker.onRun((event) => runs.push(event));
    worker.start();
    await asked;
    // Another process (the app) stores the new key and tells its own engine.
    key = 'new-key';
    const app = new SyncEngine({ storage });
    await app.updateCredentials('c1', await credentials());
    // The old key's 401 comes later: meanwhile this same worker claims the connection again (due now).
    await new Promise((r) => setTimeout(r, 300));
    firstAnswer();
    for (let i = 0; i < 100 && !runs.some((r) => r.report?.ok); i += 1)
      await new Promise((r) => setTimeout(r, 20));
    await worker.stop();
    expect((await storage.getConnection('c1'))?.status).toBe('active');
    expect(runs.some((r) => r.report?.ok)).toBe(true);
  });

  it('a worker restarted under the same id leases under owners of its own: the run before cannot pass its fence', async () => {
    const storage = new MemoryStorage();
    const owners: string[][] = [];
    const claimDue = storage.claimDue.bind(storage);
    for (let instance = 0; instance < 2; instance += 1) {
      const mine: string[] = [];
      owners.push(mine);
      storage.claimDue = async (owner, options) => (mine.push(owner), claimDue(owner, options));
      const worker = new SyncWorker({
        storage,
        credentials: async () => undefined,
        workerId: 'pod-1',
        pollIntervalMs: 5,
      });
      worker.start();
      while (mine.length < 2) await new Promise((r) => setTimeout(r, 5));
      await worker.stop();
    }
    const [before, after] = [owners[0]!, owners[1]!];
    for (const owner of [...before, ...after]) expect(owner.startsWith('pod-1#')).toBe(true);
    // No owner of the instance before comes back: its first claim's owner is not the restarted one's.
    expect(after.filter((owner) => before.includes(owner))).toEqual([]);
    // So the stalled run of the instance before is fenced out once the restarted one holds the lease.
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    expect(await storage.claimDue(after[0]!, { limit: 1, leaseMs: 60_000, now: new Date() })).toEqual(['c1']);
    await expect(
      storage.apply({
        changes: [],
        fence: { connectionId: 'c1', workerId: before[0]!, at: new Date().toISOString() },
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('claims one poll at a time: never more runs than its concurrency, however slow the claims', async () => {
    const storage = new MemoryStorage();
    const sandbox = sandboxAt('slowclaim.test', 5);
    sandbox.faults.add({ kind: 'latency', ms: 20 });
    const ids = Array.from({ length: 12 }, (_, i) => `c${i}`);
    await storage.apply({ changes: [], connections: ids.map((id) => connectionState(id)) });
    let claiming = 0;
    let mostClaiming = 0;
    const claimDue = storage.claimDue.bind(storage);
    // A database a little way off: each claim answers 80 ms after it is made.
    storage.claimDue = async (owner, options) => {
      claiming += 1;
      mostClaiming = Math.max(mostClaiming, claiming);
      const claimed = await claimDue(owner, options);
      await new Promise((r) => setTimeout(r, 80));
      claiming -= 1;
      return claimed;
    };
    const worker = new SyncWorker({
      storage,
      concurrency: 2,
      pollIntervalMs: 30,
      clock: { today: () => sandbox.today },
      credentials: async () =>
        new ProviderClient({
          apiKey: 'sandbox-key',
          baseUrl: 'https://slowclaim.test/api/v1',
          rateLimit: false,
          maxRetries: 0,
        }),
    });
    let active = 0;
    let mostActive = 0;
    let done = 0;
    worker.on('run:start', () => {
      active += 1;
      mostActive = Math.max(mostActive, active);
    });
    worker.onRun(() => {
      active -= 1;
      done += 1;
    });
    worker.start();
    for (let i = 0; i < 500 && done < ids.length; i += 1) await new Promise((r) => setTimeout(r, 20));
    await worker.stop();
    expect(done).toBe(ids.length);
    expect(mostActive).toBeLessThanOrEqual(2);
    expect(mostClaiming).toBe(1);
    expect((await storage.listLeases()).every((l) => l.workerId === null)).toBe(true);
  });

  it('stopped with abort while a run waits behind an earlier one of its connection: the waiting run never starts', async () => {
    const storage = new MemoryStorage();
    const sandbox = sandboxAt('chained.test', 4);
    sandbox.faults.add({ kind: 'latency', ms: 30 });
    await storage.apply({ changes: [], connections: [connectionState('c1')] });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let asks = 0;
    const worker = new SyncWorker({
      storage,
      leaseMs: 3_600_000,
      pollIntervalMs: 20,
      clock: { today: () => sandbox.today },
      credentials: async () => {
        asks += 1;
        if (asks === 1) await gate; // the first run is held while it is set up
        return {
          apiKey: 'sandbox-key',
          clientOptions: { baseUrl: 'https://chained.test/api/v1', rateLimit: false as const, maxRetries: 0 },
        };
      },
    });
    const runs: WorkerRunEvent[] = [];
    worker.onRun((event) => runs.push(event));
    worker.start();
    while (asks < 1) await new Promise((r) => setTimeout(r, 5));
    // Another process gives the connection a new key: its lease is revoked, due now, and this same
    // worker claims it again; that run waits for the first to end.
    await new SyncEngine({ storage }).updateCredentials('c1', { apiKey: 'sandbox-key' });
    while ((await storage.listLeases())[0]!.workerId === null) await new Promise((r) => setTimeout(r, 5));
    const requestsBefore = sandbox.requests.length;
    const stopping = worker.stop({ abort: true });
    release();
    await stopping;
    expect(runs.filter((r) => r.report?.ok)).toEqual([]);
    expect(asks).toBe(1);
    expect(sandbox.requests.length - requestsBefore).toBe(0);
    const [lease] = await storage.listLeases();
    expect(lease!.workerId).toBeNull();
    expect(Date.parse(lease!.nextRunAt!)).toBeLessThanOrEqual(Date.now());
  });

  it('refuses an interval past ten years, which no date can follow', () => {
    const storage = new MemoryStorage();
    expect(() => new SyncWorker({ storage, credentials: async () => undefined, intervalMs: 1e16 })).toThrow(
      /intervalMs must be .* at most ten years/,
    );
    expect(() => new SyncEngine({ storage, intervalMs: 1e16 })).toThrow(RangeError);
  });
});
