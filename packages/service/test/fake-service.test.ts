/** The fake service's reads, auth and rate limits. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimitError, TransactionSchema } from '../src/index.js';
import { FakeServiceStore, handleServiceRequest } from '../src/msw.js';
import { BASE, KEY, READ_KEY, settle } from './helpers.js';
import { NOW, clientFor, raw, seedStore, useFakeService } from './fake-fixture.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;
const client = clientFor();

beforeEach(() => {
  world = seedStore();
  fake.use(world.store);
});

describe('the rendered JSON', () => {
  it('has every key, in the service order, with the service values', async () => {
    const { body } = await raw('GET', `/api/v1/transactions/${world.market.id}`);
    expect(Object.keys(body)).toEqual([
      'id',
      'date',
      'amount',
      'amount_cents',
      'signed_amount_cents',
      'currency',
      'name',
      'notes',
      'external_id',
      'source',
      'classification',
      'account',
      'category',
      'merchant',
      'tags',
      'transfer',
      'created_at',
      'updated_at',
    ]);
    expect(body).toEqual({
      id: world.market.id,
      date: '2026-05-02',
      amount: '$42.10',
      amount_cents: 4210,
      signed_amount_cents: -4210,
      currency: 'USD',
      name: 'CORNER MARKET #12',
      notes: 'weekly shop',
      external_id: 'lunchflow_tx_9981',
      source: 'lunchflow',
      classification: 'expense',
      account: { id: world.checking.id, name: 'Everyday Checking', account_type: 'depository' },
      category: { id: world.groceries.id, name: 'Groceries', color: '#407706', icon: 'shopping-bag' },
      merchant: { id: world.corner.id, name: 'Corner Market' },
      tags: [{ id: world.household.id, name: 'Household', color: '#e99537' }],
      transfer: null,
      created_at: '2026-05-03T06:14:09Z',
      updated_at: '2026-05-04T19:01:55Z',
    });
    expect(TransactionSchema.safeParse(body).success).toBe(true);
  });

  it('income: "-$1,000.00", amount_cents ≥ 0, signed +cents; nulls for absent objects', async () => {
    const { body } = await raw('GET', `/api/v1/transactions/${world.salary.id}`);
    expect(body).toMatchObject({
      amount: '-$1,000.00',
      amount_cents: 100000,
      signed_amount_cents: 100000,
      classification: 'income',
      notes: null,
      external_id: null,
      source: null,
      category: null,
      merchant: null,
      tags: [],
      transfer: null,
    });
  });

  it('formats for ?locale= and Accept-Language; JPY has no decimals', async () => {
    const path = `/api/v1/transactions/${world.coffee.id}`;
    expect((await raw('GET', path)).body.amount).toBe('€1,234.56');
    expect((await raw('GET', `${path}?locale=de`)).body.amount).toBe('1.234,56 €');
    expect(
      (await raw('GET', path, undefined, { 'x-api-key': KEY, 'accept-language': 'fr-FR,fr;q=0.9' })).body
        .amount,
    ).toBe('1\u00a0234,56\u00a0€');
    expect((await raw('GET', `${path}?locale=nl`)).body.amount).toBe('€ 1.234,56');
    const yen = world.store.addTransaction({
      account_id: world.checking.id,
      date: '2026-05-01',
      amount: '1234.5',
      currency: 'JPY',
      name: 'Sushi',
    });
    expect((await raw('GET', `/api/v1/transactions/${yen.id}`)).body).toMatchObject({
      amount: '¥1,235',
      amount_cents: 1235,
    });
  });

  it('the client reads a localized row and derives amount_decimal from the cents', async () => {
    const tx = await clientFor().transactions.get(world.coffee.id);
    expect(tx).toMatchObject({ amount: '€1,234.56', amount_cents: 123456, amount_decimal: '1234.56' });
  });

  it('renders both sides of a transfer', async () => {
    const inflow = world.store.addTransaction({
      account_id: world.card.id,
      date: '2026-05-03',
      amount: -100,
      name: 'Payment in',
      currency: 'USD',
    });
    const outflow = world.store.addTransaction({
      account_id: world.checking.id,
      date: '2026-05-03',
      amount: 100,
      name: 'Payment out',
    });
    const transfer = world.store.addTransfer({
      inflow_transaction_id: inflow.id,
      outflow_transaction_id: outflow.id,
    });
    const inSide = await client.transactions.get(inflow.id);
    const outSide = await client.transactions.get(outflow.id);
    expect(inSide.transfer).toEqual({
      id: transfer.id,
      amount: '$100.00',
      currency: 'USD',
      other_account: { id: world.checking.id, name: 'Everyday Checking', account_type: 'depository' },
    });
    expect(inSide.classification).toBe('income');
    expect(outSide.transfer?.other_account?.id).toBe(world.card.id);
    expect(outSide.classification).toBe('expense');
  });
});

describe('GET index', () => {
  it('returns the pagination envelope and leaves out pending_deletion accounts', async () => {
    const { body } = await raw('GET', '/api/v1/transactions');
    expect(body.pagination).toEqual({ page: 1, per_page: 25, total_count: 3, total_pages: 1 });
    const names = (body.transactions as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(['CORNER MARKET #12', 'Salary', 'Coffee beans']);
    expect((await raw('GET', `/api/v1/transactions/${world.hidden.id}`)).status).toBe(200);
  });

  it('filters by account_id, inclusive dates and name search', async () => {
    const ids = async (query: string) =>
      ((await raw('GET', `/api/v1/transactions?${query}`)).body.transactions as Array<{ id: string }>).map(
        (t) => t.id,
      );
    expect(await ids(`account_id=${world.card.id}`)).toEqual([world.coffee.id]);
    expect(await ids('start_date=2026-05-01&end_date=2026-05-02')).toEqual([
      world.market.id,
      world.salary.id,
    ]);
    expect(await ids('start_date=2026-05-02')).toEqual([world.market.id]);
    expect(await ids('search=coffee')).toEqual([world.coffee.id]);
    expect(await ids(`tag_ids[]=${world.household.id}`)).toEqual([world.market.id]);
  });

  it('page/per_page: at most per_page rows; out-of-range per_page falls back to 25', async () => {
    const { body } = await raw('GET', '/api/v1/transactions?page=2&per_page=2');
    expect(body.pagination).toEqual({ page: 2, per_page: 2, total_count: 3, total_pages: 2 });
    expect(body.transactions).toHaveLength(1);
    expect((await raw('GET', '/api/v1/transactions?per_page=500')).body.pagination).toMatchObject({
      per_page: 25,
    });
  });

  it('the client walks every page of the fake', async () => {
    for (let day = 1; day <= 9; day += 1) {
      world.store.addTransaction({
        account_id: world.checking.id,
        date: `2026-03-0${day}`,
        amount: day,
        name: `Row ${day}`,
      });
    }
    const all = await client.transactions.list({ per_page: 5 }).toArray({ limit: 100 });
    expect(all).toHaveLength(12);
    expect(new Set(all.map((t) => t.id)).size).toBe(12);
    expect(await client.transactions.list({ per_page: 5, search: 'row' }).toArray({ limit: 9 })).toHaveLength(
      9,
    );
  });
});

describe('auth', () => {
  it.each([
    ['no key', {}],
    ['a bad key', { 'x-api-key': 'invalid-key' }],
  ])('%s → 401 without rate-limit headers', async (_name, headers) => {
    const response = await raw('GET', '/api/v1/transactions', undefined, headers);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: 'unauthorized',
      message: 'Access token or API key is invalid, expired, or missing',
    });
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('revoked keys, deactivated users and Bearer tokens → 401', async () => {
    world.store.addApiKey({ key: 'revoked', scope: 'read_write', revoked: true });
    world.store.addApiKey({ key: 'gone', scope: 'read_write', userDeactivated: true });
    expect((await raw('GET', '/api/v1/transactions', undefined, { 'x-api-key': 'revoked' })).status).toBe(
      401,
    );
    expect((await raw('GET', '/api/v1/transactions', undefined, { 'x-api-key': 'gone' })).body.message).toBe(
      'Account has been deactivated',
    );
    const bearer = await raw('GET', '/api/v1/transactions', undefined, {
      'x-api-key': KEY,
      authorization: 'Bearer x',
    });
    expect(bearer.body.message).toContain('Access token is invalid');
  });

  it('a read key can list and show', async () => {
    expect((await raw('GET', '/api/v1/transactions', undefined, { 'x-api-key': READ_KEY })).status).toBe(200);
  });

  it('unknown or malformed ids → 404 with the service body', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', '999999']) {
      const response = await raw('GET', `/api/v1/transactions/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'not_found', message: 'Transaction not found' });
    }
  });

  it('routes it does not serve are left unhandled', async () => {
    for (const [method, path] of [
      ['DELETE', '/api/v1/transactions'],
      ['POST', `/api/v1/transactions/${world.market.id}`],
      ['GET', `/api/v1/transactions/${world.market.id}/restore`],
    ] as const) {
      const request = new Request(`${BASE}${path}`, { method, headers: { 'x-api-key': KEY } });
      expect(await handleServiceRequest(world.store, request, { baseUrl: BASE })).toBeUndefined();
    }
    const other = new Request(`${BASE}/api/v1/budgets`, { headers: { 'x-api-key': KEY } });
    expect(await handleServiceRequest(world.store, other, { baseUrl: BASE })).toBeUndefined();
  });
});

describe('rate limits', () => {
  it('self-hosted by default: Infinity headers, seen by client.rateLimit', async () => {
    const response = await raw('GET', '/api/v1/transactions');
    expect(response.headers.get('x-ratelimit-limit')).toBe('Infinity');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('Infinity');
    expect(response.headers.get('x-ratelimit-reset')).toBe('0');
    const fresh = clientFor();
    await fresh.transactions.get(world.market.id);
    expect(fresh.rateLimit).toMatchObject({ limit: Infinity, remaining: Infinity, resetSeconds: 0 });
  });

  it('per key: counts every accepted request, then 429 with Retry-After and details', async () => {
    fake.use(world.store, { rateLimit: { limit: 3 } });
    const remaining: Array<string | null> = [];
    remaining.push((await raw('GET', '/api/v1/transactions')).headers.get('x-ratelimit-remaining'));
    remaining.push((await raw('GET', '/api/v1/transactions/999999')).headers.get('x-ratelimit-remaining')); // 404 counts
    const other = await raw('GET', '/api/v1/transactions', undefined, { 'x-api-key': READ_KEY });
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2'); // per key
    remaining.push(
      (
        await raw('PATCH', `/api/v1/transactions/${world.market.id}`, { transaction: { notes: 'x' } })
      ).headers.get('x-ratelimit-remaining'),
    );
    expect(remaining).toEqual(['2', '1', '0']);

    const limited = await raw('GET', '/api/v1/transactions');
    expect(limited.status).toBe(429);
    const reset = 3600 - ((NOW.getTime() / 1000) % 3600); // hourly windows aligned to the epoch
    expect(reset).toBe(3600);
    expect(limited.body).toEqual({
      error: 'rate_limit_exceeded',
      message: `Rate limit exceeded. Try again in ${reset} seconds.`,
      details: { limit: 3, current: 3, reset_in_seconds: reset },
    });
    expect(limited.headers.get('retry-after')).toBe(String(reset));
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');

    // Beyond maxRetryAfterMs (3600 s > 60 s): thrown at once, with the wait.
    const error = (await settle(
      clientFor({ maxRetries: 2 }).transactions.get(world.market.id),
    )) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(reset * 1000);
    expect(error.details).toMatchObject({ limit: 3, current: 3 });
  });

  it('a short window is waited out and the retry succeeds', async () => {
    let now = new Date('2026-05-10T12:00:00Z');
    const store = seedStore(() => now).store;
    fake.use(store, { rateLimit: { limit: 1, windowSeconds: 2 } });
    const id = [...store.transactions.keys()][0]!;
    const limited = clientFor({ maxRetries: 1 });
    await limited.transactions.get(id);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const second = settle(limited.transactions.get(id));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(store.requests.map((r) => r.status)).toEqual([200, 429]);
      now = new Date(now.getTime() + 2_000); // the window passes while the client waits
      await vi.advanceTimersByTimeAsync(1_500);
      expect(await second).toMatchObject({ id });
      expect(store.requests.map((r) => r.status)).toEqual([200, 429, 200]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the options of the fake store', () => {
  it('refuses a clock that is not a function and a currency that is not a code, when the store is made', () => {
    expect(() => new FakeServiceStore({}, { now: 5 as unknown as () => Date })).toThrow(
      'now must be a function returning a Date, got number',
    );
    expect(() => new FakeServiceStore({}, { familyCurrency: 'usd' })).toThrow(
      /familyCurrency must be an ISO 4217 code/,
    );
    expect(new FakeServiceStore({}, { familyCurrency: 'EUR' }).familyCurrency).toBe('EUR');
  });
});
