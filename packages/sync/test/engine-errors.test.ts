import { ProviderClient, RateLimitError, ServerError } from '@finsync/provider';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  BASE,
  createHarness,
  expectFeedReplaysToMirror,
  expectMirrorMatchesProvider,
  server,
  transactionRequests,
  useMsw,
} from './harness.js';

useMsw();

describe('one failure never stops the others', () => {
  it('a failing account is reported; the other accounts sync; the report is not a success', async () => {
    const h = await createHarness();
    h.sandbox.faults.add({
      kind: 'status',
      status: 500,
      match: { endpoint: 'transactions', accountId: '4713' },
    });
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(false);
    expect(report.outcome).toBe('partial');
    expect(report.issues).toHaveLength(1);
    expect(report.issues[0]).toMatchObject({ stage: 'transactions', accountId: '4713' });
    expect(report.issues[0]!.error).toBeInstanceOf(ServerError);
    expect(await h.storage.countTransactions('c1', '4713')).toBe(0);
    expect(await h.storage.countTransactions('c1', '4711')).toBeGreaterThan(0);
    const state = (await h.storage.listAccountStates('c1')).find((s) => s.accountId === '4713');
    expect(state?.lastError).toContain('500');
    expect(state?.watermark).toBeNull();

    h.sandbox.faults.clear();
    const again = await h.engine.sync('c1');
    expect(again.ok).toBe(true);
    await expectMirrorMatchesProvider(h);
  });

  it('a failed balance fetch keeps the previous balance, never zero, and is reported', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    const before = (await h.storage.listAccounts('c1')).find((a) => a.id === '4711')!.balance;
    h.sandbox.advanceDays(2);
    h.sandbox.faults.add({ kind: 'status', status: 503, match: { endpoint: 'balance', accountId: '4711' } });
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(false);
    expect(report.accounts.find((a) => a.accountId === '4711')).toMatchObject({ balance: 'failed' });
    expect((await h.storage.listAccounts('c1')).find((a) => a.id === '4711')!.balance).toEqual(before);
  });

  it('a payload it cannot read fails that account with a typed error and changes nothing for it', async () => {
    const h = await createHarness();
    h.sandbox.faults.add({ kind: 'malformed-json', match: { endpoint: 'transactions', accountId: '4711' } });
    const report = await h.engine.sync('c1');
    expect(report.issues.map((i) => [i.stage, i.accountId, i.error.name])).toEqual([
      ['transactions', '4711', 'InvalidResponseError'],
    ]);
    expect(await h.storage.countTransactions('c1', '4711')).toBe(0);
  });
});

describe('connection-wide failures', () => {
  it('401/403 put the connection in reauth_required and stop calls until its key changes', async () => {
    const h = await createHarness();
    h.sandbox.setApiKey('rotated-key');
    const report = await h.engine.sync('c1');
    expect(report).toMatchObject({ ok: false, outcome: 'failed', status: 'reauth_required' });
    expect(report.issues[0]!.error.name).toBe('PermissionDeniedError');
    expect((await h.engine.getConnection('c1'))?.status).toBe('reauth_required');

    h.sandbox.resetRequestLog();
    const skipped = await h.engine.sync('c1');
    expect(skipped).toMatchObject({ ok: false, outcome: 'skipped' });
    expect(h.sandbox.requestCount).toBe(0);

    await h.engine.updateCredentials('c1', {
      client: new ProviderClient({ apiKey: 'rotated-key', rateLimit: false, maxRetries: 0 }),
    });
    const healed = await h.engine.sync('c1');
    expect(healed).toMatchObject({ ok: true, status: 'active' });
    await expectMirrorMatchesProvider(h);
  });

  it('an auth failure mid-run stops the remaining accounts', async () => {
    const h = await createHarness();
    h.sandbox.faults.add({ kind: 'status', status: 401, match: { endpoint: 'balance', accountId: '4711' } });
    const report = await h.engine.sync('c1');
    expect(report.status).toBe('reauth_required');
    expect(transactionRequests(h.sandbox, '4713')).toEqual([]);
  });

  it('a rate limit wrapped in a 500 pauses the connection until the stated time', async () => {
    const h = await createHarness({ client: { maxRetryAfterMs: 1_000 } });
    h.sandbox.faults.add({
      kind: 'rate-limit-500',
      retryAfterSeconds: 90,
      match: { endpoint: 'transactions', accountId: '4712' },
    });
    const report = await h.engine.sync('c1');
    expect(report).toMatchObject({ ok: false, status: 'paused' });
    const cause = report.issues[0]!.error as RateLimitError;
    expect(cause).toBeInstanceOf(RateLimitError);
    expect(cause.retryAfterMs).toBe(90_000);
    const state = await h.engine.getConnection('c1');
    expect(Date.parse(state!.pausedUntil!) - Date.parse(`${h.sandbox.today}T12:00:00Z`)).toBe(90_000);

    h.sandbox.faults.clear();
    h.sandbox.resetRequestLog();
    expect(await h.engine.sync('c1')).toMatchObject({ outcome: 'skipped' });
    expect(h.sandbox.requestCount).toBe(0);
  });

  it('a 429 without a stated wait pauses for the default', async () => {
    const h = await createHarness({ engine: { defaultRateLimitPauseMs: 5_000 } });
    server.use(
      http.get(`${BASE}/accounts`, () => HttpResponse.json({ error: 'Too Many Requests' }, { status: 429 })),
    );
    const report = await h.engine.sync('c1');
    expect(report.status).toBe('paused');
    const state = await h.engine.getConnection('c1');
    expect(Date.parse(state!.pausedUntil!) - Date.parse(`${h.sandbox.today}T12:00:00Z`)).toBe(5_000);
  });
});

