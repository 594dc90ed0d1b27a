/**
 * A hold the bank lists again with other content while it is still pending: its amount updated (a
 * hotel's incremental authorisation), its text rewritten. A hold has no id and its key is made from
 * what it says, so it comes back under a new key; the new key takes the old one's place (`replaces`,
 * reason `id-changed`), so an app keeps the user's row, edits and deletion.
 */
import { describe, expect, it } from 'vitest';
import { engineOverCraftedProvider, listedBetweenAskedDates, type WireRow } from './crafted-provider.js';

const hold: WireRow = {
  id: null,
  amount: -120,
  date: '2026-03-03',
  merchant: 'Harbour Hotel',
  isPending: true,
};

async function setUp(rows: WireRow[]) {
  const h = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
    today: '2026-03-03',
    accountCurrency: 'GBP',
  });
  const shown = async () =>
    (await h.storage.findTransactions('c1', '4711')).map((r) => `${r.amount} ${r.description ?? r.merchant}`);
  /** A sync on `day`, with the transaction entries it wrote as [op, key, linked key, reason]. */
  const syncOn = async (day: string) => {
    h.today.date = day;
    const before = await h.storage.lastSeq();
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);
    const feed = (await h.storage.readChanges({ after: before, limit: 100 })).filter(
      (e) => e.entity === 'transaction',
    );
    return feed.map((e) => [e.op, e.key, e.replaces ?? e.replacedBy ?? null, e.reason ?? null]);
  };
  const keys = async () => (await h.storage.findTransactions('c1', '4711')).map((r) => r.key);
  return { ...h, shown, syncOn, keys };
}

/** The rows listed on the first day, synced; then what a day's sync writes after `change`. */
async function relisted(first: WireRow[], next: WireRow[]) {
  const rows = [...first];
  const h = await setUp(rows);
  await h.syncOn('2026-03-03');
  const before = await h.keys();
  rows.splice(0, rows.length, ...next);
  const feed = await h.syncOn('2026-03-04');
  return { h, rows, before, feed, after: await h.keys() };
}

