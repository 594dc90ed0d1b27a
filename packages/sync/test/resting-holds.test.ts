/**
 * Holds of an account the engine no longer reads (inactive at the provider, or gone from its list):
 * nothing would replace or remove them, so once no routine re-read would reach them they are removed;
 * the account's posted rows stay.
 */
import { describe, expect, it } from 'vitest';
import { engineOverCraftedProvider, listedBetweenAskedDates, type WireRow } from './crafted-provider.js';

const hold: WireRow = {
  id: null,
  amount: -42,
  date: '2026-03-03',
  merchant: 'Harbour Hotel',
  isPending: true,
};
const posted: WireRow = {
  id: 'tx1',
  amount: -9.99,
  date: '2026-03-02',
  merchant: 'Streamly',
  isPending: false,
};
const current = { id: 4711, name: 'Current', institution_name: 'Bank', status: 'ACTIVE', currency: 'GBP' };
const savings = { id: 4712, name: 'Savings', institution_name: 'Bank', status: 'ACTIVE', currency: 'GBP' };

async function setUp() {
  let accounts = [current, savings];
  const rows = [hold, posted];
  const h = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
    today: '2026-03-03',
    accounts: () => accounts,
  });
  const syncOn = async (day: string) => {
    h.today.date = day;
    const before = await h.storage.lastSeq();
    const report = await h.engine.sync('c1');
    const feed = (await h.storage.readChanges({ after: before, limit: 100 })).filter(
      (e) => e.entity === 'transaction',
    );
    return { report, feed: feed.map((e) => [e.op, e.key]) };
  };
  const shown = async () => (await h.storage.findTransactions('c1', '4711')).map((r) => r.key);
  await syncOn('2026-03-03');
  const holdKey = (await shown()).find((key) => key.startsWith('h:'))!;
  return { ...h, rows, syncOn, shown, holdKey, setAccounts: (next: typeof accounts) => (accounts = next) };
}

describe('a hold of an account the engine no longer reads', () => {
  for (const [how, after] of [
    ['inactive at the provider', [{ ...current, status: 'DISCONNECTED' }, savings]],
    ['gone from its list', [savings]],
  ] as const) {
    it(`(${how}) stays while a routine re-read could still reach it, then is removed; posted rows stay`, async () => {
      const h = await setUp();
      expect(await h.shown()).toEqual(['id:tx1', h.holdKey]);
      h.setAccounts([...after]);
      // 31 + 8 days after the hold's date: an active account's re-read would still reach it.
      const within = await h.syncOn('2026-04-11');
      expect(within.report.ok).toBe(true);
      expect(within.feed).toEqual([]);
      const past = await h.syncOn('2026-04-12');
      expect(past.report.ok).toBe(true);
      expect(past.feed).toEqual([['removed', h.holdKey]]);
      expect(await h.shown()).toEqual(['id:tx1']);
      // Once: the next run removes nothing more.
      expect((await h.syncOn('2026-04-13')).feed).toEqual([]);
    });
  }

  it('of an active account is left to what the bank lists: not removed for its age', async () => {
    const h = await setUp();
    const { feed } = await h.syncOn('2026-05-20');
    expect(feed).toEqual([]);
    expect(await h.shown()).toContain(h.holdKey);
  });

  it('removed, is still replaced by its posting when the account comes back and lists it', async () => {
    const h = await setUp();
    h.setAccounts([{ ...current, status: 'DISCONNECTED' }, savings]);
    expect((await h.syncOn('2026-04-12')).feed).toEqual([['removed', h.holdKey]]);
    // While the connection was broken the bank posted the hotel charge.
    h.rows.splice(h.rows.indexOf(hold), 1, { ...hold, id: 'tx9', date: '2026-03-05', isPending: false });
    h.setAccounts([current, savings]);
    const seq = await h.storage.lastSeq();
    expect((await h.syncOn('2026-04-13')).report.ok).toBe(true);
    // (The crafted provider lists the same rows for the savings account, which was read throughout.)
    const ofCurrent = (await h.storage.readChanges({ after: seq, limit: 100 }))
      .filter((e) => e.entity === 'transaction')
      .filter((e) => e.accountId === '4711');
    expect(ofCurrent.map((e) => [e.op, e.key, e.replaces ?? null, e.reason ?? null])).toEqual([
      ['added', 'id:tx9', h.holdKey, 'posted'],
    ]);
  });

  it('a run stopped while it removes them is a stopped run: it does not count as the last run', async () => {
    const h = await setUp();
    h.setAccounts([current, { ...savings, status: 'DISCONNECTED' }]);
    const before = await h.engine.getConnection('c1');
    const off = h.engine.on('account:done', () => void h.engine.stop({ abort: true }));
    h.today.date = '2026-04-12';
    const report = await h.engine.sync('c1');
    off();
    expect(report.issues.map((i) => i.stage)).toEqual(['transactions']);
    expect((await h.engine.getConnection('c1'))?.lastRunAt).toBe(before?.lastRunAt);
  });

  it('removed, moves the account’s ledger: its row count no longer counts them', async () => {
    const h = await setUp();
    const rowsOf = async () =>
      (await h.storage.listAccountStates('c1')).find((state) => state.accountId === '4711')?.ledger?.rows;
    const before = await rowsOf();
    expect(before).toBe(2);
    h.setAccounts([{ ...current, status: 'DISCONNECTED' }, savings]);
    expect((await h.syncOn('2026-04-12')).feed).toEqual([['removed', h.holdKey]]);
    expect(await rowsOf()).toBe(1);
    expect(await h.storage.countTransactions('c1', '4711')).toBe(1);
  });
});
