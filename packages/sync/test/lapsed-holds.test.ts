/**
 * A hold the bank drops a read before it lists the posting ("the pending charge disappeared; it posts
 * the next business day"): the posting, listed later, still takes the hold's place (`replaces`), so an
 * app keeps the user's row, edits and deletion; a hold listed again after a gap is simply listed.
 */
import { describe, expect, it } from 'vitest';
import { engineOverCraftedProvider, listedBetweenAskedDates, type WireRow } from './crafted-provider.js';

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
  /** A sync on `day`, with the transaction entries it wrote. */
  const syncOn = async (day: string) => {
    h.today.date = day;
    const before = await h.storage.lastSeq();
    const report = await h.engine.sync('c1');
    return { report, feed: await transactionFeed(before) };
  };
  return { ...h, shown, syncOn };
}

/** The hold listed on its day, then on the next listed no more: what each test starts from. */
async function heldThenDropped() {
  const rows = [hold];
  const h = await setUp(rows);
  await h.syncOn('2026-03-03');
  const [holdKey] = await h.shown();
  rows.splice(0);
  const gap = await h.syncOn('2026-03-04');
  return { rows, h, holdKey: holdKey!, gap };
}

describe('a hold dropped before its posting is listed', () => {
  it('is still linked when the read that dropped it died as its linking commit went out', async () => {
    // The read that drops the hold also links another hold to its posting, so it commits twice: the
    // links last. The removal of the dropped hold must land with the memory of it (`lapsed`); stored
    // without it, the hold is never seen to vanish again and its posting comes as a stranger.
    const grocerHold: WireRow = {
      id: null,
      amount: -40,
      date: '2026-03-02',
      merchant: 'Grocer',
      isPending: true,
    };
    const grocerPosting: WireRow = { ...grocerHold, id: 'tx2', date: '2026-03-04', isPending: false };
    const rows = [hold, grocerHold];
    const h = await setUp(rows);
    await h.syncOn('2026-03-03');
    const holdKey = (await h.storage.findTransactions('c1', '4711')).find(
      (r) => r.merchant === 'Cafe Rio',
    )!.key;

    rows.splice(0, rows.length, grocerPosting);
    const apply = h.storage.apply.bind(h.storage);
    let died = false;
    // The process dies as the commit with the window's links goes out.
    h.storage.apply = async (batch) => {
      const linking = batch.changes.some((c) => (c as { replaces?: string | null }).replaces);
      if (linking && !died) {
        died = true;
        throw new Error('the process died here');
      }
      return apply(batch);
    };
    expect((await h.syncOn('2026-03-04')).report.ok).toBe(false);
    expect(died).toBe(true);
    h.storage.apply = apply;
    // The restarted process reads the same day again, then the posting arrives.
    expect((await h.syncOn('2026-03-04')).report.ok).toBe(true);
    rows.push(posting);
    const { report, feed } = await h.syncOn('2026-03-05');
    expect(report.ok).toBe(true);
    expect(feed.find((e) => e.key === 'id:tx1')).toMatchObject({
      op: 'added',
      replaces: holdKey,
      reason: 'posted',
    });
  });

  it('is linked to the posting listed in a later read: added with replaces, reason posted', async () => {
    // Day 4: the bank lists neither.
    const { rows, h, holdKey, gap } = await heldThenDropped();
    expect(gap.feed.map((e) => [e.op, e.key, e.replacedBy ?? null])).toEqual([['removed', holdKey, null]]);
    // Day 5: the posting.
    rows.push(posting);
    const { report, feed: added } = await h.syncOn('2026-03-05');
    expect(report.ok).toBe(true);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ op: 'added', key: 'id:tx1', replaces: holdKey, reason: 'posted' });
    expect(await h.shown()).toEqual(['id:tx1']);
    // Linked once: a later read changes nothing.
    expect((await h.syncOn('2026-03-06')).feed).toEqual([]);
  });

  it('listed again after the gap, is added back as itself, and its posting then replaces it as usual', async () => {
    const { rows, h, holdKey } = await heldThenDropped();
    rows.push(hold);
    const back = await h.syncOn('2026-03-04');
    expect(back.feed.map((e) => [e.op, e.key])).toEqual([['added', holdKey]]);
    rows.splice(0, 1, posting);
    const { feed } = await h.syncOn('2026-03-05');
    expect(feed.find((e) => e.op === 'removed')).toMatchObject({ key: holdKey, replacedBy: 'id:tx1' });
    expect(await h.shown()).toEqual(['id:tx1']);
  });

  it('that never posts is forgotten once no routine re-read reaches it, and takes no later purchase', async () => {
    const { rows, h } = await heldThenDropped();
    expect(await h.storage.listSuperseded('c1', '4711')).toHaveLength(1);
    // Outside the hold's 8 days: a purchase of its own.
    rows.push({ ...posting, date: '2026-03-12' });
    const { feed } = await h.syncOn('2026-03-12');
    expect(feed.map((e) => [e.op, e.replaces ?? null])).toEqual([['added', null]]);
    await h.syncOn('2026-04-20');
    expect(await h.storage.listSuperseded('c1', '4711')).toEqual([]);
  });
});
