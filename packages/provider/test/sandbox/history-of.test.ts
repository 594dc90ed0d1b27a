/** `historyOf`: an account the user linked again, listed under a new id with the old one's history. */
import { describe, expect, it } from 'vitest';
import { SandboxProvider, type SandboxAccountSpec } from '../../src/sandbox/index.js';

const old: SandboxAccountSpec = {
  id: 4711,
  name: 'Current',
  institutionName: 'Bank',
  provider: 'gocardless',
  currency: 'GBP',
};
const content = (t: {
  date: string;
  amount: string;
  merchant: string | null;
  description: string | null;
  isPending: boolean;
}) => JSON.stringify([t.date, t.amount, t.merchant, t.description, t.isPending]);

describe('sandbox historyOf', () => {
  it('lists the old account history (dates, amounts, texts, balance) under ids of its own', () => {
    const sandbox = new SandboxProvider({
      seed: 5,
      today: '2026-06-20',
      historyDays: 90,
      accounts: [
        { ...old, status: 'DISCONNECTED', dataUntil: '2026-06-01' },
        { ...old, id: 9711, historyOf: 4711 },
      ],
    });
    const before = { to: '2026-05-25' };
    const oldRows = [...sandbox.transactionsOf('4711', before)];
    const newRows = [...sandbox.transactionsOf('9711', before)];
    expect(oldRows.length).toBeGreaterThan(100);
    expect(newRows.map(content).sort()).toEqual(oldRows.map(content).sort());
    const oldIds = new Set(oldRows.map((t) => t.id).filter((id) => id !== null));
    expect(newRows.some((t) => t.id !== null && oldIds.has(t.id))).toBe(false);
    expect(sandbox.listAccounts().map((a) => [a.id, a.historyOf])).toEqual([
      ['4711', null],
      ['9711', '4711'],
    ]);
    // The new link goes on where the old one stopped.
    expect([...sandbox.transactionsOf('9711', { from: '2026-06-02' })].length).toBeGreaterThan(0);
    expect([...sandbox.transactionsOf('4711', { from: '2026-06-02' })]).toEqual([]);
  });

  it('takes an old account that is no longer listed, and refuses itself, a negative id or another profile', () => {
    expect(
      () =>
        new SandboxProvider({ accounts: [{ ...old, id: 9711, historyOf: 4711 }] }).listAccounts()[0]!
          .historyOf,
    ).not.toThrow();
    expect(() => new SandboxProvider({ accounts: [{ ...old, historyOf: 4711 }] })).toThrow(
      /historyOf must be the id of another account/,
    );
    expect(() => new SandboxProvider({ accounts: [{ ...old, id: 9711, historyOf: -1 }] })).toThrow(
      RangeError,
    );
    expect(
      () =>
        new SandboxProvider({ accounts: [old, { ...old, id: 9711, historyOf: 4711, profile: 'savings' }] }),
    ).toThrow(
      /new link of 4711: it must have the same profile, currency, transactionsPerDay and openingBalance/,
    );
    expect(
      () =>
        new SandboxProvider({
          accounts: [old, { ...old, id: 9711, historyOf: 4711, transactionsPerDay: 9 }],
        }),
    ).toThrow(/same profile, currency, transactionsPerDay/);
    expect(
      () =>
        new SandboxProvider({
          accounts: [old, { ...old, id: 9711, historyOf: 4711 }, { ...old, id: 9712, historyOf: 9711 }],
        }),
    ).toThrow(/historyOf names account 9711, itself a new link of 4711: name the first link, 4711/);
  });
});
