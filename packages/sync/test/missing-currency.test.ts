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
});
