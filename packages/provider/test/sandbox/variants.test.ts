import { describe, expect, it } from 'vitest';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import { call, toMinor } from './helpers.js';

type Raw = Record<string, unknown>;

const DECIMALS: Record<string, number> = { GBP: 2, EUR: 2, USD: 2, JPY: 0 };

// A deliberately lenient reader, like a client following the reference's "accept both" advice.
function amountMinor(value: unknown, currency: string): bigint {
  if (typeof value !== 'number' && typeof value !== 'string') throw new Error(`bad amount ${String(value)}`);
  return toMinor(String(value), DECIMALS[currency] ?? 2);
}

function normalizeRow(row: Raw) {
  const date = row['date'];
  const flag = row['isPending'] ?? row['pending'];
  const currency = row['currency'] as string;
  return {
    id: row['id'] === '' ? null : row['id'],
    accountId: String(row['accountId'] ?? row['account_id']),
    amount: amountMinor(row['amount'], currency),
    currency,
    date:
      typeof date === 'number' ? new Date(date * 1000).toISOString().slice(0, 10) : String(date).slice(0, 10),
    merchant: 'merchant' in row ? row['merchant'] : row['merchant_name'],
    description: row['description'],
    isPending: flag === true || flag === 'true',
  };
}

describe('wireVariants', () => {
  const canonical = new SandboxProvider({ seed: 3 });
  const variant = new SandboxProvider({ seed: 3, wireVariants: true });
  const ids = canonical.listAccounts().map((a) => a.id);

  it('carries the same transactions, only spelled differently', async () => {
    const forms = new Map<string, number>();
    const bump = (form: string): void => void forms.set(form, (forms.get(form) ?? 0) + 1);
    for (const id of ids) {
      const path = `/accounts/${id}/transactions?include_pending=true`;
      const [a, b] = await Promise.all([call(canonical, path), call(variant, path)]);
      expect(b.text).not.toBe(a.text);
      expect(b.json.total).toBe(a.json.total);
      expect(b.json.transactions.map(normalizeRow)).toEqual(a.json.transactions.map(normalizeRow));
      for (const row of b.json.transactions as Raw[]) {
        if (row['id'] === '') bump('blank-id');
        if (typeof (row['accountId'] ?? row['account_id']) === 'string') bump('string-account-id');
        if ('account_id' in row) bump('account_id');
        if (typeof row['amount'] === 'string') bump('string-amount');
        if (typeof row['date'] === 'number') bump('unix-date');
        if (typeof row['date'] === 'string' && row['date'].includes('T')) bump('iso-timestamp');
        if ('pending' in row) bump('pending');
        if (typeof row['isPending'] === 'string') bump('string-flag');
        if (!('pending' in row) && !('isPending' in row)) bump('no-flag');
        if ('merchant_name' in row) bump('merchant_name');
      }
    }
    for (const form of [
      'blank-id',
      'string-account-id',
      'account_id',
      'string-amount',
      'unix-date',
      'iso-timestamp',
      'pending',
      'string-flag',
      'no-flag',
      'merchant_name',
    ]) {
      expect(forms.get(form) ?? 0, form).toBeGreaterThan(0);
    }
    // The canonical output uses none of them.
    const plain = await call(canonical, '/accounts/4711/transactions?include_pending=true');
    expect(plain.text).not.toMatch(/"account_id"|"merchant_name"|"pending"|"isPending":"|"id":""|T00:00/);
  });

  it('carries the same balances, with `current` on exactly one account', async () => {
    let currentCount = 0;
    for (const id of ids) {
      const [a, b] = await Promise.all([
        call(canonical, `/accounts/${id}/balance`),
        call(variant, `/accounts/${id}/balance`),
      ]);
      const currency = a.json.balance.currency as string;
      expect(b.json.balance.currency).toBe(currency);
      if ('current' in b.json.balance) currentCount++;
      const value = b.json.balance.amount ?? b.json.balance.current;
      expect(amountMinor(value, currency)).toBe(amountMinor(a.json.balance.amount, currency));
    }
    expect(currentCount).toBe(1);
  });

  it('carries the same accounts and holdings', async () => {
    const [a, b] = await Promise.all([call(canonical, '/accounts'), call(variant, '/accounts')]);
    expect(b.json.accounts.some((x: Raw) => typeof x['id'] === 'string')).toBe(true);
    expect(b.json.accounts.map((x: Raw) => ({ ...x, id: String(x['id']) }))).toEqual(
      a.json.accounts.map((x: Raw) => ({ ...x, id: String(x['id']) })),
    );
    const [ha, hb] = await Promise.all([
      call(canonical, '/accounts/5001/holdings'),
      call(variant, '/accounts/5001/holdings'),
    ]);
    expect(hb.json.holdings.some((h: Raw) => typeof h['quantity'] === 'string')).toBe(true);
    expect(hb.json.holdings.map((h: Raw) => ({ ...h, quantity: Number(h['quantity']) }))).toEqual(
      ha.json.holdings,
    );
    expect(hb.json.totalValue).toBe(ha.json.totalValue);
  });

  it('is as deterministic as the canonical output', async () => {
    const again = new SandboxProvider({ seed: 3, wireVariants: true });
    for (const path of [
      '/accounts',
      '/accounts/4711/transactions?include_pending=true',
      '/accounts/4713/balance',
    ]) {
      expect((await call(again, path)).text).toBe((await call(variant, path)).text);
    }
  });
});
