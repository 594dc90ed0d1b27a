/**
 * Provider ids longer than a key may carry as they are: keyed by their hash, so every storage's
 * primary key can hold them (PostgreSQL's indexes take some 2.7 KB a row), and the same id always
 * gets the same key.
 */
import { describe, expect, it } from 'vitest';
import { holdingRecords } from '../src/engine/holding-lots.js';
import { MAX_KEYED_ID_LENGTH, keyTransactions } from '../src/engine/keys.js';

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
