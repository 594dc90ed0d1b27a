import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { InvalidRequestError, ServiceClient, type TransactionUpdate } from '../src/index.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';

const server = useMswServer();
const TAG = 'd1e2f3a4-4444-4c1e-9a57-2f0e8b1d3c44';
const CATEGORY = 'a1d2c3b4-2222-4c1e-9a57-2f0e8b1d3c44';

/** Captures every PATCH: method, path, content type, key header and parsed body. */
function capture() {
  const requests: Array<{ url: string; body: unknown; contentType: string | null; key: string | null }> = [];
  server.use(
    http.patch(`${API}/transactions/:id`, async ({ request }) => {
      requests.push({
        url: request.url,
        body: await request.json(),
        contentType: request.headers.get('content-type'),
        key: request.headers.get('x-api-key'),
      });
      return HttpResponse.json(wireTransaction());
    }),
  );
  return requests;
}

const client = () => new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });

describe('update sends only what the caller set', () => {
  it('wraps the members in {"transaction": …}, as JSON, with the key header', async () => {
    const requests = capture();
    const result = await client().transactions.update(TX_ID, { name: 'Weekly groceries' });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: `${API}/transactions/${TX_ID}`,
      body: { transaction: { name: 'Weekly groceries' } },
      key: KEY,
    });
    expect(requests[0]!.contentType).toContain('application/json');
    expect(result.id).toBe(TX_ID);
    expect(result.amount_decimal).toBe('42.10');
  });

  it('drops undefined members and keeps the API field names', async () => {
    const requests = capture();
    const body: TransactionUpdate = {
      notes: 'split with flatmate',
      name: undefined,
      category_id: CATEGORY,
      date: undefined,
      merchant_id: undefined,
    };
    await client().transactions.update(TX_ID, body);
    expect(requests[0]!.body).toEqual({
      transaction: { notes: 'split with flatmate', category_id: CATEGORY },
    });
    expect(Object.keys((requests[0]!.body as { transaction: object }).transaction)).toEqual([
      'notes',
      'category_id',
    ]);
  });

  it('sends tag_ids: [] (it clears the tags) and notes: "" (it clears the notes)', async () => {
    const requests = capture();
    await client().transactions.update(TX_ID, { tag_ids: [], notes: '' });
    expect(requests[0]!.body).toEqual({ transaction: { tag_ids: [], notes: '' } });
  });

  it('sends amounts as given: numbers as numbers, decimal strings as strings', async () => {
    const requests = capture();
    await client().transactions.update(TX_ID, { amount: 12.5, nature: 'income' });
    await client().transactions.update(TX_ID, { amount: '1234.5600' });
    await client().transactions.update(TX_ID, { amount: -7 });
    expect(requests.map((r) => r.body)).toEqual([
      { transaction: { amount: 12.5, nature: 'income' } },
      { transaction: { amount: '1234.5600' } },
      { transaction: { amount: -7 } },
    ]);
  });

  it('sends every member, the tags in a PATCH of their own when a category or merchant comes with them', async () => {
    const requests = capture();
    const full: TransactionUpdate = {
      date: '2026-05-03',
      amount: '10.00',
      nature: 'Expense',
      name: 'n',
      description: 'd',
      notes: 'x',
      currency: 'USD',
      category_id: CATEGORY,
      merchant_id: CATEGORY,
      tag_ids: [TAG, TAG.toUpperCase()],
    };
    await client().transactions.update(TX_ID, full);
    const { tag_ids, ...rest } = full;
    expect(requests.map((r) => r.body)).toEqual([{ transaction: rest }, { transaction: { tag_ids } }]);
    const { category_id: _category, merchant_id: _merchant, ...noReferences } = full;
    await client().transactions.update(TX_ID, noReferences);
    expect(requests[2]!.body).toEqual({ transaction: noReferences });
  });

  it('URL-encodes the id path segment', async () => {
    const requests = capture();
    await client().transactions.update('a/b?c#d', { notes: 'x' });
    expect(requests[0]!.url).toBe(`${API}/transactions/a%2Fb%3Fc%23d`);
  });

  it('warns (without the key) when currency is sent: the service ignores it on update', async () => {
    capture();
    const warnings: unknown[] = [];
    const logged = new ServiceClient({
      baseUrl: BASE,
      apiKey: KEY,
      logger: { warn: (...args) => warnings.push(args) },
    });
    await logged.transactions.update(TX_ID, { currency: 'EUR' });
    expect(JSON.stringify(warnings)).toContain('currency is ignored');
    expect(JSON.stringify(warnings)).not.toContain(KEY);
  });
});

