/**
 * A hold older than the routine re-read's overlap (a stale authorisation the bank kept listing, a
 * hotel deposit): the re-read reaches back to it, so that it goes when the bank drops it.
 */
import { describe, expect, it } from 'vitest';
import { engineOverCraftedProvider, listedBetweenAskedDates, type WireRow } from './crafted-provider.js';

/** An engine over a provider that lists `rows` between the asked `from` and `to`, as a real one does. */
async function setUp(rows: WireRow[]) {
  const h = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
    today: '2026-03-15',
    accountCurrency: 'GBP',
  });
  const shown = async () => (await h.storage.findTransactions('c1', '4711')).map((r) => r.key).sort();
  return { ...h, shown };
}

describe('a hold older than the re-read overlap', () => {
  it('is removed when the bank drops it: the re-read reaches back to it', async () => {
    const rows: WireRow[] = [
      { id: null, amount: -80, date: '2026-02-05', merchant: 'Hotel', isPending: true },
      { id: 'tx1', amount: -100, date: '2026-03-01', merchant: 'Shop', isPending: false },
    ];
    const h = await setUp(rows);
    await h.engine.sync('c1');
    expect(await h.shown()).toHaveLength(2);
    // The deposit is released: the bank lists the hold no more.
    rows.shift();
    h.today.date = '2026-03-16';
    const before = await h.storage.lastSeq();
    const report = await h.engine.sync('c1');
    // Back to the hold, and the 7 days before it (REDATED_MARGIN_DAYS) every re-read asks for too.
    expect(h.lastFrom()).toBe('2026-01-29');
    expect(report.accounts[0]!.window?.from).toBe('2026-01-29');
    expect(await h.shown()).toEqual(['id:tx1']);
    const feed = await h.storage.readChanges({ after: before, limit: 100 });
    expect(feed.filter((e) => e.entity === 'transaction').map((e) => e.op)).toEqual(['removed']);
  });

  it('is still shown while the bank lists it, and the re-read reaches back one request at most', async () => {
    const rows: WireRow[] = [
      { id: null, amount: -80, date: '2025-10-01', merchant: 'Car hire', isPending: true },
      { id: 'tx1', amount: -100, date: '2026-03-01', merchant: 'Shop', isPending: false },
    ];
    const h = await setUp(rows);
    await h.engine.sync('c1');
    h.today.date = '2026-03-16';
    await h.engine.sync('c1');
    // 90 days (the default windowDays) back from today, not the hold's own date.
    expect(h.lastFrom()).toBe('2025-12-17');
    expect(await h.shown()).toHaveLength(2);
  });
});