describe('accounts that go away', () => {
  it('404 on an account marks it gone and keeps its history', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    const rows = await h.storage.countTransactions('c1', '4713');
    h.sandbox.faults.add({
      kind: 'status',
      status: 404,
      match: { endpoint: 'transactions', accountId: '4713' },
    });
    const report = await h.engine.sync('c1');
    expect(report.accounts.find((a) => a.accountId === '4713')?.state).toBe('gone');
    expect((await h.storage.listAccounts('c1')).find((a) => a.id === '4713')?.state).toBe('gone');
    expect(await h.storage.countTransactions('c1', '4713')).toBe(rows);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('an account missing from a non-empty list is marked gone; an empty list marks nothing', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    const listed = h.sandbox.listAccounts();
    const wire = (id: string) => ({
      id: Number(id),
      name: 'x',
      institution_name: 'Example Bank',
      provider: 'gocardless',
      status: 'ACTIVE',
    });

    server.use(http.get(`${BASE}/accounts`, () => HttpResponse.json({ accounts: [], total: 0 })));
    await h.engine.sync('c1');
    expect((await h.storage.listAccounts('c1')).filter((a) => a.state === 'gone')).toEqual([]);

    server.use(http.get(`${BASE}/accounts`, () => HttpResponse.json({ accounts: [wire('4711')], total: 1 })));
    await h.engine.sync('c1');
    const gone = (await h.storage.listAccounts('c1')).filter((a) => a.state === 'gone').map((a) => a.id);
    expect(gone.sort()).toEqual(
      listed
        .map((a) => a.id)
        .filter((id) => id !== '4711')
        .sort(),
    );
    expect(await h.storage.countTransactions('c1', '4713')).toBeGreaterThan(0);
  });
});

describe('cancellation', () => {
  it('a first sync cut off after some windows and resumed mirrors nothing before startDate, as an uncut one', async () => {
    // History reaches back past startDate, so the resumed run's overlap re-read could reach it.
    const h = await createHarness({
      sandbox: { historyDays: 200 },
      engine: { startDate: '2026-01-01', windowDays: 12, batchSize: 40 },
    });
    const controller = new AbortController();
    let pages = 0;
    h.engine.on('progress', () => {
      pages += 1;
      if (pages === 2) controller.abort();
    });
    expect((await h.engine.sync('c1', { signal: controller.signal })).ok).toBe(false);
    const states = await h.storage.listAccountStates('c1');
    // Within a month of startDate: the resumed run's overlap re-read reaches back before it.
    expect(states.some((s) => s.watermark !== null && s.watermark < '2026-02-01')).toBe(true);

    expect((await h.engine.sync('c1')).ok).toBe(true);
    for (const account of await h.storage.listAccounts('c1')) {
      const rows = await h.storage.findTransactions('c1', account.id);
      expect(
        rows.filter((r) => r.date < '2026-01-01'),
        `account ${account.id}`,
      ).toEqual([]);
    }
    await expectMirrorMatchesProvider(h, { from: '2026-01-01' });
    await expectFeedReplaysToMirror(h.storage);
  });
  it('aborting a run mid-way leaves a consistent store that the next run completes', async () => {
    const h = await createHarness({
      sandbox: { historyDays: 150 },
      engine: { startDate: '2026-01-01', windowDays: 15 },
    });
    h.sandbox.faults.add({ kind: 'latency', ms: 20 });
    const controller = new AbortController();
    let pages = 0;
    h.engine.on('progress', () => {
      pages += 1;
      if (pages === 6) controller.abort();
    });
    const report = await h.engine.sync('c1', { signal: controller.signal });
    expect(report.ok).toBe(false);
    expect(report.issues.at(-1)!.error.name).toBe('RequestAbortedError');
    await expectFeedReplaysToMirror(h.storage);
    h.sandbox.faults.clear();
    const again = await h.engine.sync('c1');
    expect(again.ok).toBe(true);
    await expectMirrorMatchesProvider(h);
    await expectFeedReplaysToMirror(h.storage);
  });
});
