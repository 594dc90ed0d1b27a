/** POST /api/v1/transactions against the fake, through the client. */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  PermissionDeniedError,
  ServerError,
  ValidationError,
  type TransactionCreate,
} from '../src/index.js';
import { FakeServiceStore } from '../src/msw.js';
import { KEY, READ_KEY, settle } from './helpers.js';
import { clientFor, raw, seedStore, useFakeService } from './fake-fixture.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;
const client = clientFor();
const POST = '/api/v1/transactions';
const count = () => world.store.transactions.size;

beforeEach(() => {
  world = seedStore();
  fake.use(world.store);
});

const body = (overrides: Partial<TransactionCreate> = {}): TransactionCreate => ({
  account_id: world.checking.id,
  name: 'New Transaction',
  amount: 25,
  date: '2026-05-09',
  currency: 'USD',
  nature: 'expense',
  ...overrides,
});

describe('201: a new row', () => {
  it('echoes name and account, adds one row, renders every key', async () => {
    const before = count();
    const { created, transaction } = await client.transactions.create(body());
    expect(created).toBe(true);
    expect(transaction).toMatchObject({
      name: 'New Transaction',
      account: { id: world.checking.id, name: 'Everyday Checking', account_type: 'depository' },
      date: '2026-05-09',
      amount: '$25.00',
      amount_cents: 2500,
      signed_amount_cents: -2500,
      classification: 'expense',
      currency: 'USD',
      notes: null,
      external_id: null,
      source: null,
      category: null,
      tags: [],
      created_at: '2026-05-10T12:00:00Z',
      updated_at: '2026-05-10T12:00:00Z',
    });
    expect(count()).toBe(before + 1);
    expect(world.store.transactions.get(transaction.id)).toBeDefined();
    expect((await client.transactions.get(transaction.id)).name).toBe('New Transaction');
  });

  it('nature sets the sign (income stores −|amount|); a string amount is exact', async () => {
    const { transaction } = await client.transactions.create(body({ amount: '-1000.5', nature: 'Inflow' }));
    expect(transaction).toMatchObject({
      amount: '-$1,000.50',
      classification: 'income',
      amount_decimal: '-1000.50',
    });
    const { transaction: plain } = await client.transactions.create(body({ amount: -3, nature: undefined }));
    expect(plain.classification).toBe('income');
  });

  it('an amount whose cents pass 2^53 − 1 is created and read back, its cents null as not exact', async () => {
    // The service stores it (under 10^15); JSON cannot carry its 9,999,999,999,999,999 cents exactly.
    // Refusing the answer said "failed" of a stored row, and a retry would have made a duplicate.
    const before = count();
    const { created, transaction } = await client.transactions.create(body({ amount: '99999999999999.99' }));
    expect(created).toBe(true);
    expect(transaction).toMatchObject({
      amount_cents: null,
      signed_amount_cents: null,
      amount_decimal: null,
    });
    expect(count()).toBe(before + 1);
    const listed = await client.transactions.list().toArray({ limit: 1_000 });
    expect(listed.find((t) => t.id === transaction.id)).toMatchObject({ amount_cents: null });
    const exact = await client.transactions.create(body({ amount: '90071992547409.91' }));
    expect(exact.transaction).toMatchObject({
      amount_cents: 9007199254740991,
      amount_decimal: '90071992547409.91',
    });
  });

  it('currency defaults to the family currency, not the account currency', async () => {
    const { transaction } = await client.transactions.create(
      body({ account_id: world.card.id, currency: undefined }),
    );
    expect(transaction.currency).toBe('USD');
    const store = new FakeServiceStore(
      { apiKeys: [{ key: KEY, scope: 'read_write' }] },
      { familyCurrency: 'GBP' },
    );
    const account = store.addAccount({ name: 'A', account_type: 'depository', currency: 'EUR' });
    fake.use(store);
    const { transaction: gbp } = await client.transactions.create(
      body({ account_id: account.id, currency: undefined }),
    );
    expect(gbp).toMatchObject({ currency: 'GBP', amount: '£25.00' });
  });

  it('sets category, merchant, tags and notes, and locks what it saved', async () => {
    const { transaction } = await client.transactions.create(
      body({
        category_id: world.groceries.id,
        merchant_id: world.corner.id,
        tag_ids: [world.household.id, world.travel.id],
        notes: 'with friends',
      }),
    );
    expect(transaction.category?.name).toBe('Groceries');
    expect(transaction.merchant?.name).toBe('Corner Market');
    expect(transaction.tags.map((t) => t.name)).toEqual(['Household', 'Travel']);
    expect(transaction.notes).toBe('with friends');
    expect(world.store.transactions.get(transaction.id)!.locked_attributes.sort()).toEqual(
      ['amount', 'category_id', 'currency', 'date', 'merchant_id', 'name', 'notes', 'tag_ids'].sort(),
    );
  });

  it('external_id + source are echoed; external_id alone gets source "api"', async () => {
    const keyed = await client.transactions.create(body({ external_id: 'ext-1', source: 'bank_import' }));
    expect(keyed.transaction).toMatchObject({ external_id: 'ext-1', source: 'bank_import' });
    const defaulted = await client.transactions.create(body({ external_id: 'ext-2' }));
    expect(defaulted.transaction).toMatchObject({ external_id: 'ext-2', source: 'api' });
  });
});

