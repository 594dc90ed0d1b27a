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
