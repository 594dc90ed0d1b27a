import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../src/index.js';
import { BASE, createHarness, expectFeedReplaysToMirror, server, SlowCommits, useMsw } from './harness.js';

useMsw();

/**
 * The engine reads and diffs the next page while the page before commits, when that commit cannot
 * change what the reads return (engine/overlap.ts). A store whose commits take time shows a guess
 * that is wrong: the reads miss what the commit writes.
 */
const STORES = {
  'commits at once': () => new MemoryStorage(),
  'commits taking 15 ms': () => new SlowCommits(),
};

type WireRow = { id: string | null; date: string; isPending: boolean; amount: number; merchant: string };

/** A hold on the last day of one five-day window, still listed, and its posted twin the next day. */
function listHoldAtWindowEdge(accountId: string, holdDate: string, postedDate: string): void {
  server.use(
    http.get(`${BASE}/accounts/${accountId}/transactions`, async ({ request }) => {
      const url = new URL(request.url);
      const from = url.searchParams.get('from');
      const to = url.searchParams.get('to');
      const template = {
        currency: 'GBP',
        description: 'EDGE CAFE LONDON',
        merchant: 'Edge Cafe',
        amount: -42.42,
      };
      const rows = [
        { ...template, id: null, date: holdDate, isPending: true },
        { ...template, id: 'tx_edge_posted', date: postedDate, isPending: false },
      ].filter(
        (row: WireRow) =>
          (from === null || row.date >= from) &&
          (to === null || row.date <= to) &&
          (url.searchParams.get('include_pending') === 'true' || !row.isPending),
      );
      return HttpResponse.json({ transactions: rows, total: rows.length });
    }),
  );
}

describe('a page read while the page before commits', () => {
  it.each(Object.keys(STORES) as Array<keyof typeof STORES>)(
    'a hold committed in one window is replaced by its posted twin in the next (%s)',
    async (store) => {
      const storage = STORES[store]();
      const h = await createHarness({
        storage,
        sandbox: { historyDays: 45, transactionsPerDay: 1 },
        // Five-day windows laid back from today (30 June): 1 May alone, then 2–6 May, 7–11 May, …;
        // batches of 2 keep a window of one row from being joined.
        engine: { startDate: '2026-05-01', windowDays: 5, batchSize: 2 },
      });
      listHoldAtWindowEdge('4711', '2026-05-06', '2026-05-07');

      const report = await h.engine.sync('c1');
      expect(report.ok, report.issues.map((i) => i.message).join('; ')).toBe(true);
      const rows = await storage.findTransactions('c1', '4711');
      expect(rows.map((row) => [row.date, row.isPending, row.providerId])).toEqual([
        ['2026-05-07', false, 'tx_edge_posted'],
      ]);
      const feed = await expectFeedReplaysToMirror(storage);
      expect(feed.filter((entry) => entry.accountId === '4711' && entry.op === 'removed')).toEqual([
        expect.objectContaining({
          replacedBy: rows[0]!.key,
          reason: 'posted',
        }),
      ]);
    },
  );
});
