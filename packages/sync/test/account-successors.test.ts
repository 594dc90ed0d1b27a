/**
 * A bank linked again under a new account id: the mirror holds both links, and
 * `findAccountSuccessors` names the pair (and which row is which) without merging anything.
 */
import { SandboxProvider, type SandboxAccountSpec } from '@finsync/provider/sandbox';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { makeChange } from '../src/engine/changes.js';
import {
  MemoryStorage,
  SyncAbortedError,
  SyncEngine,
  UnknownConnectionError,
  type MirrorAccount,
  type MirrorTransaction,
} from '../src/index.js';
import { fixtures } from '../src/testing/index.js';
import { BASE, createHarness, server, useMsw } from './harness.js';

useMsw();

const bank = { institutionName: 'Northern Bank', provider: 'gocardless', currency: 'GBP' };
const current: SandboxAccountSpec = { id: 4711, name: 'Current', ...bank };
const savings: SandboxAccountSpec = { id: 4712, name: 'Savings', profile: 'savings', ...bank };
const card: SandboxAccountSpec = { id: 4713, name: 'Card', profile: 'credit-card', ...bank };
const OPTIONS = { seed: 11, historyDays: 60, transactionsPerDay: 3 };

/**
 * Synced on 10 June with the accounts of `before`, then on 20 June with those of `after`: the sandbox
 * the provider answers from is swapped between the two, as the user's relinking swaps the provider's list.
 */
async function relinked(before: SandboxAccountSpec[], after: SandboxAccountSpec[]) {
  const h = await createHarness({ sandbox: { ...OPTIONS, today: '2026-06-10', accounts: before } });
  let answering = h.sandbox;
  server.use(http.all(`${BASE}/*`, ({ request }) => answering.handle(request)));
  expect((await h.engine.sync('c1')).ok).toBe(true);
  // The same bank ten days on (its history starts where it did), with the accounts of `after`.
  answering = new SandboxProvider({ ...OPTIONS, historyDays: 70, today: '2026-06-20', accounts: after });
  h.sandbox.setToday('2026-06-20'); // the engine's clock follows the harness's sandbox
  const engine = await h.restart();
  const report = await engine.sync('c1');
  expect(report.ok, JSON.stringify(report.issues)).toBe(true);
  // One bank throughout: every account read adds up, the relinked one included.
  for (const account of report.accounts)
    expect(account.reconciliation?.status, account.accountId).not.toBe('mismatch');
  return { ...h, engine };
}

const content = (row: MirrorTransaction) =>
  JSON.stringify([row.date, row.amount, row.currency, row.merchant, row.description, row.isPending]);

