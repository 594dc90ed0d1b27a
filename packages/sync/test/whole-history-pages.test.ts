import { addDays } from '@finsync/provider';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE, createHarness, expectFeedReplaysToMirror, server, useMsw } from './harness.js';

useMsw();

const DAY_MS = 86_400_000;
/** The provider client's week (week-pages.ts): whole weeks counted from 1970-01-01, a Thursday. */
const weekOf = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS / 7);

describe('a whole history handed out in pages of whole weeks', () => {
  it.each([
    ['held in memory', { pageRows: 15 }],
    ['spilled', { afterRows: 10, pageRows: 15 }],
  ])(
    'pairs a hold with the posted row that replaced it at the recent end, though they fall in different weeks (%s)',
    async (_, spill) => {
      // Batches of 20: pages under half a batch are joined to the next, and these are not.
      const h = await createHarness({ engine: { batchSize: 20 }, client: { spill } });
      // The posted row on the first day of this week, its hold on the last day of the week before.
      let postedOn = h.sandbox.today;
      while (weekOf(addDays(postedOn, -1)) === weekOf(postedOn)) postedOn = addDays(postedOn, -1);
      const heldOn = addDays(postedOn, -1);
      const row = (id: string | null, date: string, isPending: boolean, amount: number) => ({
        id,
        accountId: 4711,
        amount,
        currency: 'GBP',
        date,
        merchant: id === null || id === 'tx_posted' ? 'Corner Cafe' : `Shop ${id}`,
        description: isPending ? 'Pending authorisation' : 'CARD PAYMENT',
        isPending,
      });
      // A row a day for the four weeks before, 7 a week: pages of 15 rows hold two weeks. Packed from
      // the oldest week, the posted row's week would be a page alone, and the hold would be added
      // with the page before and replaced with it; packed from the newest, they share a page.
      const transactions: ReturnType<typeof row>[] = [];
      for (let day = addDays(postedOn, -28); day < postedOn; day = addDays(day, 1))
        transactions.push(row(`tx_${day}`, day, false, -10));
      transactions.push(row(null, heldOn, true, -5.69), row('tx_posted', postedOn, false, -5.69));
      server.use(
        http.get(`${BASE}/accounts/4711/transactions`, () =>
          HttpResponse.json({ transactions, total: transactions.length }),
        ),
      );

      const report = await h.engine.sync('c1');
      expect(report.ok).toBe(true);
      const account = report.accounts.find((a) => a.accountId === '4711')!;
      expect(account).toMatchObject({ added: 29, removed: 0, hidden: 1 });
      expect(account.replacements.posted).toBe(0);
      const stored = await h.storage.findTransactions('c1', '4711');
      expect(stored).toHaveLength(29);
      expect(stored.some((t) => t.isPending)).toBe(false);
      // Never in the feed either: no app saw the hold appear and then vanish.
      const feed = await expectFeedReplaysToMirror(h.storage);
      expect(feed.filter((e) => e.accountId === '4711' && e.op === 'removed')).toEqual([]);
    },
  );
});
