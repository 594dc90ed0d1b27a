import { toDecimalString } from '@finsync/provider';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  BASE,
  createHarness,
  expectFeedReplaysToMirror,
  expectMirrorMatchesProvider,
  LoggedSlowCommits,
  server,
  useMsw,
} from './harness.js';

useMsw();

/**
 * An account's balance and holdings are asked for when its turn begins, beside its transactions
 * (engine/account-answers.ts), and taken in once its transactions have committed; in a routine
 * re-sync the next account's turn begins with the current one (engine/account-turn.ts). These tests
 * watch the order of requests and commits, and what a failure leaves.
 */

/** Logs each request to `endpoints` as it arrives; the sandbox answers it. */
function logRequests(log: string[], endpoints = ['balance', 'holdings', 'transactions']): void {
  for (const endpoint of endpoints)
    server.use(
      http.get(`${BASE}/accounts/:id/${endpoint}`, ({ params }) => {
        log.push(`${endpoint} ${String(params.id)}`);
      }),
    );
}

describe("an account's balance and holdings", () => {
  it('are asked for before its transactions have committed, once each, and end as the provider has them', async () => {
    const log: string[] = [];
    const storage = new LoggedSlowCommits(log);
    const h = await createHarness({
      storage,
      sandbox: { historyDays: 90, transactionsPerDay: 3 },
      engine: { batchSize: 40 },
    });
    logRequests(log);
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);

    for (const account of report.accounts) {
      const id = account.accountId;
      const lastCommit = log.lastIndexOf(`commit ${id} end`);
      expect(lastCommit, `${id} committed rows`).toBeGreaterThan(-1);
      // A first sync asks every account for its holdings (whether it has any is not known yet).
      for (const endpoint of ['balance', 'holdings']) {
        expect(
          log.filter((line) => line === `${endpoint} ${id}`),
          `${endpoint} ${id}`,
        ).toHaveLength(1);
        expect(log.indexOf(`${endpoint} ${id}`), `${endpoint} ${id}`).toBeLessThan(lastCommit);
      }
    }
    const mirrored = await h.storage.listAccounts('c1');
    for (const account of report.accounts) {
      const balance = h.sandbox.balanceOf(account.accountId);
      expect(mirrored.find((a) => a.id === account.accountId)?.balance).toMatchObject({
        amount: toDecimalString(balance.amount),
        currency: balance.currency,
      });
    }
    await expectMirrorMatchesProvider(h);
    await expectFeedReplaysToMirror(storage);
  });

  it('of an account walked in windows are asked for once its last window has been read, not before its first', async () => {
    const log: string[] = [];
    const h = await createHarness({
      sandbox: { historyDays: 120, transactionsPerDay: 3 },
      engine: { startDate: '2026-02-01', windowDays: 30 },
    });
    logRequests(log);
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);
    for (const { accountId } of report.accounts) {
      const windows = log.filter((line) => line === `transactions ${accountId}`).length;
      expect(windows, accountId).toBeGreaterThan(3);
      // The balance check's first anchor is the balance as of the newest rows, not of the oldest.
      for (const endpoint of ['balance', 'holdings'])
        expect(log.indexOf(`${endpoint} ${accountId}`), `${endpoint} ${accountId}`).toBeGreaterThan(
          log.lastIndexOf(`transactions ${accountId}`),
        );
      expect(report.accounts.find((a) => a.accountId === accountId)?.reconciliation?.status).not.toBe(
        'mismatch',
      );
    }
    await expectMirrorMatchesProvider(h, { from: '2026-02-01' });
  });

  it('of the next account in a first sync are asked up to the day its request goes out, not the day its turn was opened', async () => {
    const h = await createHarness();
    const asked: string[] = [];
    server.use(
      // The day turns while 4711's answer is on its way: 4712's turn is open, its request not yet sent.
      http.get(`${BASE}/accounts/4711/transactions`, () => {
        h.sandbox.advanceDays(1);
      }),
      http.get(`${BASE}/accounts/4712/transactions`, ({ request }) => {
        asked.push(new URL(request.url).searchParams.get('to') ?? 'none');
      }),
    );
    const opened = h.sandbox.today;
    expect((await h.engine.sync('c1')).accounts.length).toBeGreaterThan(1);
    expect(h.sandbox.today).not.toBe(opened);
    expect(asked).toEqual([h.sandbox.today]);
  });

  it('of an account that turns out gone are aborted and never applied', async () => {
    // A first sync: every account's holdings are asked for too.
    const h = await createHarness();
    const aborted: string[] = [];
    server.use(
      http.get(`${BASE}/accounts/4712/transactions`, async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return HttpResponse.json({ error: 'Not Found' }, { status: 404 });
      }),
      ...['balance', 'holdings'].map((endpoint) =>
        http.get(`${BASE}/accounts/4712/${endpoint}`, async ({ request }) => {
          request.signal.addEventListener('abort', () => aborted.push(endpoint));
          await new Promise((resolve) => setTimeout(resolve, 200));
        }),
      ),
    );
    const report = await h.engine.sync('c1');
    expect(report.accounts.find((a) => a.accountId === '4712')).toMatchObject({
      state: 'gone',
      balance: 'skipped',
    });
    expect(aborted.sort()).toEqual(['balance', 'holdings']);
    const stored = (await h.storage.listAccounts('c1')).find((a) => a.id === '4712');
    expect(stored).toMatchObject({ state: 'gone', balance: null });
    expect(await h.storage.listHoldings('c1', '4712')).toEqual([]);
  });

  it('a balance answer that fails is the balance phase’s issue, after the transactions committed', async () => {
    const h = await createHarness();
    server.use(
      http.get(`${BASE}/accounts/4712/balance`, () =>
        HttpResponse.json({ error: 'Bad Request', message: 'no balance today' }, { status: 400 }),
      ),
    );
    const report = await h.engine.sync('c1');
    expect(report.issues.map((i) => [i.stage, i.accountId])).toEqual([['balance', '4712']]);
    expect(report.accounts.find((a) => a.accountId === '4712')).toMatchObject({ balance: 'failed' });
    expect(await h.storage.countTransactions('c1', '4712')).toBe(
      [...h.sandbox.transactionsOf('4712', { includePending: true })].length,
    );
    expect((await h.storage.listAccounts('c1')).find((a) => a.id === '4712')?.balance).toBeNull();
  });

  it('asked for while a refused key stops the run, are aborted, never applied, and the run reports the stop', async () => {
    const log: string[] = [];
    const h = await createHarness();
    const aborted: string[] = [];
    // The balance answer comes only after the refused transactions request has stopped the run.
    let refuse: () => void = () => undefined;
    const refused = new Promise<void>((resolve) => (refuse = resolve));
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, () => {
        refuse();
        return HttpResponse.json({ error: 'Unauthorized' }, { status: 401 });
      }),
      http.get(`${BASE}/accounts/4711/balance`, async ({ request }) => {
        log.push('balance 4711');
        request.signal.addEventListener('abort', () => aborted.push('balance 4711'));
        await refused;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return HttpResponse.json({ balance: { amount: 1, currency: 'GBP' } });
      }),
    );
    const report = await h.engine.sync('c1');
    expect(report).toMatchObject({ ok: false, status: 'reauth_required' });
    expect(report.issues.map((i) => [i.stage, i.accountId])).toEqual([['transactions', '4711']]);
    expect(log).toEqual(['balance 4711']);
    expect(aborted).toEqual(['balance 4711']);
    const accounts = await h.storage.listAccounts('c1');
    expect(accounts.find((a) => a.id === '4711')?.balance).toBeNull();
    expect(await h.storage.countTransactions('c1')).toBe(0);
  });
});

