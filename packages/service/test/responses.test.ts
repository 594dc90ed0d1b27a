import { http, HttpResponse, type JsonBodyType } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { InvalidResponseError, ServiceClient, TransactionSchema } from '../src/index.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';

const server = useMswServer();
const client = () => new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });

function serveOne(body: JsonBodyType) {
  server.use(http.get(`${API}/transactions/:id`, () => HttpResponse.json(body)));
}

describe('real-format responses are read liberally', () => {
  it('nulls for absent objects, [] tags', async () => {
    serveOne(
      wireTransaction({
        category: null,
        merchant: null,
        tags: [],
        notes: null,
        external_id: null,
        source: null,
      }),
    );
    const tx = await client().transactions.get(TX_ID);
    expect(tx).toMatchObject({
      category: null,
      merchant: null,
      tags: [],
      notes: null,
      external_id: null,
      source: null,
    });
  });

  it('extra fields are kept, at the top and inside objects', async () => {
    serveOne(
      wireTransaction({
        kind: 'standard',
        account: { id: 'a', name: 'Checking', account_type: 'depository', status: 'active' },
      }),
    );
    const tx = await client().transactions.get(TX_ID);
    expect((tx as Record<string, unknown>).kind).toBe('standard'); // kept at run time, untyped
    expect(tx.account).toEqual({ id: 'a', name: 'Checking', account_type: 'depository', status: 'active' });
  });

  it('category without classification (today) and with it (older servers)', async () => {
    serveOne(wireTransaction());
    expect((await client().transactions.get(TX_ID)).category).toEqual({
      id: 'a1d2c3b4-2222-4c1e-9a57-2f0e8b1d3c44',
      name: 'Groceries',
      color: '#407706',
      icon: 'shopping-bag',
    });
    serveOne(
      wireTransaction({
        category: { id: 'c', name: 'Salary', color: '#00ff00', icon: 'briefcase', classification: 'income' },
      }),
    );
    expect((await client().transactions.get(TX_ID)).category?.classification).toBe('income');
  });

  it('missing optional keys (an older server) come back as null', async () => {
    const old = wireTransaction();
    for (const key of ['amount_cents', 'signed_amount_cents', 'external_id', 'source', 'transfer', 'tags'])
      delete old[key];
    serveOne(old);
    const tx = await client().transactions.get(TX_ID);
    expect(tx).toMatchObject({
      amount_cents: null,
      signed_amount_cents: null,
      external_id: null,
      transfer: null,
      tags: [],
    });
    expect(tx.amount_decimal).toBeNull(); // "$42.10" is a display string: never parsed
  });

  it('a localized amount string ("1.234,56 €") is left alone; amount_decimal comes from the cents', async () => {
    serveOne(
      wireTransaction({
        amount: '-1.234,56 €',
        amount_cents: 123456,
        signed_amount_cents: 123456,
        currency: 'EUR',
        classification: 'income',
      }),
    );
    const tx = await client().transactions.get(TX_ID);
    expect(tx.amount).toBe('-1.234,56 €');
    expect(tx.amount_decimal).toBe('-1234.56');
    expect(tx.signed_amount_cents).toBe(123456);
  });

  it('a currency code stored in lower case is looked up as the service does, in any case', async () => {
    // IDR has cents in the service's table (Intl says none): "idr" must not fall through to Intl's 0.
    serveOne(
      wireTransaction({
        amount: 'Rp1.000,00',
        amount_cents: 100000,
        signed_amount_cents: 100000,
        currency: 'idr',
      }),
    );
    expect((await client().transactions.get(TX_ID)).amount_decimal).toBe('1000.00');
  });

  it('French formatting with non-breaking spaces, expense', async () => {
    serveOne(
      wireTransaction({
        amount: '1\u00a0234,56\u00a0€',
        amount_cents: 123456,
        signed_amount_cents: -123456,
        currency: 'EUR',
      }),
    );
    expect((await client().transactions.get(TX_ID)).amount_decimal).toBe('1234.56');
  });

  it('JPY has scale 0; KWD has scale 3', async () => {
    serveOne(
      wireTransaction({ amount: '¥1,235', amount_cents: 1235, signed_amount_cents: -1235, currency: 'JPY' }),
    );
    expect((await client().transactions.get(TX_ID)).amount_decimal).toBe('1235');
    serveOne(
      wireTransaction({
        amount: 'KD1.500',
        amount_cents: 1500,
        signed_amount_cents: 1500,
        currency: 'KWD',
        classification: 'income',
      }),
    );
    expect((await client().transactions.get(TX_ID)).amount_decimal).toBe('-1.500');
  });

  it("reads amount_cents with the service's own minor units, not Intl's: IDR ×100, HUF ×1, MGA ×5", () => {
    const read = (currency: string, amount_cents: number) =>
      TransactionSchema.parse(
        wireTransaction({ amount: '', amount_cents, signed_amount_cents: -amount_cents, currency }),
      ).amount_decimal;
    // Intl gives IDR no decimals; Sure's table (and ISO 4217) gives it two.
    expect(read('IDR', 1234567)).toBe('12345.67');
    expect(read('COP', 250050)).toBe('2500.50');
    expect(read('HUF', 1235)).toBe('1235');
    expect(read('IQD', 1234)).toBe('1.234');
    expect(read('MGA', 502)).toBe('100.4');
  });

  it('small amounts keep their leading zero', () => {
    const tx = TransactionSchema.parse(
      wireTransaction({ amount: '$0.05', amount_cents: 5, signed_amount_cents: -5 }),
    );
    expect(tx.amount_decimal).toBe('0.05');
  });

  it('a transfer side, with and without other_account', async () => {
    const transfer = {
      id: 'tr',
      amount: '$100.00',
      currency: 'USD',
      other_account: { id: 'b', name: 'Savings', account_type: 'depository' },
    };
    serveOne(wireTransaction({ transfer }));
    expect((await client().transactions.get(TX_ID)).transfer).toEqual(transfer);
    serveOne(wireTransaction({ transfer: { id: 'tr', amount: '$100.00', currency: 'USD' } }));
    expect((await client().transactions.get(TX_ID)).transfer?.other_account).toBeUndefined();
  });

  it('a wrong type is an InvalidResponseError naming the field', async () => {
    serveOne(wireTransaction({ tags: [{ id: 't', name: 5 }] }));
    const error = (await settle(client().transactions.get(TX_ID))) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues[0]?.path).toBe('tags[0].name');
    expect(error.path).toBe(`/api/v1/transactions/${TX_ID}`);
  });
});
