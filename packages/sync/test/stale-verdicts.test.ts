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
  let holdings: () => unknown = () => ({ holdings: [], totalValue: 0 });
  const crafted = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
    today: '2026-03-02',
    accountCurrency: 'GBP',
    balance: () => balance(),
    holdings: () => holdings(),
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
    setHoldings: (next: () => unknown) => (holdings = next),
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

  it('rows committed by a run that a rate limit stops before its check leave the account unchecked', async () => {
    const t = await setUp();
    t.today.date = '2026-03-04';
    t.rows.push({ id: 'c', amount: -20, date: '2026-03-04', merchant: 'Shop', isPending: false });
    t.setBalance(() => new Response('slow down', { status: 429, headers: { 'retry-after': '60' } }));
    const stopped = await t.engine.sync('c1');
    expect(stopped.ok).toBe(false);
    expect(await t.postedSum()).toBe(-35);
    expect((await t.stored()).reconciliation?.status).toBe('unchecked');
  });

  it('a run that a rate limit stops at the holdings stores the verdict it worked out before it stops', async () => {
    const t = await setUp();
    // A row of 20.00 the balance has not moved for: the check finds the rows 20.00 short of money out.
    t.today.date = '2026-03-04';
    t.rows.push({ id: 'c', amount: -20, date: '2026-03-04', merchant: 'Shop', isPending: false });
    t.setHoldings(() => new Response('slow down', { status: 429, headers: { 'retry-after': '60' } }));
    expect((await t.engine.sync('c1')).ok).toBe(false);
    expect((await t.stored()).reconciliation).toMatchObject({ status: 'mismatch', difference: '20' });
  });

  it('a run that a rate limit stops at the holdings says when and why the account last synced', async () => {
    const t = await setUp();
    t.today.date = '2026-03-04';
    t.setBalance(gbp(70));
    t.setHoldings(() => new Response('slow down', { status: 429, headers: { 'retry-after': '60' } }));
    const report = await t.engine.sync('c1');
    expect(report.ok).toBe(false);
    // The balance this run read is stored, so the account's last sync is this run's, with its stop.
    expect((await t.stored()).balance?.amount).toBe('70');
    const [state] = await t.storage.listAccountStates('c1');
    expect(state).toMatchObject({
      lastSyncedAt: '2026-03-04T12:00:00.000Z',
      lastError: report.accounts[0]!.issues[0]!.message,
    });
    expect(state!.lastError).toMatch(/429|rate/i);
  });

  it('a verdict left behind by a run that stopped without writing it is withdrawn by the next run', async () => {
    const t = await setUp();
    t.today.date = '2026-03-04';
    t.rows.push({ id: 'c', amount: -20, date: '2026-03-04', merchant: 'Shop', isPending: false });
    t.setBalance(() => new Response('slow down', { status: 429, headers: { 'retry-after': '60' } }));
    // The run stops; its write of the verdict fails too (the database went away at that moment).
    const apply = t.storage.apply.bind(t.storage);
    let refuseVerdictWrite = true;
    t.storage.apply = async (batch) => {
      const verdictOnly = batch.changes?.length === 1 && batch.changes[0]!.entity === 'account';
      if (verdictOnly && refuseVerdictWrite) throw new Error('database unavailable');
      return apply(batch);
    };
    await t.engine.sync('c1');
    refuseVerdictWrite = false;
    expect(await t.postedSum()).toBe(-35);
    expect((await t.stored()).reconciliation?.status).toBe('balanced'); // stale, until the next run

    // The next run moves nothing and cannot fetch the balance: the rows the stopped run committed
    // were never compared, and the verdict about the rows before them is withdrawn.
    t.today.date = '2026-03-05';
    t.setBalance(() => new Response('upstream down', { status: 500 }));
    const next = await t.engine.sync('c1');
    expect(next.accounts[0]).toMatchObject({ balance: 'failed', added: 0, modified: 0, removed: 0 });
    expect((await t.stored()).reconciliation?.status).toBe('unchecked');
    // Once compared again, the verdict is back.
    t.setBalance(gbp(65));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('balanced');
  });

  it('a balance in another currency than the one the check was anchored in starts the check again once it stays', async () => {
    const t = await setUp();
    // The same number, now said to be euros: the opening balance worked out in pounds measures nothing.
    t.today.date = '2026-03-04';
    t.setBalance(() => ({ balance: { amount: 85, currency: 'EUR' } }));
    const relabelled = await t.engine.sync('c1');
    expect(relabelled.accounts[0]!.reconciliation?.status).toBe('unchecked');
    expect((await t.stored()).reconciliation?.status).toBe('unchecked');
    // Euros a second time: the account's currency changed, and the check starts again from here.
    t.today.date = '2026-03-05';
    t.rows.push({ id: 'd', amount: -4, date: '2026-03-05', merchant: 'Shop', isPending: false });
    t.setBalance(() => ({ balance: { amount: 81, currency: 'EUR' } }));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('unchecked');
    // From the new anchor on, the euro balance is checked as any other.
    t.today.date = '2026-03-06';
    t.rows.push({ id: 'g', amount: -6, date: '2026-03-06', merchant: 'Shop', isPending: false });
    t.setBalance(() => ({ balance: { amount: 75, currency: 'EUR' } }));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('balanced');
  });

  it('one balance mislabelled with another currency does not wipe out a mismatch', async () => {
    const t = await setUp();
    // A debit of 20.00 the provider never lists: the balance moved, the rows did not.
    t.today.date = '2026-03-04';
    t.setBalance(gbp(65));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation).toMatchObject({
      status: 'mismatch',
      difference: '-20',
    });
    t.today.date = '2026-03-05';
    t.setBalance(() => ({ balance: { amount: 65, currency: 'EUR' } }));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('unchecked');
    // Pounds again, and a row that moved the balance with it: the 20.00 is still missing.
    t.today.date = '2026-03-06';
    t.rows.push({ id: 'h', amount: -5, date: '2026-03-06', merchant: 'Shop', isPending: false });
    t.setBalance(gbp(60));
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation).toMatchObject({
      status: 'mismatch',
      difference: '-20',
    });
  });

  it('a new currency sent on some answers only is taken once, and the check settles in it', async () => {
    const t = await setUp();
    const statuses: string[] = [];
    let amount = 85;
    for (const [day, currency] of [
      ['04', 'EUR'],
      ['05', undefined],
      ['06', 'EUR'],
      ['07', undefined],
      ['08', 'EUR'],
    ] as const) {
      t.today.date = `2026-03-${day}`;
      t.rows.push({ id: `n${day}`, amount: -1, date: t.today.date, merchant: 'Shop', isPending: false });
      amount -= 1;
      const balance = { amount, ...(currency ? { currency } : {}) };
      t.setBalance(() => ({ balance }));
      statuses.push((await t.engine.sync('c1')).accounts[0]!.reconciliation!.status);
    }
    // Euros once (not measured from the pounds), euros again (a balance without a currency is in the
    // last one named): the check starts from there and holds.
    expect(statuses).toEqual(['unchecked', 'unchecked', 'balanced', 'balanced', 'balanced']);
  });

  it('a balance without a currency is in the one the balances name, not the account list’s', async () => {
    // The list says pounds; every balance that names a currency says euros.
    const rows: WireRow[] = [
      { id: 'a', amount: -10, date: '2026-03-01', merchant: 'Shop', isPending: false },
    ];
    let balance: unknown = { balance: { amount: 90, currency: 'EUR' } };
    const t = await engineOverCraftedProvider(listedBetweenAskedDates(rows), {
      today: '2026-03-02',
      accountCurrency: 'GBP',
      balance: () => balance,
    });
    await t.engine.sync('c1');
    t.today.date = '2026-03-03';
    rows.push({ id: 'b', amount: -5, date: '2026-03-03', merchant: 'Shop', isPending: false });
    balance = { balance: { amount: 85, currency: 'EUR' } };
    expect((await t.engine.sync('c1')).accounts[0]!.reconciliation?.status).toBe('balanced');
    // A debit of 1.00 never listed, and balances without a currency: still measured in euros.
    for (const day of ['04', '05', '06']) {
      t.today.date = `2026-03-${day}`;
      balance = { balance: { amount: 84 } };
      expect((await t.engine.sync('c1')).accounts[0]!.reconciliation, day).toMatchObject({
        status: 'mismatch',
        difference: '-1',
      });
    }
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
