/**
 * A run's life beside the calls a user makes while it runs: a new key, a stop, a second caller, an
 * abort before it began, a store or a logger that fails. Each ends with a report, and nothing is
 * left to undo what the user did.
 */
import { ProviderClient } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, SyncAbortedError, SyncEngine, type WriteBatch } from '../src/index.js';
import { createHarness, useMsw } from './harness.js';

useMsw();

const client = (apiKey: string) => new ProviderClient({ apiKey, rateLimit: false, maxRetries: 0 });

/** Resolves at the run's first progress event: the run is under way. */
const underWay = (engine: SyncEngine) =>
  new Promise<void>((resolve) => {
    const off = engine.on('progress', () => {
      off();
      resolve();
    });
  });

describe('a new key given while a run is in flight', () => {
  it('stops the run with the old key, so its refusal does not undo the new key', async () => {
    const h = await createHarness();
    h.sandbox.faults.add({ kind: 'latency', ms: 50 });
    const run = h.engine.sync('c1');
    await underWay(h.engine);
    h.sandbox.setApiKey('new-key');
    const state = await h.engine.updateCredentials('c1', { client: client('new-key') });
    expect(state.status).toBe('active');
    const stopped = await run;
    expect(stopped.ok).toBe(false);
    expect(stopped.status).toBe('active');
    expect((await h.engine.getConnection('c1'))?.status).toBe('active');
    h.sandbox.faults.clear();
    expect((await h.engine.sync('c1')).outcome).toBe('success');
  });
});

describe('a new key, and a sync asked for as soon as the old run has stopped', () => {
  it('runs with the new key: nothing can start with the old one once updateCredentials is called', async () => {
    /** A networked store: each read of a connection takes a round trip. */
    class SlowReads extends MemoryStorage {
      override async getConnection(id: string) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return super.getConnection(id);
      }
    }
    const h = await createHarness({ storage: new SlowReads() });
    h.sandbox.faults.add({ kind: 'latency', ms: 50 });
    const first = h.engine.sync('c1');
    await underWay(h.engine);
    h.sandbox.setApiKey('new-key');
    // Another caller (the page, the scheduler) asks for a sync the moment no run is in flight.
    let second: Promise<{ outcome: string }> | undefined;
    const poll = setInterval(() => {
      if (!second && !h.engine.isSyncing('c1')) second = h.engine.sync('c1');
    }, 1);
    try {
      expect((await h.engine.updateCredentials('c1', { client: client('new-key') })).status).toBe('active');
      await first;
      while (!second) await new Promise((resolve) => setTimeout(resolve, 1));
    } finally {
      clearInterval(poll);
    }
    expect((await second).outcome).toBe('success');
    expect((await h.engine.getConnection('c1'))?.status).toBe('active');
  });
});

describe('a signal', () => {
  it('already aborted skips the run: nothing is called or written', async () => {
    const h = await createHarness();
    const before = h.sandbox.requests.length;
    const report = await h.engine.sync('c1', { signal: AbortSignal.abort() });
    expect(report.outcome).toBe('skipped');
    expect(h.sandbox.requests.length).toBe(before);
    expect(await h.storage.lastSeq()).toBe(0);
    expect((await h.engine.getConnection('c1'))?.lastRunAt).toBeNull();
  });

  it("of a caller who joined a run stops that caller's wait only, while another still waits", async () => {
    const h = await createHarness();
    h.sandbox.faults.add({ kind: 'latency', ms: 30 });
    const first = h.engine.sync('c1');
    const controller = new AbortController();
    const second = h.engine.sync('c1', { signal: controller.signal });
    await underWay(h.engine);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(SyncAbortedError);
    expect((await first).outcome).toBe('success');
  });

  it('of every caller stops the run, and the last to abort gets its report', async () => {
    const h = await createHarness();
    h.sandbox.faults.add({ kind: 'latency', ms: 30 });
    const [a, b] = [new AbortController(), new AbortController()];
    const first = h.engine.sync('c1', { signal: a.signal });
    const second = h.engine.sync('c1', { signal: b.signal });
    await underWay(h.engine);
    a.abort();
    await expect(first).rejects.toBeInstanceOf(SyncAbortedError);
    b.abort();
    const report = await second;
    expect(report.ok).toBe(false);
    expect(h.engine.isSyncing('c1')).toBe(false);
  });
});

describe('a caller without a signal', () => {
  it('asking while a stopped run winds down gets a run of its own, not the stopped one', async () => {
    const h = await createHarness();
    h.sandbox.faults.add({ kind: 'latency', ms: 30 });
    const only = new AbortController();
    const first = h.engine.sync('c1', { signal: only.signal });
    await underWay(h.engine);
    only.abort();
    const later = await h.engine.sync('c1');
    expect(later.outcome).toBe('success');
    expect((await first).ok).toBe(false);
  });
});

