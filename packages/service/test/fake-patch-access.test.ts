/** The fake service's PATCH: auth, scope and lookup order, split rows, side effects. */
import { beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, NotFoundError, PermissionDeniedError, ValidationError } from '../src/index.js';
import { renderTransaction } from '../src/msw.js';
import { BASE, KEY, READ_KEY, settle } from './helpers.js';
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

describe('auth, scope and lookup order', () => {
  it('no key or a bad key → 401 AuthenticationError', async () => {
    expect((await raw('PATCH', path(world.market.id), { transaction: { notes: 'x' } }, {})).status).toBe(401);
    const bad = clientFor({ apiKey: 'invalid-key' });
    expect(await settle(bad.transactions.update(world.market.id, { notes: 'x' }))).toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('a read-only key → 403 insufficient_scope, checked before the 404 lookup', async () => {
    const readOnly = clientFor({ apiKey: READ_KEY });
    for (const id of [world.market.id, '00000000-0000-4000-8000-000000000000', '999999']) {
      const error = (await settle(readOnly.transactions.update(id, { notes: 'x' }))) as PermissionDeniedError;
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.code).toBe('insufficient_scope');
      expect(error.serverMessage).toContain('write');
    }
    expect(current().notes).toBe('weekly shop');
    expect((await readOnly.transactions.get(world.market.id)).id).toBe(world.market.id);
  });

  it.each(['00000000-0000-4000-8000-000000000000', '999999'])(
    'unknown or non-UUID id %s → 404',
    async (id) => {
      const error = (await settle(client.transactions.update(id, { notes: 'x' }))) as NotFoundError;
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.code).toBe('not_found');
      expect(error.serverMessage).toBe('Transaction not found');
    },
  );

  it('PUT behaves as PATCH, and the .json suffix is optional', async () => {
    expect(
      (await raw('PUT', `${path(world.market.id)}.json`, { transaction: { name: 'Via PUT' } })).status,
    ).toBe(200);
    expect(current().name).toBe('Via PUT');
  });
});

describe('split transactions', () => {
  it('a split child refuses every edit; a split parent refuses amount/date/nature only', async () => {
    world.store.transactions.get(world.salary.id)!.split = 'child';
    const child = (await settle(
      client.transactions.update(world.salary.id, { notes: 'x' }),
    )) as ValidationError;
    expect(child).toBeInstanceOf(ValidationError);
    expect(child.serverMessage).toContain('Split child');
    world.store.transactions.get(world.market.id)!.split = 'parent';
    expect(await settle(client.transactions.update(world.market.id, { amount: 1 }))).toBeInstanceOf(
      ValidationError,
    );
    expect((await client.transactions.update(world.market.id, { name: 'Parent' })).name).toBe('Parent');
  });
});

describe('side effects', () => {
  it('updated_at moves only with category, merchant or tag writes; locks record what changed', async () => {
    clock = new Date('2026-05-11T08:00:00Z');
    const entryOnly = await client.transactions.update(world.market.id, { name: 'New name', amount: 10 });
    expect(entryOnly.updated_at).toBe('2026-05-04T19:01:55Z');
    const categorized = await client.transactions.update(world.market.id, { category_id: world.dining.id });
    expect(categorized.updated_at).toBe('2026-05-11T08:00:00Z');
    expect(world.store.transactions.get(world.market.id)!.locked_attributes.sort()).toEqual([
      'amount',
      'category_id',
      'name',
    ]);
  });

  it('a category and tags set in one update are both locked: the client sends the tags in a PATCH of their own', async () => {
    // The service does not lock a category or merchant changed in the same PATCH as tags, so a bank
    // sync would overwrite the category the user just set.
    const before = world.store.requests.length;
    const updated = await client.transactions.update(world.salary.id, {
      category_id: world.dining.id,
      merchant_id: world.cafe.id,
      notes: 'paid back',
      tag_ids: [world.travel.id, world.household.id],
    });
    expect(world.store.transactions.get(world.salary.id)!.locked_attributes.sort()).toEqual([
      'category_id',
      'merchant_id',
      'notes',
      'tag_ids',
    ]);
    expect(world.store.requests.slice(before).map((r) => r.body)).toEqual([
      { transaction: { category_id: world.dining.id, merchant_id: world.cafe.id, notes: 'paid back' } },
      { transaction: { tag_ids: [world.travel.id, world.household.id] } },
    ]);
    // The answer is the row after both.
    expect(updated.category?.id).toBe(world.dining.id);
    expect(updated.merchant?.id).toBe(world.cafe.id);
    expect(updated.tags.map((t) => t.id)).toEqual([world.travel.id, world.household.id]);
    expect(updated.notes).toBe('paid back');
  });

  it('tags alone go in one PATCH; tags cleared beside a category in two, so the category is locked', async () => {
    const before = world.store.requests.length;
    await client.transactions.update(world.salary.id, { tag_ids: [world.travel.id], notes: 'x' });
    expect(world.store.requests.length - before).toBe(1);
    await client.transactions.update(world.salary.id, { category_id: world.dining.id, tag_ids: [] });
    expect(world.store.requests.slice(before + 1).map((r) => r.body)).toEqual([
      { transaction: { category_id: world.dining.id } },
      { transaction: { tag_ids: [] } },
    ]);
    expect(world.store.transactions.get(world.salary.id)!.locked_attributes).toContain('category_id');
    expect(world.store.transactions.get(world.salary.id)!.tag_ids).toEqual([]);
  });

  it('the fake, as the service, locks no category sent in one PATCH with tag_ids, an empty list too', async () => {
    const response = await raw('PATCH', `/api/v1/transactions/${world.market.id}`, {
      transaction: { category_id: world.dining.id, tag_ids: [] },
    });
    expect(response.status).toBe(200);
    const stored = world.store.transactions.get(world.market.id)!;
    expect(stored.category_id).toBe(world.dining.id);
    expect(stored.locked_attributes).not.toContain('category_id');
  });

  it('the fake records the bodies it received, never the key', async () => {
    await client.transactions.update(world.market.id, { tag_ids: [] });
    const last = world.store.requests.at(-1)!;
    expect(last).toMatchObject({ method: 'PATCH', status: 200, body: { transaction: { tag_ids: [] } } });
    expect(JSON.stringify(world.store.requests)).not.toContain(KEY);
    expect(last.path).toBe(path(world.market.id));
    expect(BASE).toContain('service.test');
  });
});