describe('an invalid update is refused before anything is sent', () => {
  const cases: Array<[string, unknown, string]> = [
    ['name ""', { name: '' }, 'name'],
    ['name of spaces', { name: '   ' }, 'name'],
    ['description ""', { description: '' }, 'description'],
    ['a date that is not YYYY-MM-DD', { date: '05/02/2026' }, 'date'],
    ['an impossible date', { date: '2024-02-30' }, 'date'],
    ['a localized amount', { amount: '1,234.56' }, 'amount'],
    ['a non-numeric amount', { amount: 'abc' }, 'amount'],
    ['NaN', { amount: Number.NaN }, 'amount'],
    ['Infinity', { amount: Number.POSITIVE_INFINITY }, 'amount'],
    ['an unknown nature', { amount: 1, nature: 'refund' }, 'nature'],
    ['nature without amount (does nothing on the service)', { nature: 'income' }, 'nature'],
    ['notes: null (would NOT clear the notes)', { notes: null }, 'notes'],
    ['category_id: null (cannot clear a category)', { category_id: null }, 'category_id'],
    ['merchant_id: ""', { merchant_id: '' }, 'merchant_id'],
    [
      'a category_id that is not a UUID (the service would clear it)',
      { category_id: 'groceries' },
      'category_id',
    ],
    ['tag_ids: null', { tag_ids: null }, 'tag_ids'],
    ['a tag id that is not a UUID (the service answers 500)', { tag_ids: [TAG, 'household'] }, 'tag_ids'],
    ['tag_ids not a list', { tag_ids: TAG }, 'tag_ids'],
    ['a member the service ignores', { account_id: TX_ID }, 'account_id'],
    ['classification (not editable)', { classification: 'income' }, 'classification'],
    ['an empty update (the service answers 500)', {}, ''],
    ['only undefined members', { name: undefined }, ''],
    ['a number for name', { name: 42 }, 'name'],
  ];

  it.each(cases)('%s', async (_name, body, member) => {
    const requests = capture();
    const error = (await settle(
      client().transactions.update(TX_ID, body as TransactionUpdate),
    )) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member ?? '').toBe(member);
    if (member) expect(error.message).toContain(member);
    expect(error.method).toBe('PATCH');
    expect(requests).toHaveLength(0);
  });

  it('a body that is not an object', async () => {
    const requests = capture();
    for (const body of [null, 'name=x', [{ name: 'x' }]]) {
      const error = await settle(client().transactions.update(TX_ID, body as unknown as TransactionUpdate));
      expect(error).toBeInstanceOf(InvalidRequestError);
    }
    expect(requests).toHaveLength(0);
  });

  it('an empty id (which would hit the index instead)', async () => {
    const requests = capture();
    const error = (await settle(client().transactions.update('', { notes: 'x' }))) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe('id');
    expect(await settle(client().transactions.get(' '))).toBeInstanceOf(InvalidRequestError);
    expect(requests).toHaveLength(0);
  });

  it('lists every issue, each naming its member', async () => {
    const error = (await settle(
      client().transactions.update(TX_ID, { name: '', date: 'yesterday' } as TransactionUpdate),
    )) as InvalidRequestError;
    expect(error.issues.map((i) => i.path).sort()).toEqual(['date', 'name']);
    expect(error.message).toContain('and 1 more');
  });
});
