/**
 * A hold the bank drops a read before it lists the posting ("the pending charge disappeared; it posts
 * the next business day"): the posting, listed later, still takes the hold's place (`replaces`), so an
 * app keeps the user's row, edits and deletion; a hold listed again after a gap is simply listed.
 */
import { describe, expect, it } from 'vitest';
import { engineOverCraftedProvider, listedBetweenAskedDates } from './crafted-provider.js';

interface WireRow {
  id: string | null;
  amount: number;
  date: string;
  merchant: string;
  isPending: boolean;
}

const hold: WireRow = { id: null, amount: -12.5, date: '2026-03-03', merchant: 'Cafe Rio', isPending: true };
const posting: WireRow = {
  id: 'tx1',
  amount: -12.5,
  date: '2026-03-05',
  merchant: 'Cafe Rio',
  isPending: false,
};

async function setUp(rows: WireRow[]) {
  const h = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
    today: '2026-03-03',
    accountCurrency: 'GBP',
  });
  const transactionFeed = async (after: number) =>
    (await h.storage.readChanges({ after, limit: 100 })).filter((e) => e.entity === 'transaction');
  const shown = async () => (await h.storage.findTransactions('c1', '4711')).map((r) => r.key);
  return { ...h, transactionFeed, shown };
}

describe('a hold dropped before its posting is listed', () => {
  it('is linked to the posting listed in a later read: added with replaces, reason posted', async () => {
    const rows = [hold];
    const h = await setUp(rows);
    await h.engine.sync('c1');
    const [holdKey] = await h.shown();
    // Day 4: the bank lists neither.
    rows.splice(0);
    h.today.date = '2026-03-04';
    const beforeGap = await h.storage.lastSeq();
    await h.engine.sync('c1');
    const gap = await h.transactionFeed(beforeGap);
    expect(gap.map((e) => [e.op, e.key, e.replacedBy ?? null])).toEqual([['removed', holdKey, null]]);
    // Day 5: the posting.
    rows.push(posting);
    h.today.date = '2026-03-05';
    const beforePosting = await h.storage.lastSeq();
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);
    const added = await h.transactionFeed(beforePosting);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ op: 'added', key: 'id:tx1', replaces: holdKey, reason: 'posted' });
    expect(await h.shown()).toEqual(['id:tx1']);
    // Linked once: a later read changes nothing.
    h.today.date = '2026-03-06';
    const after = await h.storage.lastSeq();
    await h.engine.sync('c1');
    expect(await h.transactionFeed(after)).toEqual([]);
  });

  it('listed again after the gap, is added back as itself, and its posting then replaces it as usual', async () => {
    const rows = [hold];
    const h = await setUp(rows);
    await h.engine.sync('c1');
    const [holdKey] = await h.shown();
    rows.splice(0);
    h.today.date = '2026-03-04';
    await h.engine.sync('c1');
    rows.push(hold);
    const back = await h.storage.lastSeq();
    await h.engine.sync('c1');
    expect((await h.transactionFeed(back)).map((e) => [e.op, e.key])).toEqual([['added', holdKey]]);
    rows.splice(0, 1, posting);
    h.today.date = '2026-03-05';
    const posted = await h.storage.lastSeq();
    await h.engine.sync('c1');
    const feed = await h.transactionFeed(posted);
    expect(feed.find((e) => e.op === 'removed')).toMatchObject({ key: holdKey, replacedBy: 'id:tx1' });
    expect(await h.shown()).toEqual(['id:tx1']);
  });

  it('that never posts is forgotten once no routine re-read reaches it, and takes no later purchase', async () => {
    const rows = [hold];
    const h = await setUp(rows);
    await h.engine.sync('c1');
    rows.splice(0);
    h.today.date = '2026-03-04';
    await h.engine.sync('c1');
    expect(await h.storage.listSuperseded('c1', '4711')).toHaveLength(1);
    // Outside the hold's 8 days: a purchase of its own.
    rows.push({ ...posting, date: '2026-03-12' });
    h.today.date = '2026-03-12';
    const later = await h.storage.lastSeq();
    await h.engine.sync('c1');
    const feed = await h.transactionFeed(later);
    expect(feed.map((e) => [e.op, e.replaces ?? null])).toEqual([['added', null]]);
    h.today.date = '2026-04-20';
    await h.engine.sync('c1');
    expect(await h.storage.listSuperseded('c1', '4711')).toEqual([]);
  });
});