describe('idempotency', () => {
  it('a repeat answers 200 with the same id and the ORIGINAL name; nothing is added', async () => {
    const first = await client.transactions.create(body({ external_id: 'import-2', source: 'imp' }));
    const before = count();
    const repeat = await client.transactions.create(
      body({ external_id: 'import-2', source: 'imp', name: 'Changed Name', amount: 99 }),
    );
    expect(repeat.created).toBe(false);
    expect(repeat.transaction.id).toBe(first.transaction.id);
    expect(repeat.transaction.name).toBe('New Transaction');
    expect(repeat.transaction.amount_cents).toBe(2500);
    expect(count()).toBe(before);
    expect(world.store.requests.map((r) => r.status)).toEqual([201, 200]);
  });

  it('the default source "api" is part of the key: external_id alone matches source "api"', async () => {
    const first = await client.transactions.create(body({ external_id: 'k' }));
    const again = await client.transactions.create(body({ external_id: 'k', source: 'api' }));
    expect(again).toMatchObject({ created: false, transaction: { id: first.transaction.id } });
  });

  it('is scoped per account and per source: either one differing creates a new row', async () => {
    const first = await client.transactions.create(body({ external_id: 'same', source: 'a' }));
    const otherAccount = await client.transactions.create(
      body({ external_id: 'same', source: 'a', account_id: world.card.id }),
    );
    const otherSource = await client.transactions.create(body({ external_id: 'same', source: 'b' }));
    expect([first.created, otherAccount.created, otherSource.created]).toEqual([true, true, true]);
    expect(new Set([first, otherAccount, otherSource].map((r) => r.transaction.id)).size).toBe(3);
  });

  it("matches rows a provider sync made (the key is the row's external_id and source)", async () => {
    const repeat = await client.transactions.create(
      body({ external_id: 'lunchflow_tx_9981', source: 'lunchflow' }),
    );
    expect(repeat).toMatchObject({ created: false, transaction: { id: world.market.id } });
  });

  it('the repeat wins over validation: an invalid body for an existing key still answers 200', async () => {
    const first = await client.transactions.create(body({ external_id: 'v' }));
    const response = await raw('POST', POST, {
      transaction: { account_id: world.checking.id, external_id: 'v', name: '', date: 'not-a-date' },
    });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(first.transaction.id);
  });

  it('a deleted row no longer holds its key: the same key creates a new row', async () => {
    const first = await client.transactions.create(body({ external_id: 'gone' }));
    await client.transactions.delete(first.transaction.id);
    const again = await client.transactions.create(body({ external_id: 'gone' }));
    expect(again.created).toBe(true);
    expect(again.transaction.id).not.toBe(first.transaction.id);
  });
});

