// The fake's lookup indexes, checked raw against Sure's exact shapes (accounts and categories
// jbuilder views; the merchants and tags controllers' `render json:`).
import { beforeEach, describe, expect, it } from 'vitest';
import { raw, seedStore, useFakeService } from './fake-fixture.js';
import { KEY, READ_KEY } from './helpers.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;

beforeEach(() => {
  world = seedStore();
  fake.use(world.store);
});

const get = (path: string, key = KEY) => raw('GET', path, undefined, { 'x-api-key': key });
const list = async (path: string) => (await get(path)).body as unknown as Array<Record<string, unknown>>;

describe('GET /api/v1/accounts', () => {
  it("renders every key of Sure's _account partial, in order", async () => {
    world.store.addAccount({
      name: 'Brokerage',
      account_type: 'investment',
      balance: '1500.5',
      cash_balance: '-20',
      subtype: 'brokerage',
      institution_name: 'Vanguard',
      institution_domain: 'vanguard.com',
    });
    const { status, body } = await get('/api/v1/accounts');
    expect(status).toBe(200);
    const account = (body.accounts as Array<Record<string, unknown>>).find((a) => a.name === 'Brokerage')!;
    expect(Object.keys(account)).toEqual([
      'id',
      'name',
      'balance',
      'balance_cents',
      'cash_balance',
      'cash_balance_cents',
      'currency',
      'classification',
      'account_type',
      'subtype',
      'status',
      'institution_name',
      'institution_domain',
      'created_at',
      'updated_at',
    ]);
    expect(account).toMatchObject({
      balance: '$1,500.50',
      balance_cents: 150050,
      cash_balance: '-$20.00',
      cash_balance_cents: -2000,
      classification: 'asset',
      status: 'active',
      created_at: '2026-05-10T12:00:00Z',
    });
    expect(body.pagination).toEqual({ page: 1, per_page: 25, total_count: 3, total_pages: 1 });
  });

  it('draft/active only; include_disabled (Rails boolean cast) lists every status', async () => {
    world.store.addAccount({ name: 'Closed', account_type: 'depository', status: 'disabled' });
    world.store.addAccount({ name: 'Setup', account_type: 'depository', status: 'draft' });
    const names = async (query: string) =>
      ((await get(`/api/v1/accounts${query}`)).body.accounts as Array<{ name: string }>).map((a) => a.name);
    expect(await names('')).toEqual(['Euro Card', 'Everyday Checking', 'Setup']);
    expect(await names('?include_disabled=1')).toEqual([
      'Closed',
      'Euro Card',
      'Everyday Checking',
      'Old',
      'Setup',
    ]);
    expect(await names('?include_disabled=false')).toHaveLength(3);
  });

  it('only accounts the key can access; money localized like amounts', async () => {
    world.store.addApiKey({ key: 'k'.repeat(64), scope: 'read', accountIds: [world.card.id] });
    world.store.accounts.get(world.card.id)!.balance = '1234.5';
    const { body } = await raw('GET', '/api/v1/accounts?locale=de', undefined, {
      'x-api-key': 'k'.repeat(64),
    });
    expect(body.accounts).toEqual([expect.objectContaining({ name: 'Euro Card', balance: '1.234,50 €' })]);
  });

  it('per_page above 100 is 100 here (the base controller), and a page past the end is the last page', async () => {
    expect((await get('/api/v1/accounts?per_page=500')).body.pagination).toMatchObject({ per_page: 100 });
    expect((await get('/api/v1/accounts?per_page=0')).body.pagination).toMatchObject({ per_page: 25 });
    const { body } = await get('/api/v1/accounts?per_page=1&page=9');
    expect(body.pagination).toEqual({ page: 2, per_page: 1, total_count: 2, total_pages: 2 });
    expect((body.accounts as Array<{ name: string }>).map((a) => a.name)).toEqual(['Everyday Checking']);
  });

  it('a read key may list; no key is a 401', async () => {
    expect((await get('/api/v1/accounts', READ_KEY)).status).toBe(200);
    expect((await raw('GET', '/api/v1/accounts.json', undefined, {})).status).toBe(401);
  });
});

describe('GET /api/v1/categories', () => {
  it("renders Sure's _category partial; per_page above 100 falls back to 25", async () => {
    const { body } = await get('/api/v1/categories?per_page=500');
    expect(body.pagination).toEqual({ page: 1, per_page: 25, total_count: 2, total_pages: 1 });
    const groceries = (body.categories as Array<Record<string, unknown>>).find((c) => c.name === 'Groceries');
    expect(groceries).toEqual({
      id: world.groceries.id,
      name: 'Groceries',
      color: '#407706',
      icon: 'shopping-bag',
      parent: null,
      subcategories_count: 0,
      created_at: '2026-05-10T12:00:00Z',
      updated_at: '2026-05-10T12:00:00Z',
    });
  });

  it('parent_id that is not a UUID matches nothing', async () => {
    world.store.addCategory({ name: 'Fruit', parent_id: world.groceries.id });
    expect((await get('/api/v1/categories?parent_id=nope')).body.categories).toEqual([]);
    expect((await get('/api/v1/categories?roots_only=true')).body.pagination).toMatchObject({
      total_count: 2,
    });
  });
});

describe('GET /api/v1/merchants and /api/v1/tags: bare arrays, not paged', () => {
  it('merchants: the family ones, and provider ones only where an accessible transaction uses them', async () => {
    const used = world.store.addMerchant({ name: 'Amazon', type: 'ProviderMerchant' });
    world.store.addMerchant({ name: 'Unused provider', type: 'ProviderMerchant' });
    world.store.addTransaction({
      account_id: world.card.id,
      date: '2026-05-01',
      amount: 3,
      name: 'x',
      merchant_id: used.id,
    });
    const merchants = await list('/api/v1/merchants?page=2&per_page=1');
    expect(merchants.map((m) => m.name)).toEqual(['Amazon', 'Cafe', 'Corner Market']);
    expect(merchants[0]).toEqual({
      id: used.id,
      name: 'Amazon',
      type: 'ProviderMerchant',
      created_at: '2026-05-10T12:00:00.000Z',
      updated_at: '2026-05-10T12:00:00.000Z',
    });
    world.store.addApiKey({ key: 'k'.repeat(64), scope: 'read', accountIds: [world.checking.id] });
    const limited = (await get('/api/v1/merchants', 'k'.repeat(64))).body as unknown as Array<{
      name: string;
    }>;
    expect(limited.map((m) => m.name)).toEqual(['Cafe', 'Corner Market']);
  });

  it('tags: {id, name, color, created_at, updated_at} by name', async () => {
    const tags = await list('/api/v1/tags');
    expect(tags.map((t) => Object.keys(t))).toEqual([
      ['id', 'name', 'color', 'created_at', 'updated_at'],
      ['id', 'name', 'color', 'created_at', 'updated_at'],
    ]);
    expect(tags.map((t) => t.name)).toEqual(['Household', 'Travel']);
  });
});
