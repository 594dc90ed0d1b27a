import { describe, expect, it } from 'vitest';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import { ALL_IDS, asWire, call, collect, fromWire } from './helpers.js';

const DAY = 86_400_000;
const shift = (iso: string, days: number): string =>
  new Date(Date.parse(iso) + days * DAY).toISOString().slice(0, 10);

describe('holds that settle at another amount (holdsSettleElsewise)', () => {
  it('list some holds at the amount before a tip of 10–25 %, which post at the full amount', async () => {
    const p = new SandboxProvider({ holdsSettleElsewise: true });
    const pendingAt = new Map<string, string>();
    let settled = 0;
    for (let step = 0; step < 30; step++, p.advanceDays()) {
      for (const id of ALL_IDS) {
        const from = shift(p.today, -10);
        const rows = collect(p.transactionsOf(id, { from, includePending: true }));
        for (const row of rows) {
          if (row.isPending) pendingAt.set(row.purchaseId, row.amount);
          const before = pendingAt.get(row.purchaseId);
          if (row.isPending || before === undefined || before === row.amount) continue;
          settled += 1;
          const ratio = Number(row.amount) / Number(before);
          expect(ratio).toBeGreaterThan(1.09);
          expect(ratio).toBeLessThan(1.26);
          // Such a purchase never lingers: its hold is gone the day it posts.
          expect(rows.some((t) => t.purchaseId === row.purchaseId && t.isPending)).toBe(false);
        }
        if (step % 10 === 0) {
          const r = await call(p, `/accounts/${id}/transactions?from=${from}&include_pending=true`);
          expect(r.json.transactions.map(fromWire)).toEqual(rows.map(asWire));
        }
      }
    }
    expect(settled).toBeGreaterThan(10);
  });

  it('change nothing but the amounts of some pending rows: posted rows and balances are the same', () => {
    const plain = new SandboxProvider();
    const tipped = new SandboxProvider({ holdsSettleElsewise: true });
    let differ = 0;
    for (const id of ALL_IDS) {
      const a = collect(plain.transactionsOf(id, { includePending: true }));
      const b = collect(tipped.transactionsOf(id, { includePending: true }));
      expect(b.map(({ amount, ...rest }) => rest)).toEqual(a.map(({ amount, ...rest }) => rest));
      expect(b.filter((t) => !t.isPending)).toEqual(a.filter((t) => !t.isPending));
      differ += b.filter((t, i) => t.amount !== a[i]!.amount).length;
      expect(tipped.balanceOf(id)).toEqual(plain.balanceOf(id));
    }
    expect(differ).toBeGreaterThan(0);
  });
});

describe('holds listed again with other content while pending (holdsRelisted)', () => {
  it('list some holds at an estimate of 50–90 % on their first day, and at the amount they post at from the next', () => {
    const p = new SandboxProvider({ holdsRelisted: true });
    const firstDay = new Map<string, string>();
    let relisted = 0;
    for (let step = 0; step < 30; step++, p.advanceDays()) {
      for (const id of ALL_IDS) {
        const rows = collect(p.transactionsOf(id, { from: shift(p.today, -10), includePending: true }));
        for (const row of rows) {
          if (row.isPending && row.date === p.today) firstDay.set(row.purchaseId, row.amount);
          const first = firstDay.get(row.purchaseId);
          if (row.date === p.today || !row.isPending || first === undefined || first === row.amount) continue;
          relisted += 1;
          const ratio = Number(first) / Number(row.amount);
          expect(ratio).toBeGreaterThanOrEqual(0.49);
          expect(ratio).toBeLessThanOrEqual(0.91);
          // Listed again at what it posts at.
          const posted = collect(
            new SandboxProvider({ holdsRelisted: true, today: shift(p.today, 5) }).transactionsOf(id, {
              from: shift(p.today, -10),
              includePending: true,
            }),
          ).find((t) => t.purchaseId === row.purchaseId && !t.isPending);
          expect(posted?.amount).toBe(row.amount);
        }
      }
    }
    expect(relisted).toBeGreaterThan(10);
  });

  it('change nothing but the first-day amounts of some pending rows: posted rows and balances are the same', () => {
    const plain = new SandboxProvider();
    const relisting = new SandboxProvider({ holdsRelisted: true });
    let differ = 0;
    for (let step = 0; step < 10; step++, plain.advanceDays(), relisting.advanceDays()) {
      for (const id of ALL_IDS) {
        const a = collect(plain.transactionsOf(id, { from: shift(plain.today, -40), includePending: true }));
        const b = collect(
          relisting.transactionsOf(id, { from: shift(plain.today, -40), includePending: true }),
        );
        expect(b.map(({ amount, ...rest }) => rest)).toEqual(a.map(({ amount, ...rest }) => rest));
        expect(b.filter((t) => !t.isPending || t.date !== relisting.today)).toEqual(
          a.filter((t) => !t.isPending || t.date !== plain.today),
        );
        differ += b.filter((t, i) => t.amount !== a[i]!.amount).length;
        expect(relisting.balanceOf(id)).toEqual(plain.balanceOf(id));
      }
    }
    expect(differ).toBeGreaterThan(0);
  });
});