describe('422, with nothing created', () => {
  const expect422 = async (payload: unknown, message: string, errors: string[] | RegExp) => {
    const before = count();
    const response = await raw('POST', POST, payload);
    expect(response.status).toBe(422);
    expect(response.body.error).toBe('validation_failed');
    expect(response.body.message).toBe(message);
    if (Array.isArray(errors)) expect(response.body.errors).toEqual(errors);
    else expect((response.body.errors as string[]).some((e) => errors.test(e))).toBe(true);
    expect(count()).toBe(before);
  };

  it('missing account_id (only a name, or an empty transaction, or no body)', async () => {
    const required = ['Account ID is required'];
    await expect422({ transaction: { name: 'Only name' } }, 'Account ID is required', required);
    await expect422({ transaction: {} }, 'Account ID is required', required);
    await expect422({ transaction: { account_id: '  ', name: 'x' } }, 'Account ID is required', required);
    // An unwrapped account_id is not a Transaction column, so params wrapping never moves it.
    await expect422({ account_id: world.checking.id, name: 'x' }, 'Account ID is required', required);
    await expect422(undefined, 'Account ID is required', required);
  });

  it('source without external_id', async () => {
    await expect422(
      { transaction: { ...body(), source: 'external_import' } },
      'Source requires external_id',
      ['Source requires external_id'],
    );
  });

  it('{account_id} only: date and name are blank', async () => {
    await expect422({ transaction: { account_id: world.checking.id } }, 'Transaction could not be created', [
      "Date can't be blank",
      "Name can't be blank",
    ]);
  });

  it('a blank name, a bad date, a date 30+ years back', async () => {
    const failed = 'Transaction could not be created';
    await expect422({ transaction: { ...body(), name: '' } }, failed, ["Name can't be blank"]);
    await expect422({ transaction: { ...body(), date: 'not-a-date' } }, failed, /^Date/);
    await expect422({ transaction: { ...body(), date: '2024-02-30' } }, failed, /^Date/);
    const error = (await settle(client.transactions.create(body({ date: '1996-05-10' })))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.errors).toEqual(['Date must be greater than 1996-05-10']);
  });

  it('an unknown account → 422 (deliberately: the service answers 500 here)', async () => {
    const error = (await settle(
      client.transactions.create(body({ account_id: '00000000-0000-4000-8000-000000000000' })),
    )) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.errors).toEqual(['Account not found']);
    await expect422({ transaction: { ...body(), account_id: '999999' } }, 'Account not found', [
      'Account not found',
    ]);
  });

  it("another user's account (one the key cannot access) is unknown too", async () => {
    world.store.apiKeys.get(KEY)!.accountIds = [world.card.id];
    expect(await settle(client.transactions.create(body()))).toBeInstanceOf(ValidationError);
    expect((await client.transactions.create(body({ account_id: world.card.id }))).created).toBe(true);
  });
});

describe('the service quirks the fake keeps', () => {
  it('a missing amount is stored as 0 (to_f of nil); "abc" too', async () => {
    const { amount: _a, ...rest } = body();
    const response = await raw('POST', POST, { transaction: rest });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ amount: '$0.00', amount_cents: 0, classification: 'expense' });
    expect((await raw('POST', POST, { transaction: { ...rest, amount: 'abc' } })).body.amount_cents).toBe(0);
  });

  it('an unknown tag, category or merchant → 500, and nothing is created', async () => {
    const before = count();
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const extra of [{ tag_ids: [unknown] }, { category_id: unknown }, { merchant_id: unknown }]) {
      expect(await settle(client.transactions.create(body(extra)))).toBeInstanceOf(ServerError);
    }
    expect((await raw('POST', POST, { transaction: { ...body(), amount: true } })).status).toBe(500);
    expect((await raw('POST', POST, { transaction: 'x' })).status).toBe(500);
    expect(count()).toBe(before);
  });
});

describe('auth and scope come first', () => {
  it('a read-only key → 403 before anything else, even for an invalid body', async () => {
    const before = count();
    const readOnly = clientFor({ apiKey: READ_KEY });
    const error = (await settle(readOnly.transactions.create(body()))) as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.code).toBe('insufficient_scope');
    const response = await raw('POST', POST, { transaction: {} }, { 'x-api-key': READ_KEY });
    expect(response.status).toBe(403);
    expect(count()).toBe(before);
  });

  it('no key → 401', async () => {
    expect((await raw('POST', POST, { transaction: body() }, {})).status).toBe(401);
    const bad = clientFor({ apiKey: 'invalid-key' });
    expect(await settle(bad.transactions.create(body()))).toBeInstanceOf(AuthenticationError);
  });
});