describe('a hold listed again with other content while pending', () => {
  it('at an updated amount takes the old key’s place: added with replaces, then removed with replacedBy', async () => {
    const raised = { ...hold, amount: -185.4 };
    const { h, before, feed, after } = await relisted([hold], [raised]);
    const [oldKey] = before;
    const [newKey] = after;
    expect(newKey).not.toBe(oldKey);
    expect(feed).toEqual([
      ['added', newKey, oldKey, 'id-changed'],
      ['removed', oldKey, newKey, 'id-changed'],
    ]);
    expect(await h.shown()).toEqual(['-185.4 Harbour Hotel']);
    // Linked once: the next read changes nothing.
    expect(await h.syncOn('2026-03-05')).toEqual([]);
  });

  it('then posted, is replaced by its posting as any hold is', async () => {
    const raised = { ...hold, amount: -185.4 };
    const { h, rows, after } = await relisted([hold], [raised]);
    rows.splice(0, 1, { ...raised, id: 'tx9', date: '2026-03-06', isPending: false });
    const feed = await h.syncOn('2026-03-06');
    expect(feed).toEqual([
      ['added', 'id:tx9', after[0], 'posted'],
      ['removed', after[0], 'id:tx9', 'posted'],
    ]);
    expect(await h.keys()).toEqual(['id:tx9']);
    // The first hold's record is forgotten once a read no longer lists it: nothing comes back.
    expect(await h.syncOn('2026-03-07')).toEqual([]);
    expect(await h.shown()).toEqual(['-185.4 Harbour Hotel']);
  });

  it('without a merchant, under a rewritten text at the same amount, is the same hold', async () => {
    const bare: WireRow = { ...hold, merchant: null, description: 'Pending authorisation', amount: -24.76 };
    const { h, before, feed, after } = await relisted(
      [bare],
      [{ ...bare, description: 'PENDING THE RED LION' }],
    );
    expect(feed).toEqual([
      ['added', after[0], before[0], 'id-changed'],
      ['removed', before[0], after[0], 'id-changed'],
    ]);
    expect(await h.shown()).toEqual(['-24.76 PENDING THE RED LION']);
  });

  it('is not linked where two holds of the payee vanish and one new one arrives: nobody can tell which', async () => {
    const second = { ...hold, amount: -60 };
    const { feed, after } = await relisted([hold, second], [{ ...hold, amount: -185.4 }]);
    expect(feed.filter((e) => e[2] !== null)).toEqual([]);
    expect(after).toHaveLength(1);
  });

  it('is not linked beside another hold of the payee the bank still lists', async () => {
    const other = { ...hold, amount: -60 };
    const { feed } = await relisted([hold, other], [other, { ...hold, amount: -185.4 }]);
    expect(feed.filter((e) => e[2] !== null)).toEqual([]);
    expect(feed.map((e) => e[0]).sort()).toEqual(['added', 'removed']);
  });

  it('does not take a hold whose posting arrives in the same read: the posting stands for it', async () => {
    const posting = { ...hold, id: 'tx1', date: '2026-03-04', isPending: false };
    const nextStay = { ...hold, amount: -40, date: '2026-03-04' };
    const { before, feed, after } = await relisted([hold], [posting, nextStay]);
    expect(feed).toContainEqual(['removed', before[0], 'id:tx1', 'posted']);
    const staysKey = after.find((key) => key !== 'id:tx1');
    expect(feed).toContainEqual(['added', staysKey, null, null]);
  });

  it('is not linked to a new hold of another payee, or one of another date (a re-listed hold keeps its date)', async () => {
    const elsewhere = { ...hold, merchant: 'Station Cafe', amount: -185.4 };
    const earlier = { ...hold, amount: -185.4, date: '2026-03-02' };
    const later = { ...hold, amount: -185.4, date: '2026-03-04' };
    for (const next of [elsewhere, earlier, later]) {
      const { feed } = await relisted([hold], [next]);
      expect(feed.filter((e) => e[2] !== null)).toEqual([]);
    }
  });

  it('is not taken for a hold the bank dropped a read early: its posting, listed later, still takes its place', async () => {
    // Monday's coffee hold vanishes on Tuesday, when Tuesday's coffee is held; Monday's posts Wednesday.
    const monday: WireRow = {
      id: null,
      amount: -4.5,
      date: '2026-03-03',
      merchant: 'Station Cafe',
      isPending: true,
    };
    const tuesday = { ...monday, amount: -3.2, date: '2026-03-04' };
    const { h, rows, before, feed } = await relisted([monday], [tuesday]);
    expect(feed.filter((e) => e[2] !== null)).toEqual([]);
    rows.push({ ...monday, id: 'tx1', date: '2026-03-05', isPending: false });
    expect(await h.syncOn('2026-03-05')).toEqual([['added', 'id:tx1', before[0], 'posted']]);
  });

  it('is not taken for a hold a posting of its payee could stand for, even where no rule linked them', async () => {
    // The bistro hold posts with a tip while a lunch hold is listed: two holds could be the posting's.
    const bistro: WireRow = {
      id: null,
      amount: -50,
      date: '2026-03-03',
      merchant: 'Bistro',
      isPending: true,
    };
    const lunch = { ...bistro, amount: -20 };
    const tipped = { ...bistro, id: 'tx1', amount: -60, date: '2026-03-04', isPending: false };
    const { feed } = await relisted([bistro], [tipped, lunch]);
    expect(feed.filter((e) => e[2] !== null)).toEqual([]);
  });

  it('taken for re-listed, then listed again beside the hold that took its place, is shown again: two purchases', async () => {
    // The bank leaves the first coffee out for one read as a second one of the same day is held.
    const first: WireRow = {
      id: null,
      amount: -4.5,
      date: '2026-03-03',
      merchant: 'Station Cafe',
      isPending: true,
    };
    const second = { ...first, amount: -3.2 };
    const { h, rows, before, feed, after } = await relisted([first], [second]);
    expect(feed).toEqual([
      ['added', after[0], before[0], 'id-changed'],
      ['removed', before[0], after[0], 'id-changed'],
    ]);
    rows.push(first);
    expect(await h.syncOn('2026-03-05')).toEqual([['added', before[0], null, null]]);
    expect((await h.shown()).sort()).toEqual(['-3.2 Station Cafe', '-4.5 Station Cafe']);
    // And each posts as itself.
    rows.splice(
      0,
      2,
      { ...first, id: 'tx1', date: '2026-03-06', isPending: false },
      { ...second, id: 'tx2', date: '2026-03-06', isPending: false },
    );
    const posted = await h.syncOn('2026-03-06');
    expect(posted.filter((e) => e[0] === 'added')).toEqual([
      ['added', 'id:tx1', before[0], 'posted'],
      ['added', 'id:tx2', after[0], 'posted'],
    ]);
  });

  it('re-listed and posted between two syncs (listed beside its posting), is replaced by the posting', async () => {
    const rows = [hold];
    const h = await setUp(rows);
    await h.syncOn('2026-03-03');
    const [oldKey] = await h.keys();
    // Two days later: the hold at its full amount, still listed beside the posting it became.
    const raised = { ...hold, amount: -185.4 };
    rows.splice(0, 1, raised, { ...raised, id: 'tx9', date: '2026-03-05', isPending: false });
    expect(await h.syncOn('2026-03-05')).toEqual([
      ['added', 'id:tx9', oldKey, 'posted'],
      ['removed', oldKey, 'id:tx9', 'posted'],
    ]);
    expect(await h.keys()).toEqual(['id:tx9']);
    expect(await h.syncOn('2026-03-06')).toEqual([]);
  });

  it('without a merchant or a text, is not held back by a textless posting of another amount', async () => {
    const bare: WireRow = {
      id: null,
      amount: -24.76,
      date: '2026-03-03',
      merchant: null,
      description: null,
      isPending: true,
    };
    const salary: WireRow = {
      id: 'tx5',
      amount: 500,
      date: '2026-03-04',
      merchant: null,
      description: null,
      isPending: false,
    };
    const { feed, before, after } = await relisted(
      [bare],
      [{ ...bare, description: 'PENDING THE RED LION' }, salary],
    );
    const relistedKey = after.find((key) => key !== 'id:tx5');
    expect(feed).toContainEqual(['added', relistedKey, before[0], 'id-changed']);
  });

  it('is not linked where a hold set aside (its posting may be listed) could be the new hold as well', async () => {
    // Two holds without a merchant, of one amount and date, vanish; a third of the payee stays listed
    // so the posting of one of them cannot be linked: which of the two the new hold is, nobody can tell.
    const foo: WireRow = {
      id: null,
      amount: -10,
      date: '2026-03-03',
      merchant: null,
      description: 'Foo',
      isPending: true,
    };
    const pending = { ...foo, description: 'Pending' };
    const other = { ...foo, amount: -30 };
    const bar = { ...foo, description: 'Bar' };
    const posting: WireRow = {
      id: 'tx1',
      amount: -12,
      date: '2026-03-04',
      merchant: null,
      description: 'Foo',
      isPending: false,
    };
    const { feed } = await relisted([foo, pending, other], [other, bar, posting]);
    expect(feed.filter((e) => e[3] === 'id-changed')).toEqual([]);
  });
});

