import { describe, expect, it } from 'vitest';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import type { SandboxTransaction } from '../../src/sandbox/provider.js';
import { ALL_IDS, call, collect, decimalsOf, fromWire, sameAmount, wireView } from './helpers.js';

describe('transactions', () => {
  const provider = new SandboxProvider();

  it('returns exactly the ground truth, with total, amounts within currency decimals', async () => {
    for (const id of ALL_IDS) {
      const r = await call(provider, `/accounts/${id}/transactions?include_pending=true`);
      const truth = collect(provider.transactionsOf(id, { includePending: true }));
      expect(r.json.total).toBe(truth.length);
      expect(r.json.transactions).toHaveLength(truth.length);
      expect(provider.countTransactions(id, { includePending: true })).toBe(truth.length);
      r.json.transactions.forEach((row: Record<string, unknown>, i: number) => {
        const expected = wireView(truth[i] as SandboxTransaction);
        const got = fromWire(row);
        expect(typeof row['amount']).toBe('number');
        expect(typeof row['accountId']).toBe('number');
        expect({ ...got, amount: expected.amount }).toEqual(expected);
        expect(sameAmount(got, expected)).toBe(true);
      });
      const decimals = decimalsOf(truth[0]?.currency ?? 'GBP');
      for (const m of r.text.matchAll(/"amount":(-?\d+(?:\.(\d+))?)/g)) {
        expect((m[2] ?? '').length).toBeLessThanOrEqual(decimals);
      }
    }
  });

  it('filters from/to inclusively on the row date and orders newest first', async () => {
    const all = collect(provider.transactionsOf('4711'));
    const r = await call(provider, '/accounts/4711/transactions?from=2026-05-10&to=2026-05-20');
    const dates: string[] = r.json.transactions.map((t: { date: string }) => t.date);
    expect(dates).toContain('2026-05-10');
    expect(dates).toContain('2026-05-20');
    expect(dates.every((d) => d >= '2026-05-10' && d <= '2026-05-20')).toBe(true);
    expect([...dates].sort().reverse()).toEqual(dates);
    const expectedIds = all.filter((t) => t.date >= '2026-05-10' && t.date <= '2026-05-20').map((t) => t.id);
    expect(r.json.transactions.map((t: { id: string }) => t.id)).toEqual(expectedIds);
    expect(r.json.total).toBe(expectedIds.length);
    const fromOnly = await call(provider, '/accounts/4711/transactions?from=2026-06-20');
    expect(fromOnly.json.total).toBe(all.filter((t) => t.date >= '2026-06-20').length);
    const toOnly = await call(provider, '/accounts/4711/transactions?to=2024-08-01');
    expect(toOnly.json.total).toBe(all.filter((t) => t.date <= '2024-08-01').length);
    expect(toOnly.json.total).toBeGreaterThan(0);
  });

  it('returns full history without `from`, starting historyDays before the initial today', () => {
    const dates = collect(provider.transactionsOf('4711')).map((t) => t.date);
    expect(dates[0]).toBe('2026-06-30');
    expect(dates.at(-1)! >= '2024-06-30').toBe(true);
    expect(dates.at(-1)! <= '2024-07-03').toBe(true);
    const short = new SandboxProvider({ historyDays: 10 });
    expect(collect(short.transactionsOf('4711')).every((t) => t.date >= '2026-06-20')).toBe(true);
  });

  it('omits pending rows unless include_pending=true', async () => {
    const without = await call(provider, '/accounts/4711/transactions?from=2026-06-20');
    const explicitFalse = await call(
      provider,
      '/accounts/4711/transactions?from=2026-06-20&include_pending=false',
    );
    const withPending = await call(
      provider,
      '/accounts/4711/transactions?from=2026-06-20&include_pending=true',
    );
    expect(explicitFalse.text).toBe(without.text);
    expect(without.json.transactions.some((t: { isPending: boolean }) => t.isPending)).toBe(false);
    const pending = withPending.json.transactions.filter((t: { isPending: boolean }) => t.isPending);
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((t: { id: unknown }) => t.id === null)).toBe(true);
    expect(withPending.json.total).toBe(without.json.total + pending.length);
    const posted = without.json.transactions;
    expect(posted.every((t: { id: string }) => /^tx_[0-9a-f]{16}$/.test(t.id))).toBe(true);
  });

  it('rejects invalid dates with 400 {error, message}', async () => {
    for (const query of [
      'from=2026-13-01',
      'to=2026-02-30',
      'from=yesterday',
      'from=2026-06-02&to=2026-06-01',
    ]) {
      const r = await call(provider, `/accounts/4711/transactions?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message: expect.any(String) });
    }
    expect(() => provider.transactionsOf('4711', { from: '2026/01/01' })).toThrow(RangeError);
  });

  it('always shows identical twin pending purchases on ordinary accounts', async () => {
    const p = new SandboxProvider();
    for (let step = 0; step < 6; step++) {
      for (const id of ['4711', '4713', '7001']) {
        const from = new Date(Date.parse(p.today) - 5 * 86_400_000).toISOString().slice(0, 10);
        const r = await call(p, `/accounts/${id}/transactions?from=${from}&include_pending=true`);
        const pendingTexts: string[] = r.text
          .slice('{"transactions":['.length)
          .split(/,(?=\{"id")/)
          .filter((row) => row.includes('"isPending":true'));
        const twins = pendingTexts.filter((row, i) => pendingTexts.indexOf(row) !== i);
        expect(twins.length, `${id} on ${p.today}`).toBeGreaterThan(0);
      }
      p.advanceDays();
    }
  });

  it('posts pending rows under a fresh id and lets some holds vanish', () => {
    const p = new SandboxProvider();
    let posted = 0;
    let vanished = 0;
    let pendingSeen = 0;
    for (let step = 0; step < 60; step++) {
      const before = collect(p.transactionsOf('4711', { includePending: true }));
      const knownIds = new Set(before.map((t) => t.id));
      // A lingering hold has posted already; its posted id is among the known ones.
      const pending = before.filter((t) => t.isPending && !t.lingering);
      p.advanceDays(4);
      // Holds post within days of their own date: the rows from the oldest hold on are enough.
      const from = pending.reduce((oldest, t) => (t.date < oldest ? t.date : oldest), p.today);
      const later = collect(p.transactionsOf('4711', { from }));
      const claimed = new Set<SandboxTransaction>();
      for (const row of pending) {
        pendingSeen++;
        const match = later.find(
          (t) =>
            !claimed.has(t) &&
            t.merchant === row.merchant &&
            t.amount === row.amount &&
            t.date > row.date &&
            t.date <= new Date(Date.parse(row.date) + 3 * 86_400_000).toISOString().slice(0, 10),
        );
        if (match) {
          claimed.add(match);
          expect(match.isPending).toBe(false);
          expect(match.id).toMatch(/^tx_/);
          expect(knownIds.has(match.id)).toBe(false);
          posted++;
        } else {
          vanished++;
        }
      }
      p.advanceDays(-3);
    }
    expect(pendingSeen).toBeGreaterThan(100);
    expect(posted).toBeGreaterThan(pendingSeen * 0.9);
    expect(vanished).toBeGreaterThan(0);
  });

  it('grows with today and is a pure function of it', async () => {
    const p = new SandboxProvider();
    const before = await call(p, '/accounts/4711/transactions?include_pending=true');
    const countBefore = p.countTransactions('4711', { includePending: true });
    p.advanceDays(5);
    expect(p.today).toBe('2026-07-05');
    expect(p.countTransactions('4711', { includePending: true })).toBeGreaterThan(countBefore);
    expect(collect(p.transactionsOf('4711', { from: '2026-07-01' })).length).toBeGreaterThan(0);
    p.setToday('2026-06-30');
    expect((await call(p, '/accounts/4711/transactions?include_pending=true')).text).toBe(before.text);
    expect(() => p.setToday('30/06/2026')).toThrow(RangeError);
  });

  it('freezes the disconnected account at its last data day but keeps answering', async () => {
    const p = new SandboxProvider();
    const until = p.listAccounts().find((a) => a.id === '6001')!.dataUntil!;
    const rows = collect(p.transactionsOf('6001', { includePending: true }));
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.every((t) => t.date <= until)).toBe(true);
    expect(rows.some((t) => t.isPending)).toBe(true);
    const balance = p.balanceOf('6001');
    p.advanceDays(30);
    expect(p.balanceOf('6001')).toEqual(balance);
    expect((await call(p, '/accounts/6001/transactions')).status).toBe(200);
  });

  it('caps rows with maxRowsPerResponse but keeps the true total', async () => {
    const p = new SandboxProvider({ maxRowsPerResponse: 10 });
    const r = await call(p, '/accounts/4711/transactions');
    const truth = collect(p.transactionsOf('4711'));
    expect(truth.length).toBeGreaterThan(10);
    expect(r.json.total).toBe(truth.length);
    expect(r.json.transactions.map((t: { id: string }) => t.id)).toEqual(truth.slice(0, 10).map((t) => t.id));
    const small = await call(p, '/accounts/4711/transactions?from=2026-06-30&to=2026-06-30');
    expect(small.json.transactions.length).toBe(small.json.total);
    expect(small.json.total).toBeLessThanOrEqual(10);
  });
});
