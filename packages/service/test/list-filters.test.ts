// The transaction list filters: what the client sends and refuses, and how the fake (Sure's
// `apply_filters`/`apply_search`) answers them.
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidRequestError, type TransactionListParams } from '../src/index.js';
import { clientFor, raw, seedStore, useFakeService } from './fake-fixture.js';
import { API } from './helpers.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;
let zero: { id: string };
let cafeRow: { id: string };

beforeEach(() => {
  world = seedStore();
  zero = world.store.addTransaction({
    account_id: world.checking.id,
    date: '2026-04-01',
    amount: 0,
    name: 'Fee waived',
  });
  cafeRow = world.store.addTransaction({
    account_id: world.card.id,
    date: '2026-04-02',
    amount: '7.5',
    name: 'POS 4411',
    merchant_id: world.cafe.id,
    category_id: world.dining.id,
  });
  fake.use(world.store);
});

const client = () => clientFor();
const ids = async (params: TransactionListParams) =>
  (await client().transactions.list(params).toArray({ limit: 100 })).map((tx) => tx.id).sort();
const sorted = (...rows: Array<{ id: string }>) => rows.map((row) => row.id).sort();

describe('what list() sends', () => {
  it('arrays as name[]=…, amounts and type as given', async () => {
    const urls: URL[] = [];
    fake.server.use(
      http.get(`${API}/transactions`, ({ request }) => {
        urls.push(new URL(request.url));
        return HttpResponse.json({
          transactions: [],
          pagination: { page: 1, per_page: 25, total_count: 0, total_pages: 1 },
        });
      }),
    );
    await client()
      .transactions.list({
        account_ids: [world.checking.id, world.card.id],
        category_ids: [world.groceries.id],
        merchant_ids: [world.corner.id, world.cafe.id],
        min_amount: '-50.25',
        max_amount: 1000,
        type: 'expense',
        search: '50\\%',
      })
      .firstPage();
    const query = urls[0]!.searchParams;
    expect(query.getAll('account_ids[]')).toEqual([world.checking.id, world.card.id]);
    expect(query.getAll('category_ids[]')).toEqual([world.groceries.id]);
    expect(query.getAll('merchant_ids[]')).toEqual([world.corner.id, world.cafe.id]);
    expect([query.get('min_amount'), query.get('max_amount'), query.get('type')]).toEqual([
      '-50.25',
      '1000',
      'expense',
    ]);
    expect(query.get('search')).toBe('50\\%');
  });

  it.each<[Record<string, unknown>, string, RegExp]>([
    [{ category: 'x' }, 'category', /not a parameter of the transaction list/],
    [{ accountIds: ['x'] }, 'accountIds', /not a parameter/],
    [{ account_id: 'acc-1' }, 'account_id', /UUID/],
    [{ account_ids: 'a' }, 'account_ids', /array of UUIDs/],
    [{ account_ids: [] }, 'account_ids', /must not be empty/],
    [{ tag_ids: [] }, 'tag_ids', /must not be empty/],
    [{ merchant_ids: ['6f1c2a9e-0d4b-4c1e-9a57-2f0e8b1d3c44', 'nope'] }, 'merchant_ids', /UUID/],
    [{ min_amount: '1,234.56' }, 'min_amount', /decimal/],
    [{ max_amount: Number.NaN }, 'max_amount', /finite/],
    [{ min_amount: 10, max_amount: 5 }, 'min_amount', /above max_amount/],
    [{ type: 'Income' }, 'type', /"income" or "expense"/],
    [{ type: 'transfer' }, 'type', /"income" or "expense"/],
    [{ type: 'income', min_amount: 10 }, 'min_amount', /max_amount: -10/],
    [{ type: 'expense', max_amount: -5 }, 'max_amount', /positive = expense/],
    [{ search: '   ' }, 'search', /blank/],
    [{ search: 5 }, 'search', /string/],
  ])('refuses %o before sending', (params, member, message) => {
    const before = world.store.requests.length;
    let error: unknown;
    try {
      client().transactions.list(params as TransactionListParams);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).member).toBe(member);
    expect((error as InvalidRequestError).message).toMatch(message);
    expect(world.store.requests.length).toBe(before);
  });

  it('undefined members are "not set", not unknown', () => {
    expect(() =>
      client().transactions.list({ type: undefined, ...({ later: undefined } as object) }),
    ).not.toThrow();
  });
});

