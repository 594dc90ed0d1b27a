import { addDays } from '@finsync/provider';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../src/index.js';
import {
  BASE,
  createHarness,
  expectFeedReplaysToMirror,
  server,
  SlowCommits,
  useMsw,
  type Harness,
} from './harness.js';

useMsw();

type WireRow = { id: string | null; date: string; isPending: boolean; amount: number };

/**
 * The provider lists one posted id twice: on its own date and again `daysBack` days earlier, each
 * copy only in answers whose window holds its date (as a server filtering by date would).
 */
function listTwice(h: Harness, accountId: string, id: string, daysBack: number): void {
  server.use(
    http.get(`${BASE}/accounts/${accountId}/transactions`, async ({ request }) => {
      const url = new URL(request.url);
      const from = url.searchParams.get('from');
      const to = url.searchParams.get('to');
      const whole = new Request(`${BASE}/accounts/${accountId}/transactions?include_pending=true`, {
        headers: request.headers,
      });
      const all = ((await (await h.sandbox.handle(whole)).json()) as { transactions: WireRow[] })
        .transactions;
      const original = all.find((row) => row.id === id)!;
      const copy = { ...original, date: addDays(original.date, -daysBack), amount: original.amount - 1 };
      const inWindow = (row: WireRow) =>
        (from === null || row.date >= from) &&
        (to === null || row.date <= to) &&
        (url.searchParams.get('include_pending') === 'true' || !row.isPending);
      // The copy first: the first row of its page, so a page committed in several batches writes it
      // in one before the page's last.
      const transactions = [copy, ...all].filter(inWindow);
      return HttpResponse.json({ transactions, total: transactions.length });
    }),
  );
}

// Batches of 20 keep the pages apart (pages under half a batch are joined), so the copy listed a
// few days earlier lies in the page before the original's.
const FIRST_SYNCS = {
  'walked in windows': { engine: { startDate: '2026-04-01', windowDays: 5, batchSize: 20 } },
  'asked whole, spilled to pages': {
    engine: { batchSize: 20 },
    client: { spill: { afterRows: 10, pageRows: 15 } },
  },
  // A page's rows go out in several commits: the copy is committed by one before the page's last.
  'asked whole, spilled to pages, committed 3 rows at a time': {
    engine: { batchSize: 3 },
    client: { spill: { afterRows: 10, pageRows: 15 } },
  },
};

/** The next page is read while a commit is under way only with a store whose commits take time. */
const STORES = {
  'commits at once': () => new MemoryStorage(),
  'commits taking 15 ms': () => new SlowCommits(),
};
/** Days between the two listings: in pages far apart, or (with five-day windows) adjacent ones. */
const DAYS_BACK = [40, 5];
const CASES = Object.keys(FIRST_SYNCS).flatMap((how) =>
  Object.keys(STORES).flatMap((store) =>
    DAYS_BACK.map(
      (daysBack) => [how, store, daysBack] as [keyof typeof FIRST_SYNCS, keyof typeof STORES, number],
    ),
  ),
);

describe('an id the provider lists on two dates', () => {
  it.each(CASES)(
    'is one row, in a first sync %s and every sync after, never a failed account (%s, %i days apart)',
    async (how, store, daysBack) => {
      const h = await createHarness({
        sandbox: { historyDays: 60, transactionsPerDay: 3 },
        storage: STORES[store](),
        ...FIRST_SYNCS[how],
      });
      const posted = [...h.sandbox.transactionsOf('4711', { from: addDays(h.sandbox.today, -10) })].find(
        (row) => row.id !== null,
      )!;
      listTwice(h, '4711', posted.id!, daysBack);

      for (let day = 0; day < 3; day++) {
        const report = await h.engine.sync('c1');
        expect(report.ok, report.issues.map((i) => i.message).join('; ')).toBe(true);
        const rows = await h.storage.findTransactions('c1', '4711', { keys: [`id:${posted.id}`] });
        expect(rows).toHaveLength(1);
        h.sandbox.advanceDays(1);
      }
      await expectFeedReplaysToMirror(h.storage);
    },
  );
});
