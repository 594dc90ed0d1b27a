import { toDecimalString } from '@finsync/provider';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE, createHarness, server, useMsw, type Harness } from './harness.js';

useMsw();

type WireRow = { id: string | null; amount: number; date: string; isPending: boolean };

/** Serves one account's transactions through `edit`, so a test can make the provider misbehave. */
function editTransactions(h: Harness, accountId: string, edit: (rows: WireRow[]) => WireRow[]): void {
  server.use(
    http.get(`${BASE}/accounts/${accountId}/transactions`, async ({ request }) => {
      const body = (await (await h.sandbox.handle(request)).json()) as { transactions: WireRow[] };
      const transactions = edit(body.transactions);
      return HttpResponse.json({ transactions, total: transactions.length });
    }),
  );
}

/** Drops every edit: the sandbox answers as it is. */
function useSandboxOnly(h: Harness): void {
  server.resetHandlers();
  server.use(http.all(`${BASE}/*`, ({ request }) => h.sandbox.handle(request)));
}

const cents = (amount: string) => Math.round(Number(amount) * 100);
const totalOf = (rows: ReadonlyArray<{ amount: string }>) =>
  rows.reduce((sum, row) => sum + cents(row.amount), 0);

async function reconciliation(h: Harness, accountId: string) {
  return (await h.storage.listAccounts('c1')).find((a) => a.id === accountId)!.reconciliation;
}