describe('account_ids, category_ids, merchant_ids (any of; each filter ANDed)', () => {
  it('account_ids lists rows of any of the accounts', async () => {
    expect(await ids({ account_ids: [world.card.id] })).toEqual(sorted(world.coffee, cafeRow));
    expect(await ids({ account_ids: [world.card.id, world.checking.id] })).toHaveLength(5);
  });

  it('account_id and account_ids together must both match', async () => {
    expect(await ids({ account_id: world.checking.id, account_ids: [world.card.id] })).toEqual([]);
    expect(await ids({ account_id: world.card.id, account_ids: [world.card.id, world.checking.id] })).toEqual(
      sorted(world.coffee, cafeRow),
    );
  });

  it('category_ids and merchant_ids', async () => {
    expect(await ids({ category_ids: [world.groceries.id, world.dining.id] })).toEqual(
      sorted(world.market, cafeRow),
    );
    expect(await ids({ merchant_ids: [world.cafe.id] })).toEqual(sorted(cafeRow));
    expect(await ids({ merchant_ids: [world.cafe.id], category_ids: [world.groceries.id] })).toEqual([]);
  });

  it('the fake, like Sure, matches nothing for an id that is not a UUID, and reads a scalar as a list', async () => {
    const rows = async (query: string) =>
      ((await raw('GET', `/api/v1/transactions?${query}`)).body.transactions as unknown[]).length;
    expect(await rows('account_ids[]=nope')).toBe(0);
    expect(await rows(`account_ids=${world.card.id}`)).toBe(2);
    expect(await rows(`category_ids[]=${world.dining.id.toUpperCase()}`)).toBe(1);
    expect(await rows('account_ids=')).toBe(5); // blank: no filter
  });
});

describe('min_amount / max_amount: the stored amount, internal sign (positive = expense)', () => {
  it('min_amount 100 is "expenses of 100 or more"; income is below zero', async () => {
    expect(await ids({ min_amount: 100 })).toEqual(sorted(world.coffee));
    expect(await ids({ min_amount: '42.1' })).toEqual(sorted(world.market, world.coffee));
  });

  it('max_amount -100 is "income of 100 or more"; both bounds are inclusive', async () => {
    expect(await ids({ max_amount: -100 })).toEqual(sorted(world.salary));
    expect(await ids({ min_amount: 0, max_amount: '7.5' })).toEqual(sorted(zero, cafeRow));
  });

  it('compares in the row currency (no conversion): 1234.56 EUR passes min 1000', async () => {
    expect(await ids({ min_amount: 1000, account_ids: [world.card.id] })).toEqual(sorted(world.coffee));
  });
});

describe('type', () => {
  it('income: stored amount below zero; expense: above zero — a zero amount is neither', async () => {
    expect(await ids({ type: 'income' })).toEqual(sorted(world.salary));
    expect(await ids({ type: 'expense' })).toEqual(sorted(world.market, world.coffee, cafeRow));
    const all = await client().transactions.list().toArray({ limit: 100 });
    expect(all.find((tx) => tx.id === zero.id)?.classification).toBe('expense');
  });

  it('with signed bounds: income between 500 and 2000', async () => {
    expect(await ids({ type: 'income', min_amount: -2000, max_amount: -500 })).toEqual(sorted(world.salary));
  });

  it('the fake reads it downcased and ignores other values, like Sure', async () => {
    const count = async (type: string) =>
      ((await raw('GET', `/api/v1/transactions?type=${type}`)).body.transactions as unknown[]).length;
    expect(await count('INCOME')).toBe(1);
    expect(await count('transfer')).toBe(5);
  });
});

describe('search: ILIKE on the name, the notes and the merchant name', () => {
  it('matches the name, case-insensitively', async () => {
    expect(await ids({ search: 'corner market' })).toEqual(sorted(world.market));
  });

  it('matches the notes', async () => {
    expect(await ids({ search: 'WEEKLY' })).toEqual(sorted(world.market));
  });

  it('matches the merchant name, when the row name does not', async () => {
    expect(await ids({ search: 'cafe' })).toEqual(sorted(cafeRow));
  });

  it('% and _ are wildcards (the service does not escape them); \\ escapes', async () => {
    expect(await ids({ search: 'c_ffee' })).toEqual(sorted(world.coffee));
    expect(await ids({ search: 'POS%11' })).toEqual(sorted(cafeRow));
    world.store.addTransaction({
      account_id: world.checking.id,
      date: '2026-04-03',
      amount: 1,
      name: '100% juice',
    });
    const literal = await client().transactions.list({ search: '0\\%' }).toArray({ limit: 10 });
    expect(literal.map((tx) => tx.name)).toEqual(['100% juice']);
  });
});
