import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderClient } from '@finsync/provider';
import { createHarness, useMsw } from './harness.js';

useMsw();

afterEach(() => {
  vi.useRealTimers();
});

/** Lets real I/O (MSW, storage) progress while fake timers drive the schedule. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

async function waitFor(condition: () => boolean, label: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i += 1) await advance(10);
  expect(condition(), label).toBe(true);
}

describe('scheduled refresh', () => {
  it('runs each connection at start, then every interval with jitter, never two at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-06-30T12:00:00Z'));
    const h = await createHarness({
      engine: {
        intervalMs: 60 * 60_000,
        jitter: 0.1,
        clock: { now: () => new Date(), today: () => '2026-06-30' },
      },
    });
    await h.engine.addConnection({
      id: 'c2',
      client: new ProviderClient({ apiKey: 'sandbox-key', rateLimit: false, maxRetries: 0 }),
    });
    const runs: string[] = [];
    let concurrent = 0;
    let maxConcurrentSameConnection = 0;
    const active = new Map<string, number>();
    h.engine.on('run:start', ({ connectionId }) => {
      runs.push(connectionId);
      active.set(connectionId, (active.get(connectionId) ?? 0) + 1);
      concurrent += 1;
      maxConcurrentSameConnection = Math.max(maxConcurrentSameConnection, active.get(connectionId)!);
    });
    h.engine.on('run:done', ({ report }) => {
      active.set(report.connectionId, (active.get(report.connectionId) ?? 1) - 1);
      concurrent -= 1;
    });

    h.engine.start();
    await waitFor(() => runs.length === 2 && concurrent === 0, 'both connections ran once at start');
    expect(runs.sort()).toEqual(['c1', 'c2']);

    // Before 54 minutes (interval − 10 %) nothing is due.
    await advance(50 * 60_000);
    expect(runs).toHaveLength(2);
    // By 66 minutes (interval + 10 %) both have run again.
    await advance(17 * 60_000);
    await waitFor(() => runs.length === 4 && concurrent === 0, 'both ran again within interval ± jitter');
    expect(maxConcurrentSameConnection).toBe(1);

    await h.engine.stop();
    await advance(3 * 60 * 60_000);
    expect(runs).toHaveLength(4);
  });

  it('does not schedule a connection that needs re-auth, and resumes once its key changes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-06-30T12:00:00Z'));
    const h = await createHarness({
      engine: { intervalMs: 60_000, clock: { now: () => new Date(), today: () => '2026-06-30' } },
    });
    h.sandbox.setApiKey('new-key');
    const runs: string[] = [];
    h.engine.on('run:start', ({ connectionId }) => runs.push(connectionId));
    h.engine.start();
    await waitFor(() => runs.length === 1 && !h.engine.isSyncing('c1'), 'first run');
    await advance(10 * 60_000);
    expect(runs).toHaveLength(1);
    expect((await h.engine.getConnection('c1'))?.status).toBe('reauth_required');

    await h.engine.updateCredentials('c1', {
      client: new ProviderClient({ apiKey: 'new-key', rateLimit: false, maxRetries: 0 }),
    });
    await waitFor(() => runs.length === 2 && !h.engine.isSyncing('c1'), 'runs again after the key changed');
    expect((await h.engine.getConnection('c1'))?.status).toBe('active');
    await h.engine.stop();
  });

  it('stop({ abort: true }) aborts in-flight work and resolves with the store consistent', async () => {
    const h = await createHarness({
      sandbox: { historyDays: 300 },
      engine: { startDate: '2025-09-10', windowDays: 10 },
    });
    h.sandbox.faults.add({ kind: 'latency', ms: 30 });
    let reports = 0;
    h.engine.on('run:done', () => (reports += 1));
    h.engine.start();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(h.engine.isSyncing('c1')).toBe(true);
    await h.engine.stop({ abort: true });
    expect(h.engine.isSyncing('c1')).toBe(false);
    expect(reports).toBe(1);
    const total = await h.storage.countTransactions('c1');
    expect(total).toBeLessThan(
      [...h.sandbox.listAccounts()].reduce(
        (n, a) => n + h.sandbox.countTransactions(a.id, { includePending: true }),
        0,
      ),
    );
  });
});
