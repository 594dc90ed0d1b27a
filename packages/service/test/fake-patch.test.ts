/** The fake service's PATCH semantics, case by case, through the client. */
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidRequestError, ServerError, ValidationError, type Transaction } from '../src/index.js';
import { renderTransaction } from '../src/msw.js';
import { settle } from './helpers.js';
import { clientFor, raw, seedStore, useFakeService } from './fake-fixture.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;
let clock: Date;
const client = clientFor();
const path = (id: string) => `/api/v1/transactions/${id}`;
/** The row as the service would render it now. */
const current = (id = world.market.id) => renderTransaction(world.store, world.store.transactions.get(id)!);

beforeEach(() => {
  clock = new Date('2026-05-10T12:00:00Z');
  world = seedStore(() => clock);
  fake.use(world.store);
});

describe('omitted or null → unchanged, for every member', () => {
  it('a PATCH of notes leaves every other field as it was', async () => {
    const before = current();
    const after = await client.transactions.update(world.market.id, { notes: 'split with flatmate' });
    expect(after.notes).toBe('split with flatmate');
    const { notes: _a, ...restBefore } = before;
    const { notes: _b, ...restAfter } = current();
    expect(restAfter).toEqual(restBefore);
  });

  it('null members leave the fields alone (raw request: the client refuses nulls)', async () => {
    const before = current();
    const nulls = {
      name: null,
      date: null,
      amount: null,
      notes: null,
      category_id: null,
      merchant_id: null,
      nature: null,
      currency: null,
    };
    const response = await raw('PATCH', path(world.market.id), { transaction: nulls });
    expect(response.status).toBe(200);
    expect(current()).toEqual(before);
  });

  it('an object with only unknown members → 200, nothing changes', async () => {
    const before = current();
    const response = await raw('PATCH', path(world.market.id), {
      transaction: {
        foo: 1,
        account_id: world.card.id,
        classification: 'income',
        external_id: 'x',
        source: 'api',
      },
      extra: true,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(before);
  });
});

describe('notes', () => {
  it('"" clears the notes; null does not', async () => {
    await raw('PATCH', path(world.market.id), { transaction: { notes: null } });
    expect(current().notes).toBe('weekly shop');
    const cleared = await client.transactions.update(world.market.id, { notes: '' });
    expect(cleared.notes).toBe('');
  });
});

describe('name and description', () => {
  it('name "" → 422 ValidationError with errors, and the row unchanged', async () => {
    const before = current();
    const error = (await settle(
      client.request({
        method: 'PATCH',
        path: `transactions/${world.market.id}`,
        body: { transaction: { name: '', notes: 'x' } },
      }),
    )) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.code).toBe('validation_failed');
    expect(error.serverMessage).toBe('Transaction could not be updated');
    expect(error.errors).toEqual(["Name can't be blank"]);
    expect(current()).toEqual(before);
  });

  it('the typed update refuses name "" before sending', async () => {
    const sent = world.store.requests.length;
    expect(await settle(client.transactions.update(world.market.id, { name: '' }))).toBeInstanceOf(
      InvalidRequestError,
    );
    expect(world.store.requests.length).toBe(sent);
  });

  it('description is the name when name is absent; name wins when both are sent', async () => {
    expect(
      (await client.transactions.update(world.market.id, { description: 'From description' })).name,
    ).toBe('From description');
    expect(
      (await client.transactions.update(world.market.id, { name: 'Name', description: 'Desc' })).name,
    ).toBe('Name');
  });
});

describe('date', () => {
  it('a date 30+ years back → ValidationError through the client, row unchanged', async () => {
    const error = (await settle(
      client.transactions.update(world.market.id, { date: '1996-05-10' }),
    )) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.errors).toEqual(['Date must be greater than 1996-05-10']);
    expect(current().date).toBe('2026-05-02');
    expect((await client.transactions.update(world.market.id, { date: '1996-05-11' })).date).toBe(
      '1996-05-11',
    );
  });

  it.each(['not-a-date', '2024-02-30', ''])('%j → 422 "Date can\'t be blank"', async (date) => {
    const response = await raw('PATCH', path(world.market.id), { transaction: { date } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual(["Date can't be blank"]);
    expect(current().date).toBe('2026-05-02');
  });

  it('future dates and other parseable forms are accepted', async () => {
    expect((await client.transactions.update(world.market.id, { date: '2027-01-31' })).date).toBe(
      '2027-01-31',
    );
    await raw('PATCH', path(world.market.id), { transaction: { date: '2026/03/04' } });
    expect(current().date).toBe('2026-03-04');
  });
});

describe('amount and nature', () => {
  it('nature income stores −|amount|: "-$50.00", income, signed +5000', async () => {
    const tx = await client.transactions.update(world.market.id, { amount: 50, nature: 'income' });
    expect(tx).toMatchObject({
      amount: '-$50.00',
      amount_cents: 5000,
      signed_amount_cents: 5000,
      classification: 'income',
      amount_decimal: '-50.00',
    });
    expect(world.store.transactions.get(world.market.id)!.amount).toBe('-50');
  });

  it('nature expense stores +|amount| even for a negative amount', async () => {
    const tx = await client.transactions.update(world.salary.id, { amount: -50, nature: 'expense' });
    expect(tx).toMatchObject({ amount: '$50.00', signed_amount_cents: -5000, classification: 'expense' });
  });

  it('nature is case-insensitive, with inflow/outflow aliases', async () => {
    expect(
      (await client.transactions.update(world.market.id, { amount: '7.5', nature: 'INFLOW' })).classification,
    ).toBe('income');
    expect(
      (await client.transactions.update(world.market.id, { amount: '7.5', nature: 'Outflow' }))
        .classification,
    ).toBe('expense');
  });

  it('without nature the sign is the internal one: negative = income', async () => {
    const tx = await client.transactions.update(world.market.id, { amount: '-1000' });
    expect(tx).toMatchObject({ amount: '-$1,000.00', signed_amount_cents: 100000, classification: 'income' });
  });

  it('zero counts as an expense and renders unsigned', async () => {
    const tx = await client.transactions.update(world.market.id, { amount: 0, nature: 'income' });
    expect(tx).toMatchObject({
      amount: '$0.00',
      amount_cents: 0,
      signed_amount_cents: 0,
      classification: 'expense',
    });
  });

  it('rounds half away from zero for display and cents', async () => {
    const tx = await client.transactions.update(world.market.id, { amount: '12.345' });
    expect(tx).toMatchObject({ amount: '$12.35', amount_cents: 1235 });
  });

  it('nature without amount does nothing (raw request: the client refuses it)', async () => {
    const before = current();
    expect((await raw('PATCH', path(world.market.id), { transaction: { nature: 'income' } })).status).toBe(
      200,
    );
    expect(current()).toEqual(before);
  });

  it('strings go through to_f: "abc" → 0, "1,234.56" → 1 (why the client refuses them)', async () => {
    await raw('PATCH', path(world.market.id), { transaction: { amount: 'abc' } });
    expect(current().amount).toBe('$0.00');
    await raw('PATCH', path(world.market.id), { transaction: { amount: '1,234.56' } });
    expect(current().amount).toBe('$1.00');
  });

  it('currency is ignored on update', async () => {
    const tx = await client.transactions.update(world.market.id, { currency: 'EUR' });
    expect(tx.currency).toBe('USD');
    expect(tx.amount).toBe('$42.10');
  });
});

describe('category_id and merchant_id', () => {
  it('a known id is set; null or "" leaves it unchanged (it cannot be cleared)', async () => {
    const tx = await client.transactions.update(world.market.id, {
      category_id: world.dining.id,
      merchant_id: world.cafe.id,
    });
    expect(tx.category?.name).toBe('Dining');
    expect(tx.merchant?.name).toBe('Cafe');
    for (const value of [null, '']) {
      await raw('PATCH', path(world.market.id), { transaction: { category_id: value, merchant_id: value } });
      expect(current().category).toMatchObject({ name: 'Dining' });
      expect(current().merchant).toMatchObject({ name: 'Cafe' });
    }
  });

  it('an unknown UUID → 500 ServerError (not retried), row unchanged', async () => {
    const before = current();
    const sent = world.store.requests.length;
    const error = await settle(
      clientFor({ maxRetries: 2 }).transactions.update(world.market.id, {
        category_id: '00000000-0000-4000-8000-000000000000',
        notes: 'x',
      }),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).code).toBe('internal_server_error');
    expect(world.store.requests.length).toBe(sent + 1);
    expect(current()).toEqual(before);
  });

  it('quirk: a non-UUID string clears the column (raw request: the client refuses it)', async () => {
    await raw('PATCH', path(world.market.id), { transaction: { category_id: 'groceries' } });
    expect(current().category).toBeNull();
  });
});

describe('tag_ids', () => {
  const tagNames = (tx: Transaction | Record<string, unknown>) =>
    (tx.tags as Array<{ name: string }>).map((t) => t.name);

  it('absent → unchanged', async () => {
    expect(tagNames(await client.transactions.update(world.market.id, { name: 'Renamed' }))).toEqual([
      'Household',
    ]);
  });

  it('[] → every tag removed', async () => {
    expect((await client.transactions.update(world.market.id, { tag_ids: [] })).tags).toEqual([]);
  });

  it('a list → replaces the set exactly, in the given order', async () => {
    const tx = await client.transactions.update(world.market.id, {
      tag_ids: [world.travel.id, world.household.id],
    });
    expect(tagNames(tx)).toEqual(['Travel', 'Household']);
    expect(
      tagNames(await client.transactions.update(world.market.id, { tag_ids: [world.travel.id] })),
    ).toEqual(['Travel']);
  });

  it.each([null, [null], 'not-a-list', {}])('%j → every tag removed', async (value) => {
    expect((await raw('PATCH', path(world.market.id), { transaction: { tag_ids: value } })).status).toBe(200);
    expect(current().tags).toEqual([]);
  });

  it('an unknown tag id → 500 and everything rolled back', async () => {
    const before = current();
    const error = await settle(
      client.transactions.update(world.market.id, {
        name: 'Renamed',
        tag_ids: ['00000000-0000-4000-8000-000000000000'],
      }),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect(current()).toEqual(before);
  });
});

describe('missing or empty transaction member → 500 (the service quirk)', () => {
  it.each([
    ['no body', undefined],
    ['{}', {}],
    ['{"transaction":{}}', { transaction: {} }],
    ['{"transaction":null}', { transaction: null }],
    ['{"transaction":"x"}', { transaction: 'x' }],
    ['an unwrapped name', { name: 'x' }],
  ])('%s → 500 internal_server_error via a raw fetch', async (_name, body) => {
    const before = current();
    const response = await raw('PATCH', path(world.market.id), body);
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      error: 'internal_server_error',
      message: 'An unexpected error occurred',
    });
    expect(current()).toEqual(before);
  });

  it('through client.request → ServerError, sent once', async () => {
    const sent = world.store.requests.length;
    const error = await settle(
      clientFor({ maxRetries: 2 }).request({
        method: 'PATCH',
        path: `transactions/${world.market.id}`,
        body: {},
      }),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect(world.store.requests.length).toBe(sent + 1);
  });

  it('params wrapping: an unwrapped category_id IS applied', async () => {
    expect((await raw('PATCH', path(world.market.id), { category_id: world.dining.id })).status).toBe(200);
    expect(current().category).toMatchObject({ name: 'Dining' });
  });

  it('malformed JSON → 400 before anything else', async () => {
    const response = await raw('PATCH', path(world.market.id), '{"transaction":', {});
    expect(response.status).toBe(400);
  });
});
