/**
 * Rows listed without a currency (the provider's docs list it; real answers leave it out on some
 * rows): they are in the account's currency, so a hold listed without one still pairs with its
 * posting listed with one.
 */
import { describe, expect, it } from 'vitest';
import { keyTransactions } from '../src/engine/keys.js';
import { engineOverCraftedProvider } from './crafted-provider.js';

interface WireRow {
  id: string | null;
  amount: number;
  currency?: string;
  date: string;
  merchant: string;
  description: string;
  isPending: boolean;
}

describe('a row listed without a currency', () => {
  it("is recorded in the account's currency, under the key its listing gives it", () => {
    const row = {
      id: null,
      accountId: '4711',
      amount: '-6.15',
      currency: null,
      date: '2026-03-14',
      merchant: 'Bus Co',
      description: 'Pending',
      isPending: true,
    };
    const [known] = keyTransactions('c1', '4711', [row], 'GBP').records;
    const [unknown] = keyTransactions('c1', '4711', [row]).records;
    expect(known).toMatchObject({ currency: 'GBP', key: unknown!.key });
    expect(unknown!.currency).toBeNull();
  });

  it('pairs a hold listed without one with its posting listed with one: one row, linked', async () => {
    const rows: WireRow[] = [
      {
        id: null,
        amount: -6.15,
        date: '2026-03-14',
        merchant: 'Bus Co',
        description: 'Pending',
        isPending: true,
      },
    ];
    const { engine, storage, today } = await engineOverCraftedProvider(
      () => ({ transactions: rows.map((r) => ({ accountId: 4711, ...r })), total: rows.length }),
      { today: '2026-03-15' },
    );
    await engine.sync('c1');
    const before = await storage.lastSeq();
    // The hold is still listed beside its posting two days later.
    today.date = '2026-03-16';
    rows.push({
      id: 'tx1',
      amount: -6.15,
      currency: 'GBP',
      date: '2026-03-16',
      merchant: 'Bus Co',
      description: 'BUS CO',
      isPending: false,
    });
    await engine.sync('c1');
    const shown = await storage.findTransactions('c1', '4711');
    expect(shown.map((r) => [r.key, r.currency, r.isPending])).toEqual([['id:tx1', 'GBP', false]]);
    const feed = await storage.readChanges({ after: before, limit: 100 });
    expect(feed.find((e) => e.entity === 'transaction' && e.op === 'added')).toMatchObject({
      key: 'id:tx1',
      reason: 'posted',
    });
  });

  it('pairs a hold stored before any currency was known with its posting listed in one', async () => {
    // The account's currency is unknown when the hold is stored: /accounts has none, the balance fails.
    const rows: WireRow[] = [
      {
        id: null,
        amount: -1500,
        date: '2026-03-14',
        merchant: 'Sushi Bar',
        description: 'Pending',
        isPending: true,
      },
    ];
    let balanceFails = true;
    const { engine, storage, today } = await engineOverCraftedProvider(
      () => ({ transactions: rows.map((r) => ({ accountId: 4711, ...r })), total: rows.length }),
      {
        today: '2026-03-15',
        balance: () =>
          balanceFails
            ? new Response(JSON.stringify({ error: 'x', message: 'down' }), { status: 500 })
            : { balance: { amount: -1500, currency: 'JPY' } },
      },
    );
    await engine.sync('c1');
    expect((await storage.findTransactions('c1', '4711')).map((r) => r.currency)).toEqual([null]);
    const before = await storage.lastSeq();
    // The hold goes as its posting, listed in JPY, arrives; the balance answers again.
    balanceFails = false;
    today.date = '2026-03-16';
    rows.splice(0, 1, {
      id: 'tx1',
      amount: -1500,
      currency: 'JPY',
      date: '2026-03-16',
      merchant: 'Sushi Bar',
      description: 'SUSHI BAR',
      isPending: false,
    });
    const report = await engine.sync('c1');
    expect(report.accounts[0]!.replacements.posted).toBe(1);
    const shown = await storage.findTransactions('c1', '4711');
    expect(shown.map((r) => [r.key, r.currency, r.isPending])).toEqual([['id:tx1', 'JPY', false]]);
    const feed = await storage.readChanges({ after: before, limit: 100 });
    expect(feed.find((e) => e.entity === 'transaction' && e.op === 'added')).toMatchObject({
      key: 'id:tx1',
      reason: 'posted',
    });
  });

  describe('on an account whose /accounts entry has no currency either', () => {
    // 28 rows of January and one of March, none listed with a currency; the balance says GBP.
    const rows: WireRow[] = Array.from({ length: 28 }, (_, i) => ({
      id: `t${i + 1}`,
      amount: -(i + 1),
      date: `2026-01-${String(i + 1).padStart(2, '0')}`,
      merchant: 'Shop',
      description: 'SHOP',
      isPending: false,
    }));
    rows.push({
      id: 'm1',
      amount: -1,
      date: '2026-03-10',
      merchant: 'Shop',
      description: 'SHOP',
      isPending: false,
    });
    const listed = () => ({ transactions: rows.map((r) => ({ accountId: 4711, ...r })), total: rows.length });
    const currencies = async (storage: {
      findTransactions: (c: string, a: string) => Promise<Array<{ currency: string | null }>>;
    }) => [...new Set((await storage.findTransactions('c1', '4711')).map((r) => r.currency))];

    it('takes the currency its first balance gives, on every row of the first sync, and says so in the feed', async () => {
      const { engine, storage } = await engineOverCraftedProvider(listed, { today: '2026-03-20' });
      const report = await engine.sync('c1');
      expect(report.ok).toBe(true);
      expect(await currencies(storage)).toEqual(['GBP']);
      const feed = await storage.readChanges({ after: 0, limit: 1000 });
      const modified = feed.filter((e) => e.entity === 'transaction' && e.op === 'modified');
      expect(modified).toHaveLength(rows.length);
      expect(modified.every((e) => e.record?.currency === 'GBP')).toBe(true);
      expect(report.accounts[0]!.modified).toBe(rows.length);
      // Known from now on: a later run changes nothing.
      const seq = await storage.lastSeq();
      await engine.sync('c1');
      expect(await storage.readChanges({ after: seq, limit: 100 })).toEqual([]);
    });

    it('takes it on the first run whose balance answers, when the first balance failed', async () => {
      let balanceFails = true;
      const { engine, storage, today } = await engineOverCraftedProvider(listed, {
        today: '2026-03-20',
        balance: () =>
          balanceFails
            ? new Response(JSON.stringify({ error: 'x', message: 'down' }), { status: 500 })
            : { balance: { amount: -407, currency: 'GBP' } },
      });
      const first = await engine.sync('c1');
      expect(first.accounts[0]!.balance).toBe('failed');
      expect(await currencies(storage)).toEqual([null]);
      balanceFails = false;
      today.date = '2026-04-30'; // weeks later: January is far outside the routine re-read
      await engine.sync('c1');
      expect(await currencies(storage)).toEqual(['GBP']);
      expect((await storage.listAccounts('c1'))[0]!.currency).toBe('GBP');
    });
  });
});
