import { toDecimalString } from '@finsync/provider';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, type WriteBatch } from '../src/index.js';
import {
  BASE,
  createHarness,
  expectFeedReplaysToMirror,
  expectMirrorMatchesProvider,
  server,
  useMsw,
} from './harness.js';

useMsw();

/**
 * An account's balance and holdings are asked for when its turn begins, beside its transactions
 * (engine/account-answers.ts), and taken in once its transactions have committed. These tests watch
 * the order of requests and commits, and what a failure of either leaves.
 */

/** Logs each balance, holdings and transactions request as it arrives; the sandbox answers it. */
function logRequests(log: string[]): void {
  for (const endpoint of ['balance', 'holdings', 'transactions'])
    server.use(
      http.get(`${BASE}/accounts/:id/${endpoint}`, ({ params }) => {
        log.push(`${endpoint} ${String(params.id)}`);
      }),
    );
}

/** Commits that take 10 ms, logged by the account whose transactions they carry. */
class LoggedSlowCommits extends MemoryStorage {
  constructor(readonly log: string[]) {
    super();
  }
  override async apply(batch: WriteBatch): Promise<void> {
    const account = batch.changes.find((change) => change.entity === 'transaction')?.accountId;
    if (account === undefined) return super.apply(batch);
    this.log.push(`commit ${account} start`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await super.apply(batch);
    this.log.push(`commit ${account} end`);
  }
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