describe('findAccountSuccessors', () => {
  for (const [how, old] of [
    ['lists the old link as disconnected', [{ ...current, status: 'DISCONNECTED', dataUntil: '2026-06-10' }]],
    ['no longer lists the old link', []],
  ] as const) {
    it(`names the new link of an account when the provider ${how}, with each old row's new row`, async () => {
      // The old link last, so that taking it out moves no other account (their ids follow their place).
      const h = await relinked(
        [savings, card, current],
        [savings, card, ...old, { ...current, id: 9711, historyOf: 4711 }],
      );
      const accounts = await h.storage.listAccounts('c1');
      expect(accounts.find((a) => a.id === '4711')?.state).toBe(old.length === 0 ? 'gone' : 'inactive');
      expect(accounts.find((a) => a.id === '9711')?.state).toBe('active');

      const found = await h.engine.findAccountSuccessors('c1');
      expect(found.map((f) => [f.previous.id, f.successor.id])).toEqual([['4711', '9711']]);
      const [pair] = found;
      const oldRows = (await h.storage.findTransactions('c1', '4711')).filter(
        (r) => !r.isPending && r.date >= pair!.from && r.date <= pair!.to,
      );
      const newRows = await h.storage.findTransactions('c1', '9711');
      // The same history: every posted row of the old link in the dates both cover has its new row.
      expect(oldRows.length).toBeGreaterThan(100);
      expect(pair!.previousRows).toBe(oldRows.length);
      // The new link's history starts part-way through a day (the rows of its first day posted before
      // the cut are not listed); every old row after that day has its new row.
      const paired = new Set(pair!.rows.map((r) => r.previousKey));
      expect(oldRows.filter((r) => !paired.has(r.key) && r.date > pair!.from)).toEqual([]);
      expect(pair!.rows.length).toBeGreaterThan(0.95 * oldRows.length);
      const oldByKey = new Map(oldRows.map((r) => [r.key, r]));
      const newByKey = new Map(newRows.map((r) => [r.key, r]));
      for (const { previousKey, successorKey } of pair!.rows)
        expect(content(newByKey.get(successorKey)!)).toBe(content(oldByKey.get(previousKey)!));
      // One to one: no new row stands for two old ones.
      expect(new Set(pair!.rows.map((r) => r.successorKey)).size).toBe(pair!.rows.length);
      // The ids differ (a new link), so the mirror holds the history twice until the app merges it.
      expect(oldRows.some((r) => newByKey.has(r.key))).toBe(false);
      // Nothing was written: the suggestion is for the app to act on.
      const seq = await h.storage.lastSeq();
      await h.engine.findAccountSuccessors('c1');
      expect(await h.storage.lastSeq()).toBe(seq);
    });
  }

  it('names no successor for an account whose history no active account shares, nor for an active one', async () => {
    const h = await relinked(
      [current, savings, card],
      [{ ...current, status: 'DISCONNECTED', dataUntil: '2026-06-10' }, savings, card],
    );
    // The savings account and the card are at the same bank, in the same currency, but other accounts.
    expect(await h.engine.findAccountSuccessors('c1')).toEqual([]);
  });

  it('names none when two active accounts both list the old history: nothing says which continues it', async () => {
    const h = await relinked(
      [current, savings],
      [savings, { ...current, id: 9711, historyOf: 4711 }, { ...current, id: 9712, historyOf: 4711 }],
    );
    expect(await h.engine.findAccountSuccessors('c1')).toEqual([]);
  });

  it('names each old link of an account linked three times', async () => {
    const h = await createHarness({
      sandbox: { ...OPTIONS, today: '2026-06-10', accounts: [savings, current] },
    });
    let answering = h.sandbox;
    server.use(http.all(`${BASE}/*`, ({ request }) => answering.handle(request)));
    await h.engine.sync('c1');
    const second = { ...current, id: 9711, historyOf: 4711 };
    answering = new SandboxProvider({
      ...OPTIONS,
      historyDays: 65,
      today: '2026-06-15',
      accounts: [savings, second],
    });
    h.sandbox.setToday('2026-06-15');
    await h.engine.sync('c1');
    answering = new SandboxProvider({
      ...OPTIONS,
      historyDays: 70,
      today: '2026-06-20',
      accounts: [savings, second, { ...current, id: 9712, historyOf: 4711 }].map((spec) =>
        spec.id === 9711 ? { ...spec, status: 'DISCONNECTED' as const, dataUntil: '2026-06-15' } : spec,
      ),
    });
    h.sandbox.setToday('2026-06-20');
    expect((await h.engine.sync('c1')).ok).toBe(true);
    const found = await h.engine.findAccountSuccessors('c1');
    expect(found.map((f) => [f.previous.id, f.successor.id]).sort()).toEqual([
      ['4711', '9712'],
      ['9711', '9712'],
    ]);
  });

  /** An engine over a store holding `accounts` and `rows` as they are, no provider. */
  async function stored(accounts: MirrorAccount[], rows: MirrorTransaction[]) {
    const storage = new MemoryStorage();
    await storage.apply({ changes: [], connections: [fixtures.connectionState('c1')] });
    await storage.apply({ changes: accounts.map((a) => makeChange('account', 'added', a)) });
    await storage.apply({ changes: rows.map(fixtures.added) });
    return new SyncEngine({ storage });
  }
  const monthly = (account: string, months: number, fields: Partial<MirrorTransaction>) =>
    Array.from({ length: months }, (_, i) =>
      fixtures.transaction('c1', account, `id:${account}-${i}`, {
        date: `${2025 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`,
        merchant: null,
        ...fields,
      }),
    );
  it('names no pair of accounts that share their rows by chance: two pots fed by one standing order part in the middle', async () => {
    const standingOrder = { amount: '50.00', description: 'STANDING ORDER FROM CURRENT' };
    const interest = (account: string, amount: string) =>
      fixtures.transaction('c1', account, `id:${account}-int`, {
        date: '2025-06-30',
        amount,
        merchant: null,
        description: 'INTEREST',
      });
    const potA = fixtures.account('c1', 'potA', { state: 'gone' });
    const potB = fixtures.account('c1', 'potB');
    const rows = [...monthly('potA', 14, standingOrder), ...monthly('potB', 14, standingOrder)];
    // 14 of 15 rows alike, but the two earned different interest in June.
    const apart = [...rows, interest('potA', '0.41'), interest('potB', '1.93')];
    expect(await (await stored([potA, potB], apart)).findAccountSuccessors('c1')).toEqual([]);
    // The same pot linked again lists the same interest: named.
    const alike = [...rows, interest('potA', '0.41'), interest('potB', '0.41')];
    const found = await (await stored([potA, potB], alike)).findAccountSuccessors('c1');
    expect(found.map((f) => [f.previous.id, f.successor.id, f.rows.length, f.previousRows])).toEqual([
      ['potA', 'potB', 15, 15],
    ]);
  });

  /** A card purchase on day `d` of February 2026. */
  const shopping = (d: number) => ({
    date: `2026-02-${String(d).padStart(2, '0')}`,
    amount: `-${d}.10`,
    merchant: `Shop ${d}`,
  });

  it('names a new link that lists purchases the old one still held pending when it stopped', async () => {
    // The old link's last read was on 28 February; card purchases of the 25th to the 27th posted after.
    const old = fixtures.account('c1', 'old', { state: 'gone' });
    const linked = fixtures.account('c1', 'new');
    const rows = Array.from({ length: 28 }, (_, i) => i + 1).flatMap((d) => {
      const fields = shopping(d);
      const listed = [fixtures.transaction('c1', 'new', `id:n${d}`, fields)];
      if (d < 25 || d === 28) listed.push(fixtures.transaction('c1', 'old', `id:o${d}`, fields));
      return listed;
    });
    const found = await (await stored([old, linked], rows)).findAccountSuccessors('c1');
    expect(found.map((f) => [f.rows.length, f.previousRows, f.successorRows])).toEqual([[25, 25, 28]]);
  });

  it("compares a row stored without a currency in its account's currency", async () => {
    const old = fixtures.account('c1', 'old', { state: 'gone', currency: 'GBP' });
    const linked = fixtures.account('c1', 'new');
    const rows = Array.from({ length: 28 }, (_, i) => i + 1).flatMap((d) => {
      const fields = shopping(d);
      return [
        fixtures.transaction('c1', 'old', `id:o${d}`, { ...fields, currency: null }),
        fixtures.transaction('c1', 'new', `id:n${d}`, { ...fields, currency: 'GBP' }),
      ];
    });
    expect(
      (await (await stored([old, linked], rows)).findAccountSuccessors('c1')).map((f) => f.rows.length),
    ).toEqual([28]);
  });

  it('refuses options out of bounds, a history longer than allowed, and a connection it does not have', async () => {
    const h = await relinked([current], [{ ...current, id: 9711, historyOf: 4711 }]);
    await expect(h.engine.findAccountSuccessors('c1', { minimumShare: 0.2 })).rejects.toThrow(
      /minimumShare must be a number from 0.5 to 1, got 0.2/,
    );
    await expect(h.engine.findAccountSuccessors('c1', { minimumRows: 0 })).rejects.toThrow(RangeError);
    await expect(h.engine.findAccountSuccessors('c1', { maxRowsPerAccount: 1.5 })).rejects.toThrow(
      RangeError,
    );
    await expect(h.engine.findAccountSuccessors('c1', { maxRowsPerAccount: 10 })).rejects.toThrow(
      /account 4711 has more than 10 posted rows; raise maxRowsPerAccount/,
    );
    await expect(h.engine.findAccountSuccessors('nope')).rejects.toBeInstanceOf(UnknownConnectionError);
    expect(await h.engine.findAccountSuccessors('c1', null as never)).toHaveLength(1);
    // Cancellation: a stopped call rejects as a stopped sync does, the signal's reason as its cause.
    const stop = new AbortController();
    stop.abort(new Error('user left the page'));
    const stopped = await h.engine
      .findAccountSuccessors('c1', { signal: stop.signal })
      .catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(SyncAbortedError);
    expect((stopped as Error).cause).toEqual(new Error('user left the page'));
    await expect(h.engine.findAccountSuccessors('c1', { signal: 'soon' as never })).rejects.toThrow(
      TypeError,
    );
    expect(await h.engine.findAccountSuccessors('c1')).toHaveLength(1);
  });
});
