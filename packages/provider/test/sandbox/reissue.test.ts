import { describe, expect, it } from 'vitest';
import type { SandboxAccountSpec } from '../../src/sandbox/accounts.js';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import type { SandboxTransaction } from '../../src/sandbox/provider.js';
import { ALL_IDS, call, collect, toMinor } from './helpers.js';

const content = (t: SandboxTransaction): string =>
  JSON.stringify([t.date, t.amount, t.merchant, t.description]);
const postedUpTo = (p: SandboxProvider, id: string, to: string): SandboxTransaction[] =>
  collect(p.transactionsOf(id, { to }));

describe('an account whose bank re-issues posted ids (8001)', () => {
  it('is in the default set as a PLN current account; the wire shows no new keys', async () => {
    const p = new SandboxProvider();
    const accounts = p.listAccounts();
    expect(accounts.find((a) => a.id === '8001')).toMatchObject({
      name: 'Konto Osobiste',
      institutionName: 'Baltic Bank',
      provider: 'gocardless',
      currency: 'PLN',
      profile: 'current',
      connectionId: '99',
      reissueIdsEveryDays: 1,
    });
    expect(accounts.filter((a) => a.id !== '8001').every((a) => a.reissueIdsEveryDays === null)).toBe(true);
    const { json } = await call(p, '/accounts');
    expect(json.accounts.find((a: { id: number }) => a.id === 8001)).toEqual({
      id: 8001,
      connection_id: 99,
      name: 'Konto Osobiste',
      institution_name: 'Baltic Bank',
      provider: 'gocardless',
      currency: 'PLN',
      status: 'ACTIVE',
    });
  });

  it('keeps every posted row but gives all of them new ids when the day changes', () => {
    const p = new SandboxProvider();
    for (let step = 0; step < 5; step++) {
      const day = p.today;
      const before = postedUpTo(p, '8001', day);
      p.advanceDays();
      const after = postedUpTo(p, '8001', day);
      expect(after.map(content).sort()).toEqual(before.map(content).sort());
      expect(after.map((t) => t.purchaseId).sort()).toEqual(before.map((t) => t.purchaseId).sort());
      const old = new Set(before.map((t) => t.id));
      expect(before.length).toBeGreaterThan(1000);
      expect(after.every((t) => t.id !== null && /^tx_[0-9a-f]{16}$/.test(t.id) && !old.has(t.id))).toBe(
        true,
      );
      expect(new Set(after.map((t) => t.id)).size).toBe(after.length);
    }
  });

  it('leaves pending rows id-less and other accounts’ ids alone', () => {
    const p = new SandboxProvider();
    const day = p.today;
    const snapshot = () =>
      ALL_IDS.filter((id) => id !== '8001').map((id) => postedUpTo(p, id, day).map((t) => t.id));
    const before = snapshot();
    p.advanceDays();
    expect(snapshot()).toEqual(before);
    const pending = collect(p.transactionsOf('8001', { includePending: true })).filter((t) => t.isPending);
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((t) => t.id === null)).toBe(true);
  });

  it('is a pure function of today: going back restores the old ids', async () => {
    const p = new SandboxProvider();
    const path = '/accounts/8001/transactions?include_pending=true';
    const first = await call(p, path);
    p.advanceDays(2);
    expect((await call(p, path)).text).not.toBe(first.text);
    p.setToday('2026-06-30');
    expect((await call(p, path)).text).toBe(first.text);
    expect((await call(new SandboxProvider(), path)).text).toBe(first.text);
  });

  it('re-issues only when ⌊today / n⌋ changes, and a frozen account keeps its ids', () => {
    const base = { institutionName: 'Bank', provider: 'gocardless', currency: 'PLN' };
    const accounts: SandboxAccountSpec[] = [
      { ...base, id: 1, name: 'Every third day', reissueIdsEveryDays: 3 },
      { ...base, id: 2, name: 'Frozen', reissueIdsEveryDays: 1, dataUntil: '2026-05-01' },
    ];
    const p = new SandboxProvider({ accounts, historyDays: 90, today: '2026-06-01' });
    const ids = (id: number) => postedUpTo(p, String(id), '2026-05-01').map((t) => t.id);
    const epoch = () => Math.floor(Date.parse(p.today) / 86_400_000 / 3);
    const frozen = ids(2);
    let changes = 0;
    for (let step = 0; step < 9; step++) {
      const [e, before] = [epoch(), ids(1)];
      p.advanceDays();
      const after = ids(1);
      if (epoch() === e) expect(after).toEqual(before);
      else {
        changes++;
        expect(after.filter((id) => before.includes(id))).toEqual([]);
      }
      expect(ids(2)).toEqual(frozen);
    }
    expect(changes).toBe(3);
  });

  it('rejects anything but a positive integer period', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      const accounts: SandboxAccountSpec[] = [
        { id: 1, name: 'x', institutionName: 'y', provider: 'z', currency: 'PLN', reissueIdsEveryDays: bad },
      ];
      expect(() => new SandboxProvider({ accounts })).toThrow(RangeError);
    }
  });

  it('uses two decimals for PLN, with zloty-sized amounts and an exact balance', async () => {
    const p = new SandboxProvider();
    const rows = collect(p.transactionsOf('8001', { includePending: true }));
    expect(rows.every((t) => /^-?\d+\.\d{2}$/.test(t.amount) && t.currency === 'PLN')).toBe(true);
    const rent = rows.find((t) => t.description === 'STANDING ORDER RENT')!;
    expect(Number(rent.amount)).toBeLessThan(-4000);
    const r = await call(p, '/accounts/8001/transactions?include_pending=true');
    for (const m of r.text.matchAll(/"amount":-?\d+(?:\.(\d+))?/g))
      expect((m[1] ?? '').length).toBeLessThanOrEqual(2);
    const opening = p.listAccounts().find((a) => a.id === '8001')!.openingBalance;
    const posted = rows.filter((t) => !t.isPending).reduce((sum, t) => sum + toMinor(t.amount, 2), 0n);
    expect(p.balanceOf('8001').amount).toMatch(/^-?\d+\.\d{2}$/);
    expect(toMinor(p.balanceOf('8001').amount, 2)).toBe(toMinor(opening, 2) + posted);
    expect((await call(p, '/accounts/8001/balance')).json).toEqual({
      balance: { amount: Number(p.balanceOf('8001').amount), currency: 'PLN' },
    });
  });
});