/** Logs each transactions request of `slow` as it arrives and once it is answered, 100 ms later. */
function slowTransactions(log: string[], slow: string): void {
  server.use(
    http.get(`${BASE}/accounts/:id/transactions`, async ({ params }) => {
      const id = String(params.id);
      log.push(`transactions ${id}`);
      if (id !== slow) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
      log.push(`answered ${id}`);
      // No answer: the sandbox's handler answers.
    }),
  );
}

describe('a routine re-sync', () => {
  it("asks for the next account's transactions, balance and holdings while the current account's are still on their way; a first sync waits", async () => {
    const log: string[] = [];
    const h = await createHarness();
    logRequests(log, ['balance', 'holdings']);
    slowTransactions(log, '4711');
    const first = await h.engine.sync('c1');
    expect(first.ok).toBe(true);
    // A first sync: 4712 is asked for once 4711's answer is in (its history could be long).
    expect(log.indexOf('transactions 4712')).toBeGreaterThan(log.indexOf('answered 4711'));

    h.sandbox.advanceDays(1);
    log.length = 0;
    const routine = await h.engine.sync('c1');
    expect(routine.ok).toBe(true);
    for (const request of ['transactions 4712', 'balance 4712', 'holdings 4712'])
      expect(log.indexOf(request), request).toBeLessThan(log.indexOf('answered 4711'));
    // One account ahead, not every account at once.
    expect(log.indexOf('transactions 4713')).toBeGreaterThan(log.indexOf('answered 4711'));
    // Each once, as without beginning early.
    for (const account of routine.accounts)
      expect(log.filter((line) => line === `transactions ${account.accountId}`)).toHaveLength(1);
    await expectMirrorMatchesProvider(h);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('after a long gap reads each account in its own turn, as a first sync does', async () => {
    const log: string[] = [];
    const h = await createHarness();
    expect((await h.engine.sync('c1')).ok).toBe(true);
    // 120 days since the last sync: each account's read is one request of over 90 days.
    h.sandbox.advanceDays(120);
    logRequests(log, ['balance', 'holdings']);
    slowTransactions(log, '4711');
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);
    expect(log.indexOf('transactions 4712')).toBeGreaterThan(log.indexOf('answered 4711'));
    await expectMirrorMatchesProvider(h);
  });

  it("stopped by a refused key aborts the next account's requests in flight and commits nothing of it", async () => {
    const h = await createHarness();
    expect((await h.engine.sync('c1')).ok).toBe(true);
    const rowsBefore = await h.storage.findTransactions('c1', '4712', {});
    const accountBefore = (await h.storage.listAccounts('c1')).find((a) => a.id === '4712');
    h.sandbox.advanceDays(3);
    const log: string[] = [];
    const aborted: string[] = [];
    server.use(
      // 4712's answer is still on its way when 4711's transactions are refused.
      http.get(`${BASE}/accounts/4712/transactions`, async ({ request }) => {
        log.push('transactions 4712');
        request.signal.addEventListener('abort', () => aborted.push('transactions 4712'));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }),
      // Its holdings are not due: the first sync learnt it has none.
      http.get(`${BASE}/accounts/4712/balance`, async ({ request }) => {
        log.push('balance 4712');
        request.signal.addEventListener('abort', () => aborted.push('balance 4712'));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }),
      http.get(`${BASE}/accounts/4711/transactions`, async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return HttpResponse.json({ error: 'Unauthorized' }, { status: 401 });
      }),
    );
    const report = await h.engine.sync('c1');
    expect(report).toMatchObject({ ok: false, status: 'reauth_required' });
    expect(report.issues.map((i) => [i.stage, i.accountId])).toEqual([['transactions', '4711']]);
    const next = ['balance 4712', 'transactions 4712'];
    expect(log.sort()).toEqual(next);
    expect(aborted.sort()).toEqual(next);
    expect(await h.storage.findTransactions('c1', '4712', {})).toEqual(rowsBefore);
    expect((await h.storage.listAccounts('c1')).find((a) => a.id === '4712')).toEqual(accountBefore);
  });
});
