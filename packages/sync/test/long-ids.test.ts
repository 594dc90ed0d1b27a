/**
 * Provider ids longer than a key may carry as they are: keyed by their hash, so every storage's
 * primary key can hold them (PostgreSQL's indexes take some 2.7 KB a row), and the same id always
 * gets the same key.
 */
import { describe, expect, it } from 'vitest';
import { holdingRecords } from '../src/engine/holding-lots.js';
import { MAX_KEYED_ID_LENGTH, keyTransactions } from '../src/engine/keys.js';
import { AccountIdTooLongError, MAX_ACCOUNT_ID_LENGTH } from '../src/index.js';
import { fixtures } from '../src/testing/index.js';
import { engineOverCraftedProvider } from './crafted-provider.js';

const row = (id: string) => ({
  id,
  accountId: '4711',
  amount: '-3.00',
  currency: 'GBP',
  date: '2026-06-02',
  merchant: 'Kiosk',
  description: 'CARD PAYMENT',
  isPending: false,
});

describe('a provider id', () => {
  it('is its key up to the longest kept as it is', () => {
    const id = 'x'.repeat(MAX_KEYED_ID_LENGTH);
    expect(keyTransactions('c1', '4711', [row(id)]).records[0]!.key).toBe(`id:${id}`);
  });

  it('longer than that is keyed by its hash: short, the same every time, apart from any other', () => {
    const long = 'tx_' + '9'.repeat(3000);
    const other = 'tx_' + '9'.repeat(2999) + '8';
    const [a, b] = keyTransactions('c1', '4711', [row(long), row(other)]).records;
    expect(a!.key).toMatch(/^idh:[0-9a-f]{20}$/);
    expect(a!.key).toBe(keyTransactions('c1', '4711', [row(long)]).records[0]!.key);
    expect(b!.key).not.toBe(a!.key);
    expect(a!.providerId).toBe(long);
  });

  it('of a holding is keyed the same way', () => {
    const security = {
      name: 'Fund',
      tickerSymbol: null,
      currency: 'GBP',
      figi: null,
      cusip: null,
      isin: null,
    };
    const holding = {
      providerId: 'h_' + '1'.repeat(1000),
      security,
      quantity: '1',
      price: '1',
      value: '1',
      costBasis: null,
      currency: 'GBP',
      raw: null,
    };
    expect(holdingRecords('c1', '4711', [holding])[0]!.key).toMatch(/^idh:[0-9a-f]{20}$/);
  });
});

describe('an account id longer than MAX_ACCOUNT_ID_LENGTH', () => {
  const long = `acc_${'7'.repeat(MAX_ACCOUNT_ID_LENGTH)}`;
  const accounts = () => [
    { id: 4711, name: 'Current', institution_name: 'Bank', status: 'ACTIVE' },
    { id: long, name: 'Broken', institution_name: 'Bank', status: 'ACTIVE' },
  ];
  const rows = (url: URL) => ({
    transactions: url.pathname.includes('/4711/')
      ? [{ ...row('tx_1'), accountId: 4711, amount: -3 }]
      : [{ ...row('tx_2'), accountId: long, amount: -4 }],
    total: 1,
  });

  it('is skipped when new, every run, without failing the run: the connection keeps its interval', async () => {
    const { engine, storage } = await engineOverCraftedProvider(rows, { today: '2026-06-03', accounts });
    for (let run = 0; run < 2; run++) {
      const report = await engine.sync('c1');
      expect([report.ok, report.outcome, report.issues]).toEqual([true, 'success', []]);
      expect(report.skippedAccounts.map((s) => s.error)).toEqual([expect.any(AccountIdTooLongError)]);
      expect(report.skippedAccounts[0]!.message).toContain(`${long.length} characters, more than 256`);
      expect(report.accounts.map((a) => a.accountId)).toEqual(['4711']);
    }
    expect((await storage.listAccounts('c1')).map((a) => a.id)).toEqual(['4711']);
    expect((await storage.getConnection('c1'))!.lastSuccessAt).not.toBeNull();
  });

  it('stored before the bound, rests as gone: not left active and never synced', async () => {
    const { engine, storage } = await engineOverCraftedProvider(rows, { today: '2026-06-03', accounts });
    const stale = fixtures.account('c1', long);
    await storage.apply({
      changes: [
        { entity: 'account', op: 'added', connectionId: 'c1', accountId: long, key: long, record: stale },
      ],
    });
    const report = await engine.sync('c1');
    expect([report.ok, report.issues, report.skippedAccounts.length]).toEqual([true, [], 1]);
    expect(report.accounts.map((a) => a.accountId)).toEqual(['4711']);
    const stored = await storage.listAccounts('c1');
    expect(stored.map((a) => [a.id.length, a.state])).toEqual([
      [4, 'active'],
      [long.length, 'gone'],
    ]);
  });

  it('listed alone, is a broken list as an empty one is: no stored account is taken for gone', async () => {
    let onlyLong = false;
    const { engine, storage } = await engineOverCraftedProvider(rows, {
      today: '2026-06-03',
      accounts: () => (onlyLong ? accounts().slice(1) : accounts()),
    });
    await engine.sync('c1');
    onlyLong = true;
    const report = await engine.sync('c1');
    expect([report.ok, report.skippedAccounts.length, report.accounts]).toEqual([true, 1, []]);
    expect((await storage.listAccounts('c1')).map((a) => [a.id, a.state])).toEqual([['4711', 'active']]);
    expect((await storage.findTransactions('c1', '4711')).map((t) => t.providerId)).toEqual(['tx_1']);
  });
});
