/**
 * A balance check's verdict is about the rows and the balance it compared. When the rows move and
 * the balance cannot be compared with them, or the balance comes in another currency, the stored
 * verdict must not keep saying the account adds up.
 */
import { describe, expect, it } from 'vitest';
import { engineOverCraftedProvider, listedBetweenAskedDates, type WireRow } from './crafted-provider.js';

function gbp(amount: number) {
  return () => ({ balance: { amount, currency: 'GBP' } });
}

async function setUp() {
  const rows: WireRow[] = [{ id: 'a', amount: -10, date: '2026-03-01', merchant: 'Shop', isPending: false }];
  let balance: () => unknown = gbp(90);
  const crafted = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
    today: '2026-03-02',
    accountCurrency: 'GBP',
    balance: () => balance(),
  });
  const stored = async () => (await crafted.storage.listAccounts('c1'))[0]!;
  const postedSum = async () =>
    (await crafted.storage.findTransactions('c1', '4711'))
      .filter((row) => !row.isPending)
      .reduce((sum, row) => sum + Number(row.amount), 0);
  // Day 2 anchors the check; day 3 a new row and a balance that moved with it: balanced.
  await crafted.engine.sync('c1');
  crafted.today.date = '2026-03-03';
  rows.push({ id: 'b', amount: -5, date: '2026-03-03', merchant: 'Shop', isPending: false });
  balance = gbp(85);
  await crafted.engine.sync('c1');
  expect((await stored()).reconciliation?.status).toBe('balanced');
  return {
    ...crafted,
    rows,
    stored,
    postedSum,
    setBalance: (next: () => unknown) => (balance = next),
  };
}

describe('a verdict kept beside rows or a balance it did not compare', () => {
  it('rows that move while the balance cannot be fetched leave the account unchecked, not balanced', async () => {
    const t = await setUp();
    t.today.date = '2026-03-04';
    t.rows.push({ id: 'c', amount: -20, date: '2026-03-04', merchant: 'Shop', isPending: false });
    t.setBalance(() => new Response('upstream down', { status: 500 }));
    const report = await t.engine.sync('c1');
    expect(report.accounts[0]).toMatchObject({ balance: 'failed', added: 1, reconciliation: null });
    // The stored balance is yesterday's 85, the rows now sum to -35: no verdict says they add up.
    const account = await t.stored();
    expect(account.balance?.amount).toBe('85');
    expect(await t.postedSum()).toBe(-35);
    expect(account.reconciliation).toMatchObject({ status: 'unchecked', since: null, difference: null });
    // The feed carries the change of verdict, as it carries every change to the account.
    const feed = await t.storage.readChanges({ after: 0, limit: 1000 });
    expect(feed.at(-1)).toMatchObject({
      entity: 'account',
      op: 'modified',
      record: { reconciliation: { status: 'unchecked' } },
    });

    // The balance back, and moved by the new row: balanced again.
    t.setBalance(gbp(65));
    const again = await t.engine.sync('c1');
    expect(again.accounts[0]!.reconciliation?.status).toBe('balanced');
    expect((await t.stored()).reconciliation?.status).toBe('balanced');
  });

  it('a failed balance fetch with no row moved keeps the verdict, which still holds', async () => {
    const t = await setUp();
    t.today.date = '2026-03-04';
    t.setBalance(() => new Response('upstream down', { status: 500 }));
    const report = await t.engine.sync('c1');
    expect(report.accounts[0]).toMatchObject({ balance: 'failed', added: 0, modified: 0, removed: 0 });
    expect((await t.stored()).reconciliation?.status).toBe('balanced');
  });

  it('a balance in another currency than the one the check was anchored in starts the check again', async () => {
    const t = await setUp();
    // The same number, now said to be euros: the opening balance worked out in pounds measures nothing.
    t.today.date = '2026-03-04';
    t.setBalance(() => ({ balance: { amount: 85, currency: 'EUR' } }));
    const relabelled = await t.engine.sync('c1');
    expect(relabelled.accounts[0]!.reconciliation?.status).toBe('unchecked');
    expect((await t.stored()).reconciliation?.status).toBe('unchecked');
    // From the new anchor on, the euro balance is checked as any other.
    t.today.date = '2026-03-05';
    t.rows.push({ id: 'd', amount: -4, date: '2026-03-05', merchant: 'Shop', isPending: false });
    t.setBalance(() => ({ balance: { amount: 81, currency: 'EUR' } }));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('balanced');
  });

  it('a balance listed once without a currency is not taken for a change of currency', async () => {
    const t = await setUp();
    t.today.date = '2026-03-04';
    t.rows.push({ id: 'e', amount: -1, date: '2026-03-04', merchant: 'Shop', isPending: false });
    t.setBalance(() => ({ balance: { amount: 84 } }));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('balanced');
    t.today.date = '2026-03-05';
    t.rows.push({ id: 'f', amount: -2, date: '2026-03-05', merchant: 'Shop', isPending: false });
    t.setBalance(() => ({ balance: { amount: 82, currency: 'EUR' } }));
    // The anchor kept pounds through the answer without a currency: euros now start again.
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('unchecked');
  });
});