describe('balances that add up', () => {
  it('on a healthy account: unchecked until the balance or the rows move, then balanced every day, with the opening balance of the history', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    expect(await reconciliation(h, '4711')).toMatchObject({ status: 'unchecked' });
    // Nothing new upstream: the rows add up only because the opening balance came from them.
    const again = await h.engine.sync('c1');
    for (const account of again.accounts) expect(account.reconciliation?.status).toBe('unchecked');
    const balanced = new Set<string>();
    for (let day = 0; day < 15; day += 1) {
      h.sandbox.advanceDays(1);
      const report = await h.engine.sync('c1');
      for (const account of report.accounts) {
        const status = account.reconciliation?.status;
        const where = `${account.accountId} on day ${day}`;
        if (balanced.has(account.accountId)) expect(status, where).toBe('balanced');
        else expect(['unchecked', 'balanced'], where).toContain(status);
        if (status === 'balanced') balanced.add(account.accountId);
      }
    }
    expect(balanced.size).toBeGreaterThan(4);
    // The whole history was synced, so what the rows do not explain is the sandbox's opening balance.
    for (const account of h.sandbox.listAccounts().filter((a) => a.status === 'ACTIVE')) {
      const check = await reconciliation(h, account.id);
      expect(check, account.id).toMatchObject({
        status: balanced.has(account.id) ? 'balanced' : 'unchecked',
        basis: 'posted',
        openingBalance: toDecimalString(account.openingBalance),
        since: null,
        difference: null,
      });
      const rows = await h.storage.findTransactions('c1', account.id, { pending: false });
      expect(check!.historyFrom).toBe(rows[0]?.date ?? null);
    }
  });

  it('a re-sync with nothing new adds no feed entries, before the first real check and after it', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    let before = await h.storage.lastSeq();
    await h.engine.sync('c1');
    expect(await h.storage.lastSeq()).toBe(before);
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    expect(await reconciliation(h, '4711')).toMatchObject({ status: 'balanced' });
    before = await h.storage.lastSeq();
    await h.engine.sync('c1');
    expect(await h.storage.lastSeq()).toBe(before);
  });

  it('history from startDate shows what came before it as the opening balance, not as a mismatch', async () => {
    const h = await createHarness({ engine: { startDate: '2026-06-01' } });
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    const check = await reconciliation(h, '4711');
    // The second run's overlap re-read stops at startDate: it is a floor, not only the first day.
    const rows = await h.storage.findTransactions('c1', '4711', { pending: false });
    expect(rows[0]!.date >= '2026-06-01').toBe(true);
    expect(check).toMatchObject({ status: 'balanced', historyFrom: rows[0]!.date });
    expect(cents(check!.openingBalance)).toBe(cents(h.sandbox.balanceOf('4711').amount) - totalOf(rows));
    const account = h.sandbox.listAccounts().find((a) => a.id === '4711')!;
    expect(check!.openingBalance).not.toBe(toDecimalString(account.openingBalance));
  });

  it('history the provider lists later, further back than before, moves the opening balance and not the verdict', async () => {
    const h = await createHarness();
    // A bank that first answers with its last 20 days only and fills in older history later.
    const cutoff = '2026-06-10';
    editTransactions(h, '4711', (rows) => rows.filter((r) => r.date >= cutoff));
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    const before = await reconciliation(h, '4711');
    expect(before).toMatchObject({ status: 'balanced', historyFrom: cutoff });

    useSandboxOnly(h);
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    const check = await reconciliation(h, '4711');
    const rows = await h.storage.findTransactions('c1', '4711', { pending: false });
    expect(rows[0]!.date < cutoff).toBe(true);
    expect(check).toMatchObject({ status: 'balanced', historyFrom: rows[0]!.date });
    expect(cents(check!.openingBalance)).toBe(cents(h.sandbox.balanceOf('4711').amount) - totalOf(rows));
    // The opening moved by exactly the rows filled in before the cutoff.
    const filledIn = totalOf(rows.filter((r) => r.date < cutoff));
    expect(filledIn).not.toBe(0);
    expect(cents(check!.openingBalance)).toBe(cents(before!.openingBalance) - filledIn);
  });

  it('a posting the bank dates before the first mirrored row, the balance moving by it, adds up (a hold posted on its purchase day)', async () => {
    const h = await createHarness();
    // A new account whose history starts at the cutoff; then a posting dated two days before it arrives
    // (the bank dates a hold's posting on the purchase day, or books on a value date) and the balance
    // moves by it: a new posting, not older history filled in.
    const cutoff = '2026-06-10';
    let backdated: WireRow | undefined;
    editTransactions(h, '4711', (rows) => [
      ...rows.filter((r) => r.date >= cutoff),
      ...(backdated ? [backdated] : []),
    ]);
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    expect(await reconciliation(h, '4711')).toMatchObject({ status: 'balanced' });

    const template = (await h.storage.findTransactions('c1', '4711', { pending: false }))[0]!;
    backdated = {
      id: 'tx_backdated',
      amount: -30,
      date: '2026-06-08',
      isPending: false,
      ...{
        accountId: 4711,
        currency: template.currency,
        merchant: 'Harbour Hotel',
        description: 'HARBOUR HOTEL',
      },
    };
    server.use(
      http.get(`${BASE}/accounts/4711/balance`, async ({ request }) => {
        const body = (await (await h.sandbox.handle(request)).json()) as { balance: { amount: number } };
        body.balance.amount = Math.round(body.balance.amount * 100 - 3000) / 100;
        return HttpResponse.json(body);
      }),
    );
    for (let day = 0; day < 3; day += 1) {
      h.sandbox.advanceDays(1);
      await h.engine.sync('c1');
      const check = await reconciliation(h, '4711');
      expect(check, `day ${day}`).toMatchObject({ status: 'balanced', historyFrom: '2026-06-08' });
      const rows = await h.storage.findTransactions('c1', '4711', { pending: false });
      expect(cents(check!.openingBalance)).toBe(
        cents(h.sandbox.balanceOf('4711').amount) - 3000 - totalOf(rows),
      );
    }
  });

  it('a row the provider lists twice (under two ids) is a mismatch from its date on, until it is gone', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    h.sandbox.advanceDays(2);
    let doubled: WireRow | undefined;
    editTransactions(h, '4711', (rows) => {
      doubled ??= rows.find((r) => !r.isPending && r.date < h.sandbox.today);
      return [...rows, { ...doubled!, id: 'tx_phantom' }];
    });
    const report = await h.engine.sync('c1');
    const account = report.accounts.find((a) => a.accountId === '4711')!;
    // The balance is above what the rows add up to by exactly the doubled payment.
    expect(account.reconciliation).toMatchObject({
      status: 'mismatch',
      since: doubled!.date,
      difference: toDecimalString(-doubled!.amount),
    });
    expect(report.accounts.filter((a) => a.reconciliation?.status === 'mismatch')).toHaveLength(1);

    useSandboxOnly(h);
    const healed = await h.engine.sync('c1');
    expect(healed.accounts.find((a) => a.accountId === '4711')!.reconciliation?.status).toBe('balanced');
  });

  it('a posted row the provider leaves out is a mismatch from the day after the last check that added up', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    const balancedOn = h.sandbox.today;
    h.sandbox.advanceDays(3);
    let dropped: WireRow | undefined;
    editTransactions(h, '4711', (rows) => {
      dropped ??= rows.find((r) => !r.isPending && r.date > balancedOn);
      return rows.filter((r) => r.id !== dropped!.id);
    });
    const report = await h.engine.sync('c1');
    const check = report.accounts.find((a) => a.accountId === '4711')!.reconciliation;
    expect(check).toMatchObject({
      status: 'mismatch',
      since: '2026-07-02',
      difference: toDecimalString(dropped!.amount),
    });
    expect(balancedOn).toBe('2026-07-01');
  });

  it('a balance taken while the rows failed to sync is unchecked, not the last verdict, until a clean run checks it', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    expect(await reconciliation(h, '4711')).toMatchObject({ status: 'balanced' });
    const feedBefore = (await h.storage.readChanges({ limit: 10_000 })).length;

    // Transactions fail, the balance still reads: with nothing moved, the verdict stands and nothing is written.
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, () => new HttpResponse('boom', { status: 500 })),
    );
    const unmoved = await h.engine.sync('c1');
    expect(unmoved.accounts.find((a) => a.accountId === '4711')).toMatchObject({
      balance: 'unchanged',
      reconciliation: null,
    });
    expect(await reconciliation(h, '4711')).toMatchObject({ status: 'balanced' });
    const accountEntries = async () =>
      (await h.storage.readChanges({ limit: 10_000 }))
        .slice(feedBefore)
        .filter((e) => e.entity === 'account' && e.key === '4711');
    expect(await accountEntries()).toEqual([]);

    // A day on: the balance moved by rows the mirror does not have. "Balanced" beside it was false.
    h.sandbox.advanceDays(1);
    const apart = await h.engine.sync('c1');
    expect(apart.accounts.find((a) => a.accountId === '4711')!.balance).toBe('updated');
    const stored = (await h.storage.listAccounts('c1')).find((a) => a.id === '4711')!;
    expect(stored.balance!.amount).toBe(toDecimalString(h.sandbox.balanceOf('4711').amount));
    expect(stored.reconciliation).toMatchObject({ status: 'unchecked', since: null, difference: null });
    expect((await accountEntries()).at(-1)!.record).toMatchObject({
      reconciliation: { status: 'unchecked' },
    });

    // The rows read again: checked, and they add up.
    useSandboxOnly(h);
    const healed = await h.engine.sync('c1');
    expect(healed.accounts.find((a) => a.accountId === '4711')!.reconciliation?.status).toBe('balanced');
    expect(await reconciliation(h, '4711')).toMatchObject({ status: 'balanced' });
  });

  it('recognises a bank whose balance also counts pending rows', async () => {
    const h = await createHarness();
    server.use(
      http.get(`${BASE}/accounts/4711/balance`, async ({ request }) => {
        const body = (await (await h.sandbox.handle(request)).json()) as { balance: { amount: number } };
        let pending = 0;
        for (const t of h.sandbox.transactionsOf('4711', { includePending: true }))
          if (t.isPending && !t.lingering) pending += Math.round(Number(t.amount) * 100);
        const amount = (Math.round(body.balance.amount * 100) + pending) / 100;
        return HttpResponse.json({ balance: { amount, currency: 'GBP' } });
      }),
    );
    await h.engine.sync('c1');
    for (let day = 0; day < 4; day += 1) {
      h.sandbox.advanceDays(1);
      await h.engine.sync('c1');
      expect(await reconciliation(h, '4711')).toMatchObject({
        status: 'balanced',
        basis: 'posted-and-pending',
      });
    }
  });

  it('two runs of one connection at once (two servers, no lease) leave sums that the next check recounts, and it adds up', async () => {
    const h = await createHarness();
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    // A second engine on the same store, as a second server on the same database.
    const other = await h.restart();
    for (let day = 0; day < 3; day += 1) {
      h.sandbox.advanceDays(1);
      // Each may fail on a row the other wrote first (StorageConflictError): runs that conflict.
      await Promise.allSettled([h.engine.sync('c1'), other.sync('c1')]);
    }
    h.sandbox.advanceDays(1);
    const report = await h.engine.sync('c1');
    const states = await h.storage.listAccountStates('c1');
    for (const account of report.accounts) {
      if (account.reconciliation === null) continue;
      const rows = await h.storage.findTransactions('c1', account.accountId, { pending: false });
      const state = states.find((s) => s.accountId === account.accountId)!;
      // The sums kept are the rows' sums again, and the check says so.
      expect({ account: account.accountId, total: cents(state.ledger!.postedTotal) }).toEqual({
        account: account.accountId,
        total: totalOf(rows),
      });
      expect(account.reconciliation?.status, account.accountId).toBe('balanced');
    }
  });
});