describe('a run stopped from our side', () => {
  it('does not count as the last run: the scheduler runs a connection never synced at once', async () => {
    const h = await createHarness();
    h.sandbox.faults.add({ kind: 'latency', ms: 30 });
    const controller = new AbortController();
    const stopped = h.engine.sync('c1', { signal: controller.signal });
    await underWay(h.engine);
    controller.abort();
    // The only caller: it gets the stopped run's report.
    expect((await stopped).ok).toBe(false);
    expect((await h.engine.getConnection('c1'))?.lastRunAt).toBeNull();
    h.sandbox.faults.clear();
    // A six-hour interval: only a connection due now runs.
    const ran = new Promise<string>((resolve) =>
      h.engine.on('run:done', ({ report }) => resolve(report.outcome)),
    );
    h.engine.start();
    try {
      expect(await ran).toBe('success');
    } finally {
      await h.engine.stop();
    }
  });
});

describe('stop({ abort: true })', () => {
  it('stops a run started in the same tick, and waits for it', async () => {
    const h = await createHarness();
    const run = h.engine.sync('c1');
    await h.engine.stop({ abort: true });
    expect(h.engine.isSyncing('c1')).toBe(false);
    const report = await run;
    expect(report.ok).toBe(false);
    expect(report.outcome).toBe('skipped');
  });
});

/** A memory storage whose `failAt`-th write (1-based, counting every apply) fails once. */
class FailingOnce extends MemoryStorage {
  writes = 0;
  constructor(readonly failAt: (batch: WriteBatch, n: number) => boolean) {
    super();
  }
  override async apply(batch: WriteBatch): Promise<void> {
    this.writes += 1;
    if (this.failAt(batch, this.writes)) throw new Error('database is locked');
    return super.apply(batch);
  }
}

describe('a write that fails', () => {
  it("in one account's closing write is that account's issue; the other accounts sync and the run reports", async () => {
    const storage = new FailingOnce((batch) =>
      Boolean(
        batch.accountStates?.some((s) => s.accountId === '4712') &&
        batch.changes.every((c) => c.entity !== 'transaction'),
      ),
    );
    const h = await createHarness({ storage });
    const report = await h.engine.sync('c1');
    expect(report.outcome).toBe('partial');
    expect(report.issues.map((i) => [i.stage, i.accountId, i.message])).toContainEqual([
      'storage',
      '4712',
      'database is locked',
    ]);
    expect(report.accounts.filter((a) => a.issues.length === 0).length).toBe(report.accounts.length - 1);
    expect((await h.engine.getConnection('c1'))?.lastRunAt).not.toBeNull();
  });

  it("of the run's own state is reported, not thrown", async () => {
    let armed = false;
    const storage = new FailingOnce(
      (batch) => armed && Boolean(batch.connections?.length) && batch.changes.length === 0,
    );
    const h = await createHarness({ storage });
    armed = true;
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(false);
    expect(report.issues.at(-1)).toMatchObject({
      stage: 'storage',
      accountId: null,
      message: 'database is locked',
    });
  });
});

describe('a logger that throws', () => {
  it('breaks nothing: the run ends with its report and its run:done event', async () => {
    const h = await createHarness();
    const throwing = {
      info: () => {
        throw new Error('log sink down');
      },
      warn: () => {
        throw new Error('log sink down');
      },
    };
    const engine = new SyncEngine({ storage: h.storage, logger: throwing });
    await engine.addConnection({ id: 'c1', client: client('sandbox-key') });
    let done = false;
    engine.on('run:done', () => (done = true));
    expect((await engine.sync('c1')).outcome).toBe('success');
    expect(done).toBe(true);
  });
});

describe('stop() while a scheduled run is in its beforeScheduledRun hook', () => {
  it('waits for the hook, and then no run starts', async () => {
    const h = await createHarness();
    const engine = new SyncEngine({
      storage: h.storage,
      clock: { now: () => new Date(`${h.sandbox.today}T12:00:00Z`), today: () => h.sandbox.today },
      beforeScheduledRun: () => new Promise((resolve) => setTimeout(resolve, 50)),
    });
    await engine.addConnection({ id: 'c1', client: client('sandbox-key') });
    let started = 0;
    engine.on('run:start', () => (started += 1));
    const before = h.sandbox.requests.length;
    engine.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await engine.stop({ abort: true });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(started).toBe(0);
    expect(h.sandbox.requests.length).toBe(before);
  });
});

describe('the schedule', () => {
  it.each([
    [{ intervalMs: 0 }, /intervalMs must be a positive number/],
    [{ intervalMs: -1000 }, /intervalMs must be a positive number/],
    [{ intervalMs: Number.NaN }, /intervalMs must be a positive number/],
    [{ jitter: 1 }, /jitter must be within 0/],
    [{ concurrency: 0 }, /concurrency must be a whole number/],
  ])('refuses %o instead of syncing without pause or not at all', (options, message) => {
    expect(() => new SyncEngine({ storage: new MemoryStorage(), ...options })).toThrow(message);
  });
});
