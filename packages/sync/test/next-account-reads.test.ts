import { readdirSync } from 'node:fs';
import { daysBetween } from '@finsync/provider';
import { useTempDirs } from '@finsync/test-utils';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, type WriteBatch } from '../src/index.js';
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
const tempDir = useTempDirs('next-account-reads');

/**
 * The engine begins the next account's transaction reads once the current account has no page left
 * to read (engine/transaction-reads.ts). These tests watch the order of requests and commits, and
 * what is left when a run stops with such a read begun.
 */

/** Logs each transactions request as it arrives, then lets the sandbox answer it. */
function logTransactionRequests(log: string[], asked: URL[] = []): void {
  server.use(
    http.get(`${BASE}/accounts/:id/transactions`, ({ params, request }) => {
      log.push(`request ${String(params.id)}`);
      asked.push(new URL(request.url));
      // No answer: the sandbox's handler answers.
    }),
  );
}

describe("the next account's reads", () => {
  it.each<[string, { startDate?: string; windowDays?: number }]>([
    ['asked whole', {}],
    ['walked in windows', { startDate: '2026-02-01', windowDays: 30 }],
  ])(
    "are asked for while the account before is still committing, and the mirror is the provider's (%s)",
    async (_, engine) => {
      const log: string[] = [];
      const storage = new LoggedSlowCommits(log);
      const h = await createHarness({
        storage,
        sandbox: { historyDays: 120, transactionsPerDay: 3 },
        engine: { batchSize: 50, ...engine },
      });
      const asked: URL[] = [];
      logTransactionRequests(log, asked);
      const report = await h.engine.sync('c1');
      expect(report.ok).toBe(true);

      const active = report.accounts.map((account) => account.accountId);
      expect(active.slice(0, 2)).toEqual(['4711', '4712']);
      // 4712's first request goes out before 4711's last commit has landed, not after it.
      const lastCommitOf4711 = log.lastIndexOf('commit 4711 end');
      expect(log.indexOf('request 4712')).toBeGreaterThan(log.indexOf('request 4711'));
      expect(log.indexOf('request 4712')).toBeLessThan(lastCommitOf4711);
      // And no account's commits begin before the account before has committed its last.
      for (let index = 1; index < active.length; index++) {
        const firstCommit = log.indexOf(`commit ${active[index]} start`);
        if (firstCommit === -1) continue;
        expect(firstCommit).toBeGreaterThan(log.lastIndexOf(`commit ${active[index - 1]} end`));
      }
      // Each account's transactions were asked for as often as without reading ahead: once whole, or
      // once a window; and a window answered empty after windows that listed rows once more.
      const windows =
        engine.startDate === undefined
          ? 1
          : Math.ceil((daysBetween(engine.startDate, h.sandbox.today) + 1) / engine.windowDays!);
      for (const accountId of active) {
        const urls = asked.filter((url) => url.pathname.endsWith(`/accounts/${accountId}/transactions`));
        const days = urls.map((url) => `${url.searchParams.get('from')}..${url.searchParams.get('to')}`);
        expect(new Set(days).size, accountId).toBe(windows);
        for (const url of urls.filter((_, index) => days.indexOf(days[index]!) !== index)) {
          const listed = [
            ...h.sandbox.transactionsOf(accountId, {
              from: url.searchParams.get('from')!,
              to: url.searchParams.get('to')!,
              includePending: url.searchParams.get('include_pending') === 'true',
            }),
          ];
          expect(listed, `${accountId} asked twice for ${url.search}`).toEqual([]);
        }
      }
      await expectMirrorMatchesProvider(h, { from: engine.startDate });
      await expectFeedReplaysToMirror(storage);
    },
  );

  it.each(['aborted while 4712 commits', 'stopped by a refused key on 4712’s balance'] as const)(
    'a run %s stops the next account’s read, commits nothing of it and leaves no file',
    async (stop) => {
      const directory = tempDir();
      const controller = new AbortController();
      const log: string[] = [];
      // The run stops only once 4713's answer is in its temporary file: what is left is the engine's.
      const spilled = async () => {
        for (let waited = 0; readdirSync(directory).length === 0; waited += 5) {
          if (waited > 5_000) throw new Error('4713 was never read ahead into a file');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      class LoggedCommits extends MemoryStorage {
        override async apply(batch: WriteBatch): Promise<void> {
          const account = batch.changes.find((change) => change.entity === 'transaction')?.accountId;
          if (account === '4712' && stop.startsWith('aborted')) {
            await spilled();
            controller.abort();
          }
          return super.apply(batch);
        }
      }
      const storage = new LoggedCommits();
      const h = await createHarness({
        storage,
        sandbox: { historyDays: 120, transactionsPerDay: 3 },
        // Every answer over 10 rows goes to a file: 4713's read (364 rows), begun, holds one.
        client: { spill: { afterRows: 10, pageRows: 40, directory } },
        engine: { batchSize: 50 },
      });
      logTransactionRequests(log);
      if (stop.startsWith('stopped'))
        server.use(
          http.get(`${BASE}/accounts/4712/balance`, async () => {
            await spilled();
            return HttpResponse.json({ error: 'invalid api key' }, { status: 401 });
          }),
        );
      const report = await h.engine.sync('c1', { signal: controller.signal });

      expect(report.ok).toBe(false);
      // 4713's read had begun when the run stopped (one request a run without reading ahead would not
      // have sent), and nothing after it was asked for.
      expect(log).toEqual(['request 4711', 'request 4712', 'request 4713']);
      expect(await storage.countTransactions('c1', '4713')).toBe(0);
      expect(readdirSync(directory)).toEqual([]);
    },
  );

  it('a next account whose read fails reports the failure as its own, and the account before is whole', async () => {
    const h = await createHarness({ sandbox: { historyDays: 120, transactionsPerDay: 3 } });
    server.use(
      http.get(`${BASE}/accounts/4712/transactions`, () =>
        HttpResponse.json({ error: 'upstream unavailable' }, { status: 500 }),
      ),
    );
    const report = await h.engine.sync('c1');

    const byId = new Map(report.accounts.map((account) => [account.accountId, account]));
    expect(byId.get('4711')!.issues).toEqual([]);
    expect(byId.get('4711')!.fetched).toBeGreaterThan(0);
    expect(byId.get('4712')!.issues.map((issue) => issue.stage)).toEqual(['transactions']);
    expect(byId.get('4713')!.issues).toEqual([]);
    const held = [...h.sandbox.transactionsOf('4711', { includePending: true })].filter((t) => !t.lingering);
    expect(await h.storage.countTransactions('c1', '4711')).toBe(held.length);
    expect(await h.storage.countTransactions('c1', '4712')).toBe(0);
    await expectFeedReplaysToMirror(h.storage);
  });

  it('a malformed stored watermark of the next account fails that account, not the run', async () => {
    const h = await createHarness({ sandbox: { historyDays: 30, transactionsPerDay: 2 } });
    await h.engine.sync('c1');
    const [state] = (await h.storage.listAccountStates('c1')).filter((s) => s.accountId === '4712');
    await h.storage.apply({ changes: [], accountStates: [{ ...state!, watermark: '2026-03-01T00:00:00Z' }] });
    h.sandbox.advanceDays(1);
    const report = await h.engine.sync('c1');

    const failed = report.accounts.filter((account) => account.issues.length > 0);
    expect(failed.map((account) => [account.accountId, account.issues[0]!.stage])).toEqual([
      ['4712', 'transactions'],
    ]);
    expect(report.accounts.find((account) => account.accountId === '4711')!.issues).toEqual([]);
  });
});
