/**
 * Each side of a replacement carries one link: an added row names the one row it is (`replaces`), and
 * every removed row names what took its place (`replacedBy`). When a row stands for two vanished rows
 * at once (a re-issued id that is also a hold's posting), the added entry must still name the row it
 * is, or an app that follows the link gives the posting's row, and its user's edits, to the hold.
 */
import { describe, expect, it } from 'vitest';
import type { FeedEntry } from '../src/index.js';
import { engineOverCraftedProvider, listedBetweenAskedDates, type WireRow } from './crafted-provider.js';

async function setUp(rows: WireRow[], today: string) {
  const crafted = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
    today,
    accountCurrency: 'GBP',
  });
  /** The transaction entries one sync on `day` wrote. */
  const syncOn = async (day: string) => {
    crafted.today.date = day;
    const before = await crafted.storage.lastSeq();
    const report = await crafted.engine.sync('c1');
    expect(report.ok).toBe(true);
    const entries = await crafted.storage.readChanges({ after: before, limit: 1000 });
    return entries.filter(
      (entry): entry is FeedEntry & { entity: 'transaction' } => entry.entity === 'transaction',
    );
  };
  return { ...crafted, syncOn };
}

const link = (entry: {
  op: string;
  key: string;
  replaces?: string | null;
  replacedBy?: string | null;
  reason?: string;
}) => ({
  op: entry.op,
  key: entry.key,
  ...(entry.replaces ? { replaces: entry.replaces } : {}),
  ...(entry.replacedBy ? { replacedBy: entry.replacedBy } : {}),
  ...(entry.reason ? { reason: entry.reason } : {}),
});

describe('one link on each side of a replacement', () => {
  it('a posting whose id the bank re-issues as its hold vanishes: the new id replaces the posting, and the hold is replaced by it', async () => {
    const hold: WireRow = { id: null, amount: -10, date: '2026-03-05', merchant: 'Shop', isPending: true };
    const posted: WireRow = { id: 'a', amount: -10, date: '2026-03-05', merchant: 'Shop', isPending: false };
    const rows: WireRow[] = [hold, posted];
    const t = await setUp(rows, '2026-03-05');
    const first = await t.syncOn('2026-03-05');
    const holdKey = first.find((entry) => entry.record?.isPending)!.key;

    rows.splice(0, rows.length, { ...posted, id: 'b' });
    const entries = (await t.syncOn('2026-03-06')).map(link);
    expect(entries).toContainEqual({ op: 'added', key: 'id:b', replaces: 'id:a', reason: 'id-changed' });
    expect(entries).toContainEqual({ op: 'removed', key: 'id:a', replacedBy: 'id:b', reason: 'id-changed' });
    expect(entries).toContainEqual({ op: 'removed', key: holdKey, replacedBy: 'id:b', reason: 'posted' });
    expect(entries).toHaveLength(3);
    expect((await t.storage.findTransactions('c1', '4711')).map((row) => row.key)).toEqual(['id:b']);
  });
});

describe('every hold that can have a twin gets one', () => {
  it('two holds of one payee and amount vanish beside a stored posting and a new one: each pairs with the one it fits, and a later purchase stays a purchase', async () => {
    const hold = (date: string): WireRow => ({
      id: null,
      amount: -5,
      date,
      merchant: 'Cafe',
      isPending: true,
    });
    const posting = (id: string, date: string): WireRow => ({
      id,
      amount: -5,
      date,
      merchant: 'Cafe',
      isPending: false,
    });
    const rows: WireRow[] = [hold('2026-03-01'), posting('a', '2026-03-01')];
    const t = await setUp(rows, '2026-03-01');
    const first = await t.syncOn('2026-03-01');
    const firstHold = first.find((entry) => entry.record?.isPending)!.key;
    rows.push(hold('2026-03-05'));
    const secondHold = (await t.syncOn('2026-03-05')).find((entry) => entry.record?.isPending)!.key;

    // Both holds gone; the stored posting of 03-01 can only be the first hold's, the new one of 03-06
    // either's: the first hold is the stored posting's, the second the new one's.
    rows.splice(0, rows.length, posting('a', '2026-03-01'), posting('b', '2026-03-06'));
    const day6 = (await t.syncOn('2026-03-06')).map(link);
    expect(day6).toContainEqual({ op: 'added', key: 'id:b', replaces: secondHold, reason: 'posted' });
    expect(day6).toContainEqual({ op: 'removed', key: firstHold, replacedBy: 'id:a', reason: 'posted' });
    expect(day6).toContainEqual({ op: 'removed', key: secondHold, replacedBy: 'id:b', reason: 'posted' });

    // A third purchase at the same café is a new row of its own, replacing nothing.
    rows.push(posting('c', '2026-03-08'));
    const day8 = (await t.syncOn('2026-03-08')).map(link);
    expect(day8).toEqual([{ op: 'added', key: 'id:c' }]);
    expect((await t.storage.findTransactions('c1', '4711')).map((row) => row.key).sort()).toEqual([
      'id:a',
      'id:b',
      'id:c',
    ]);
  });
});