describe('a hold hidden behind its posting, listed again with other content', () => {
  const posting: WireRow = { ...hold, id: 'tx1', date: '2026-03-05', isPending: false };

  /** The hold alone on the 3rd; beside its posting on the 5th (hidden); `next` on the 6th and 7th. */
  async function hiddenThen(first: WireRow, next: WireRow[]) {
    const rows = [first];
    const h = await setUp(rows);
    await h.syncOn('2026-03-03');
    rows.splice(0, rows.length, first, posting);
    const posted = await h.syncOn('2026-03-05');
    expect(posted.filter((e) => e[3] === 'posted')).toHaveLength(2);
    rows.splice(0, rows.length, ...next);
    return { h, rows, feeds: [await h.syncOn('2026-03-06'), await h.syncOn('2026-03-07')] };
  }

  it('under a rewritten text stays hidden: the purchase is shown once, as its posting', async () => {
    const { h, feeds } = await hiddenThen(hold, [
      { ...hold, description: 'PENDING - HARBOUR HOTEL' },
      posting,
    ]);
    expect(feeds).toEqual([[], []]);
    expect(await h.keys()).toEqual(['id:tx1']);
    // Dropped by the bank at last: nothing changes either.
    expect(await h.syncOn('2026-03-08')).toEqual([]);
    expect(await h.keys()).toEqual(['id:tx1']);
  });

  it('without a merchant, under a rewritten text at the same amount, stays hidden', async () => {
    const bare: WireRow = { ...hold, merchant: null, description: 'Pending authorisation' };
    const barePosting = { ...posting, merchant: null, description: 'Pending authorisation' };
    const rows = [bare];
    const h = await setUp(rows);
    await h.syncOn('2026-03-03');
    rows.splice(0, rows.length, bare, barePosting);
    await h.syncOn('2026-03-05');
    rows.splice(0, rows.length, { ...bare, description: 'PENDING HARBOUR HOTEL' }, barePosting);
    expect(await h.syncOn('2026-03-06')).toEqual([]);
    expect(await h.keys()).toEqual(['id:tx1']);
  });

  it('at another amount is shown at once, as a hold listed beside a posting at another amount is', async () => {
    const raised = { ...hold, amount: -185.4, description: 'PENDING - HARBOUR HOTEL' };
    const { h, feeds } = await hiddenThen(hold, [raised, posting]);
    expect(feeds[0]).toEqual([['added', expect.stringMatching(/^h:/), null, null]]);
    expect(feeds[1]).toEqual([]);
    expect((await h.shown()).sort()).toEqual(['-120 Harbour Hotel', '-185.4 PENDING - HARBOUR HOTEL']);
  });

  it('listed again under its old text after the rewrite, the old hold stays hidden too', async () => {
    const rewritten = { ...hold, description: 'PENDING - HARBOUR HOTEL' };
    const { h, rows } = await hiddenThen(hold, [rewritten, posting]);
    rows.splice(0, rows.length, hold, rewritten, posting);
    expect(await h.syncOn('2026-03-08')).toEqual([]);
    rows.splice(0, rows.length, hold, posting);
    expect(await h.syncOn('2026-03-09')).toEqual([]);
    expect(await h.keys()).toEqual(['id:tx1']);
  });

  it('rewritten as its posting’s id is re-issued, then the posting withdrawn: the rewritten hold comes back', async () => {
    const rewritten = { ...hold, description: 'PENDING - HARBOUR HOTEL' };
    const reissued = { ...posting, id: 'tx1b' };
    const { h, rows, feeds } = await hiddenThen(hold, [rewritten, reissued]);
    expect(feeds[0]).toEqual([
      ['added', 'id:tx1b', 'id:tx1', 'id-changed'],
      ['removed', 'id:tx1', 'id:tx1b', 'id-changed'],
    ]);
    rows.splice(0, rows.length, rewritten);
    const withdrawn = await h.syncOn('2026-03-08');
    expect(withdrawn).toEqual([
      ['added', expect.stringMatching(/^h:/), 'id:tx1b', 'reverted'],
      ['removed', 'id:tx1b', expect.stringMatching(/^h:/), 'reverted'],
    ]);
    expect(await h.shown()).toEqual(['-120 PENDING - HARBOUR HOTEL']);
  });

  it('is told from a second hold of its merchant that day by its amount (a room and its deposit)', async () => {
    const deposit = { ...hold, amount: -60 };
    const rows = [hold, deposit];
    const h = await setUp(rows);
    await h.syncOn('2026-03-03');
    rows.splice(0, rows.length, hold, deposit, posting);
    await h.syncOn('2026-03-05');
    rows.splice(0, rows.length, { ...hold, description: 'PENDING - HARBOUR HOTEL' }, deposit, posting);
    expect(await h.syncOn('2026-03-06')).toEqual([]);
    expect(await h.shown()).toEqual(['-60 Harbour Hotel', '-120 Harbour Hotel']);
  });

  it('is not taken for a new hold of another date, or one of two new holds of its payee: those are shown', async () => {
    const otherDay = { ...hold, date: '2026-03-04', description: 'PENDING - HARBOUR HOTEL' };
    const shownBeside = await hiddenThen(hold, [otherDay, posting]);
    expect(shownBeside.feeds[0]).toEqual([['added', expect.stringMatching(/^h:/), null, null]]);
    const twoNew = [
      { ...hold, description: 'PENDING - HARBOUR HOTEL' },
      { ...hold, description: 'PENDING - HARBOUR HOTEL ROOM 2' },
      posting,
    ];
    const both = await hiddenThen(hold, twoNew);
    expect(both.feeds[0]!.map((e) => e[0])).toEqual(['added', 'added']);
  });
});
