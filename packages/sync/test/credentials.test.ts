import { ProviderClient } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { MissingCredentialsError, SyncEngine, type ConnectionReport } from '../src/index.js';
import { BASE, createHarness, useMsw } from './harness.js';

useMsw();

const clock = (today: () => string) => ({ now: () => new Date(`${today()}T12:00:00Z`), today });

describe('connections that survive a restart', () => {
  it('without a key, a stored connection is reported as skipped (MissingCredentialsError), never silently', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    const restarted = new SyncEngine({ storage: h.storage, clock: clock(() => h.sandbox.today) });
    const report = await restarted.sync('c1');
    expect(report).toMatchObject({ ok: false, outcome: 'skipped' });
    expect(report.issues[0]!.error).toBeInstanceOf(MissingCredentialsError);
    expect(report.issues[0]!.message).toMatch(/no API key for connection "c1"/);
    await expect(restarted.sync('nope')).rejects.toThrow(/no connection/);
  });

  it('with a credentials source, every stored connection syncs after a restart, on demand and on schedule', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    const asked: string[] = [];
    const restarted = new SyncEngine({
      storage: h.storage,
      clock: clock(() => h.sandbox.today),
      intervalMs: 60_000,
      credentials: (id) => {
        asked.push(id);
        return { apiKey: 'sandbox-key', clientOptions: { rateLimit: false, maxRetries: 0, baseUrl: BASE } };
      },
    });
    const all = await restarted.sync();
    expect(all.connections.map((c) => [c.connectionId, c.ok])).toEqual([['c1', true]]);
    expect(asked).toEqual(['c1']); // asked once, then kept

    const scheduled = new SyncEngine({
      storage: h.storage,
      clock: clock(() => h.sandbox.today),
      intervalMs: 60_000,
      credentials: () => ({
        client: new ProviderClient({ apiKey: 'sandbox-key', rateLimit: false, baseUrl: BASE }),
      }),
    });
    h.sandbox.advanceDays(1);
    const done = new Promise<ConnectionReport>((resolve) =>
      scheduled.on('run:done', ({ report }) => resolve(report)),
    );
    scheduled.start();
    const report = await done;
    await scheduled.stop();
    expect(report).toMatchObject({ connectionId: 'c1', ok: true });
  });

  it('the scheduler tries a connection without a key once per interval and says so, not in a loop', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    const warnings: string[] = [];
    const restarted = new SyncEngine({
      storage: h.storage,
      // An hour after the last run: due at once, then not again within the interval.
      clock: { now: () => new Date(`${h.sandbox.today}T13:00:00Z`), today: () => h.sandbox.today },
      intervalMs: 60_000,
      logger: { warn: (message) => warnings.push(message) },
    });
    const reports: ConnectionReport[] = [];
    restarted.on('run:done', ({ report }) => reports.push(report));
    restarted.start();
    await new Promise((r) => setTimeout(r, 300));
    await restarted.stop();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.issues[0]!.error).toBeInstanceOf(MissingCredentialsError);
    expect(warnings).toContain('sync skipped: no API key for this connection');
  });
});
