/** create(): what the client sends, what it returns, and what it refuses to send (nothing goes out). */
import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import {
  InvalidRequestError,
  ServiceClient,
  TransactionCreateSchema,
  type TransactionCreate,
} from '../src/index.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';

const server = useMswServer();
const ACCOUNT = '0b7e5d1c-1111-4c1e-9a57-2f0e8b1d3c44';
const TAG = 'd1e2f3a4-4444-4c1e-9a57-2f0e8b1d3c44';
const CATEGORY = 'a1d2c3b4-2222-4c1e-9a57-2f0e8b1d3c44';
const MINIMAL: TransactionCreate = { account_id: ACCOUNT, name: 'Coffee', date: '2026-05-02', amount: 4.5 };

/** Captures every POST to the collection and answers `status` with a rendered row. */
function capture(status = 201) {
  const requests: Array<{ url: string; body: unknown; contentType: string | null; key: string | null }> = [];
  server.use(
    http.post(`${API}/transactions`, async ({ request }) => {
      requests.push({
        url: request.url,
        body: await request.json(),
        contentType: request.headers.get('content-type'),
        key: request.headers.get('x-api-key'),
      });
      return HttpResponse.json(wireTransaction(), { status });
    }),
  );
  return requests;
}

const client = () => new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });

describe('create sends only what the caller set', () => {
  it('POSTs {"transaction": …} as JSON with the key header; 201 → created: true', async () => {
    const requests = capture(201);
    const result = await client().transactions.create(MINIMAL);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: `${API}/transactions`,
      body: { transaction: MINIMAL },
      key: KEY,
    });
    expect(requests[0]!.contentType).toContain('application/json');
    expect(result.created).toBe(true);
    expect(result.transaction.id).toBe(TX_ID);
    expect(result.transaction.amount_decimal).toBe('42.10');
  });

  it('200 (an idempotent repeat) → created: false', async () => {
    capture(200);
    const result = await client().transactions.create({ ...MINIMAL, external_id: 'bank-1' });
    expect(result).toMatchObject({ created: false, transaction: { id: TX_ID } });
  });

  it('drops undefined members and sends every other member as given', async () => {
    const requests = capture();
    const full: TransactionCreate = {
      account_id: ACCOUNT,
      date: '2026-05-03',
      amount: '10.50',
      nature: 'Income',
      name: 'Refund',
      description: 'ignored when name is set',
      currency: 'EUR',
      notes: '',
      category_id: CATEGORY,
      merchant_id: CATEGORY,
      tag_ids: [TAG],
      external_id: 'bank-42',
      source: 'my_importer',
    };
    await client().transactions.create({ ...full, notes: undefined });
    const { notes: _dropped, ...sent } = full;
    expect(requests[0]!.body).toEqual({ transaction: sent });
    await client().transactions.create(full);
    expect(requests[1]!.body).toEqual({ transaction: full });
  });

  it("sends a currency code of the service's table that is not three letters (USDC, DOGE)", async () => {
    const requests = capture();
    await client().transactions.create({ ...MINIMAL, currency: 'USDC' });
    await client().transactions.create({ ...MINIMAL, currency: 'DOGE' });
    expect(
      requests.map((r) => (r.body as { transaction: { currency: string } }).transaction.currency),
    ).toEqual(['USDC', 'DOGE']);
  });

  it('description alone names the transaction', async () => {
    const requests = capture();
    const { name: _name, ...rest } = MINIMAL;
    await client().transactions.create({ ...rest, description: 'Coffee' });
    expect(requests[0]!.body).toEqual({ transaction: { ...rest, description: 'Coffee' } });
  });
});

describe('an invalid create is refused before anything is sent', () => {
  const without = (member: keyof TransactionCreate) => {
    const copy: Record<string, unknown> = { ...MINIMAL };
    delete copy[member];
    return copy;
  };
  const cases: Array<[string, unknown, string, RegExp?]> = [
    ['no account_id', without('account_id'), 'account_id', /Account ID is required/],
    ['an account_id that is not a UUID', { ...MINIMAL, account_id: '42' }, 'account_id', /UUID/],
    ['no name and no description', without('name'), 'name', /Name can't be blank/],
    ['a blank name', { ...MINIMAL, name: '  ' }, 'name', /blank/],
    ['a blank description', { ...without('name'), description: '' }, 'description'],
    ['no date', without('date'), 'date', /Date is required/],
    ['an impossible date', { ...MINIMAL, date: '2024-02-30' }, 'date'],
    ['"not-a-date"', { ...MINIMAL, date: 'not-a-date' }, 'date'],
    ['no amount', without('amount'), 'amount', /Amount is required/],
    ['a localized amount', { ...MINIMAL, amount: '1,234.56' }, 'amount'],
    ['NaN', { ...MINIMAL, amount: Number.NaN }, 'amount'],
    ['an unknown nature', { ...MINIMAL, nature: 'refund' }, 'nature'],
    ['a lower-case currency', { ...MINIMAL, currency: 'usd' }, 'currency'],
    ['a currency that is not a code', { ...MINIMAL, currency: 'US$' }, 'currency'],
    ['a four-letter code the service does not list', { ...MINIMAL, currency: 'ABCD' }, 'currency'],
    ['source without external_id', { ...MINIMAL, source: 'bank' }, 'source', /requires external_id/],
    ['a blank external_id', { ...MINIMAL, external_id: ' ' }, 'external_id'],
    ['a category_id that is not a UUID', { ...MINIMAL, category_id: 'groceries' }, 'category_id'],
    ['a tag id that is not a UUID', { ...MINIMAL, tag_ids: [TAG, 'x'] }, 'tag_ids'],
    ['notes: null', { ...MINIMAL, notes: null }, 'notes', /leave the member out/],
    ['a member the service does not read', { ...MINIMAL, classification: 'income' }, 'classification'],
    ['kind', { ...MINIMAL, kind: 'transfer' }, 'kind'],
    ['a number for name', { ...MINIMAL, name: 42 }, 'name', /must be a string/],
  ];

  it.each(cases)('%s', async (_name, body, member, message) => {
    const requests = capture();
    const error = (await settle(
      client().transactions.create(body as TransactionCreate),
    )) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe(member);
    expect(error.method).toBe('POST');
    expect(error.path).toBe('/api/v1/transactions');
    if (message) expect(error.message).toMatch(message);
    expect(requests).toHaveLength(0);
  });

  it('a body that is not an object', async () => {
    const requests = capture();
    for (const body of [null, undefined, 'name=x', [MINIMAL]]) {
      const error = await settle(client().transactions.create(body as unknown as TransactionCreate));
      expect(error).toBeInstanceOf(InvalidRequestError);
    }
    expect(requests).toHaveLength(0);
  });

  it('lists every issue, each naming its member', async () => {
    const error = (await settle(
      client().transactions.create({ account_id: ACCOUNT, date: 'x' } as TransactionCreate),
    )) as InvalidRequestError;
    expect(error.issues.map((i) => i.path).sort()).toEqual(['amount', 'date']);
  });
});

describe('TransactionCreateSchema (shared with servers)', () => {
  it("carries the service's own messages for the cross-member rules", () => {
    const parsed = TransactionCreateSchema.safeParse({ ...MINIMAL, name: undefined, source: 'bank' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message)).toEqual([
      "Name can't be blank",
      'Source requires external_id',
    ]);
  });
});
