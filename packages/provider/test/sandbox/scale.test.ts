import { describe, expect, it } from 'vitest';
import type { SandboxAccountSpec } from '../../src/sandbox/accounts.js';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import { call, toMinor } from './helpers.js';

describe('scale', () => {
  it('streams ~100k rows lazily with consistent counts, totals, ids and balances', async () => {
    const accounts: SandboxAccountSpec[] = Array.from({ length: 5 }, (_, i) => ({
      id: 900 + i,
      name: `Heavy ${i}`,
      institutionName: 'Bulk Bank',
      provider: 'gocardless',
      currency: 'GBP',
      profile: i === 0 ? 'credit-card' : 'current',
      transactionsPerDay: 55,
    }));
    const p = new SandboxProvider({ accounts, historyDays: 365, seed: 99 });
    let rows = 0;
    const ids = new Set<string>();
    for (const account of p.listAccounts()) {
      let perAccount = 0;
      let posted = 0n;
      for (const t of p.transactionsOf(account.id, { includePending: true })) {
        perAccount++;
        if (t.id !== null) {
          ids.add(t.id);
          posted += toMinor(t.amount, 2);
        }
      }
      expect(perAccount).toBe(p.countTransactions(account.id, { includePending: true }));
      expect(toMinor(p.balanceOf(account.id).amount, 2)).toBe(toMinor(account.openingBalance, 2) + posted);
      rows += perAccount;
    }
    // 5 accounts × 366 days × ~55 rows.
    expect(rows).toBeGreaterThan(90_000);
    expect(rows).toBeLessThan(110_000);
    const postedRows = p.listAccounts().reduce((n, a) => n + p.countTransactions(a.id), 0);
    expect(ids.size).toBe(postedRows);
    const wire = await call(p, '/accounts/901/transactions');
    expect(wire.json.total).toBe(p.countTransactions('901'));
    expect(wire.json.transactions).toHaveLength(wire.json.total);
  });

  it('keeps the mean rows per day close to transactionsPerDay', () => {
    const p = new SandboxProvider({ transactionsPerDay: 20, historyDays: 400 });
    const perDay = p.countTransactions('4713', { from: '2025-07-01', to: '2026-05-31' }) / 335;
    // Plus one statement payment a month.
    expect(perDay).toBeGreaterThan(19);
    expect(perDay).toBeLessThan(21);
  });
});
