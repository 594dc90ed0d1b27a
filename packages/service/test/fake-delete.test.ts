/**
 * DELETE /api/v1/transactions/{id} against the fake, and finsync's
 * extensions served by the reference server: restore and the deleted list.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
  type Transaction,
} from '../src/index.js';
import { KEY, READ_KEY, settle } from './helpers.js';
import { clientFor, raw, seedStore, useFakeService } from './fake-fixture.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;
const client = clientFor();
const readOnly = clientFor({ apiKey: READ_KEY });
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const liveIds = async () => (await client.transactions.list().toArray({ limit: 100 })).map((t) => t.id);
const deletedIds = async () =>
  (await client.transactions.listDeleted().toArray({ limit: 100 })).map((t) => t.id);

beforeEach(() => {
  world = seedStore();
  fake.use(world.store);
});

describe('DELETE', () => {
  it('200 {"message":"Transaction deleted successfully"}; the row is gone', async () => {
    const before = world.store.transactions.size;
    expect(await client.transactions.delete(world.market.id)).toEqual({
      message: 'Transaction deleted successfully',
    });
    expect(world.store.transactions.size).toBe(before - 1);
    expect(await liveIds()).not.toContain(world.market.id);
    expect(await settle(client.transactions.get(world.market.id))).toBeInstanceOf(NotFoundError);
    expect(await settle(client.transactions.update(world.market.id, { notes: 'x' }))).toBeInstanceOf(
      NotFoundError,
    );
  });

  it('a second DELETE of the same id → 404 (what a blind retry would see)', async () => {
    await client.transactions.delete(world.salary.id);
    const error = (await settle(client.transactions.delete(world.salary.id))) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.serverMessage).toBe('Transaction not found');
  });

  it.each([UNKNOWN, '999999'])('unknown or non-UUID id %s → 404, nothing deleted', async (id) => {
    const before = world.store.transactions.size;
    expect(await settle(client.transactions.delete(id))).toBeInstanceOf(NotFoundError);
    expect(world.store.transactions.size).toBe(before);
  });

  it("another user's transaction (an account the key cannot access) → 404", async () => {
    world.store.apiKeys.get(KEY)!.accountIds = [world.card.id];
    expect(await settle(client.transactions.delete(world.market.id))).toBeInstanceOf(NotFoundError);
    expect(world.store.transactions.has(world.market.id)).toBe(true);
    expect((await client.transactions.delete(world.coffee.id)).message).toContain('deleted');
  });

  it('a read-only key → 403, checked before the 404', async () => {
    for (const id of [world.market.id, UNKNOWN]) {
      const error = (await settle(readOnly.transactions.delete(id))) as PermissionDeniedError;
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.code).toBe('insufficient_scope');
    }
    expect(world.store.transactions.has(world.market.id)).toBe(true);
  });

  it('no key → 401', async () => {
    expect((await raw('DELETE', `/api/v1/transactions/${world.market.id}`, undefined, {})).status).toBe(401);
    const bad = clientFor({ apiKey: 'invalid-key' });
    expect(await settle(bad.transactions.delete(world.market.id))).toBeInstanceOf(AuthenticationError);
  });

  it('a split child → 422; the row stays', async () => {
    world.store.transactions.get(world.salary.id)!.split = 'child';
    const error = (await settle(client.transactions.delete(world.salary.id))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.serverMessage).toBe('Split child transactions cannot be deleted individually.');
    expect(world.store.transactions.has(world.salary.id)).toBe(true);
  });

  it('the transfer it was a side of goes with it', async () => {
    const other = world.store.addTransaction({
      account_id: world.card.id,
      date: '2026-05-01',
      amount: -1000,
      name: 'In',
    });
    world.store.addTransfer({ inflow_transaction_id: other.id, outflow_transaction_id: world.salary.id });
    expect((await client.transactions.get(other.id)).transfer).not.toBeNull();
    await client.transactions.delete(world.salary.id);
    expect((await client.transactions.get(other.id)).transfer).toBeNull();
  });

  it('.json suffix works; an empty id is refused by the client', async () => {
    expect((await raw('DELETE', `/api/v1/transactions/${world.market.id}.json`)).status).toBe(200);
    expect(await settle(client.transactions.delete(' '))).toBeInstanceOf(InvalidRequestError);
  });
});

describe('restore (finsync extension)', () => {
  it('brings a deleted row back exactly as it was: 200 with the full transaction', async () => {
    const before = await client.transactions.get(world.market.id);
    await client.transactions.delete(world.market.id);
    const restored = await client.transactions.restore(world.market.id);
    expect(restored).toEqual(before);
    expect(await liveIds()).toContain(world.market.id);
    expect(await deletedIds()).toEqual([]);
  });

  it("404 for a live row, an unknown id, a second restore, or another user's row", async () => {
    expect(await settle(client.transactions.restore(world.market.id))).toBeInstanceOf(NotFoundError);
    expect(await settle(client.transactions.restore(UNKNOWN))).toBeInstanceOf(NotFoundError);
    expect(await settle(client.transactions.restore('999999'))).toBeInstanceOf(NotFoundError);
    await client.transactions.delete(world.market.id);
    await client.transactions.restore(world.market.id);
    expect(await settle(client.transactions.restore(world.market.id))).toBeInstanceOf(NotFoundError);
    await client.transactions.delete(world.market.id);
    world.store.apiKeys.get(KEY)!.accountIds = [world.card.id];
    expect(await settle(client.transactions.restore(world.market.id))).toBeInstanceOf(NotFoundError);
    expect(world.store.deletedTransactions.has(world.market.id)).toBe(true);
  });

  it('a read-only key → 403, before the lookup', async () => {
    await client.transactions.delete(world.market.id);
    for (const id of [world.market.id, UNKNOWN]) {
      expect(await settle(readOnly.transactions.restore(id))).toBeInstanceOf(PermissionDeniedError);
    }
    expect(world.store.deletedTransactions.has(world.market.id)).toBe(true);
  });

  it('422 when a new row took its idempotency key meanwhile', async () => {
    await client.transactions.delete(world.market.id);
    await client.transactions.create({
      account_id: world.checking.id,
      name: 'Re-imported',
      date: '2026-05-02',
      amount: '42.10',
      external_id: 'lunchflow_tx_9981',
      source: 'lunchflow',
    });
    const error = (await settle(client.transactions.restore(world.market.id))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.errors).toEqual(['External has already been taken']);
    expect(world.store.deletedTransactions.has(world.market.id)).toBe(true);
  });
});

describe('a row the API created, deleted', () => {
  it('is destroyed, as the reference server destroys it: not listed as deleted, 404 on restore', async () => {
    const made = await client.transactions.create({
      account_id: world.checking.id,
      name: 'Coffee',
      date: '2026-05-02',
      amount: '4.50',
      external_id: 'app-1',
    });
    await client.transactions.delete(made.transaction.id);
    expect(await deletedIds()).toEqual([]);
    expect(await settle(client.transactions.restore(made.transaction.id))).toBeInstanceOf(NotFoundError);
    // Its idempotency key is free again: the same create makes a new row.
    const again = await client.transactions.create({
      account_id: world.checking.id,
      name: 'Coffee',
      date: '2026-05-02',
      amount: '4.50',
      external_id: 'app-1',
    });
    expect(again.created).toBe(true);
    expect(again.transaction.id).not.toBe(made.transaction.id);
  });
});

describe('listDeleted (finsync extension)', () => {
  it('pages the deleted rows, most recently deleted first, in the index envelope', async () => {
    for (const tx of [world.salary, world.market, world.coffee]) await client.transactions.delete(tx.id);
    expect(await deletedIds()).toEqual([world.coffee.id, world.market.id, world.salary.id]);
    const pages: Array<{ ids: string[]; pagination: unknown }> = [];
    for await (const page of client.transactions.listDeleted({ per_page: 2 }).pages()) {
      pages.push({ ids: page.transactions.map((t: Transaction) => t.id), pagination: page.pagination });
    }
    expect(pages).toEqual([
      {
        ids: [world.coffee.id, world.market.id],
        pagination: { page: 1, per_page: 2, total_count: 3, total_pages: 2 },
      },
      { ids: [world.salary.id], pagination: { page: 2, per_page: 2, total_count: 3, total_pages: 2 } },
    ]);
    const second = await client.transactions.listDeleted({ page: 2, per_page: 2 }).firstPage();
    expect(second.transactions.map((t) => t.id)).toEqual([world.salary.id]);
  });

  it('renders full rows (as show does) and is empty at first', async () => {
    expect(await deletedIds()).toEqual([]);
    const shown = await client.transactions.get(world.market.id);
    await client.transactions.delete(world.market.id);
    const [row] = await client.transactions.listDeleted().toArray({ limit: 10 });
    expect(row).toEqual(shown);
  });

  it("works with a read-only key; another user's deleted rows are left out", async () => {
    await client.transactions.delete(world.market.id);
    await client.transactions.delete(world.coffee.id);
    world.store.apiKeys.get(READ_KEY)!.accountIds = [world.card.id];
    const ids = (await readOnly.transactions.listDeleted().toArray({ limit: 10 })).map((t) => t.id);
    expect(ids).toEqual([world.coffee.id]);
  });

  it('the client refuses filters the route does not take, and bad page sizes', () => {
    expect(() => client.transactions.listDeleted({ per_page: 0 })).toThrow(InvalidRequestError);
    expect(() => client.transactions.listDeleted({ page: 1.5 })).toThrow(/page/);
    expect(() =>
      client.transactions.listDeleted({ account_id: world.checking.id } as { page?: number }),
    ).toThrow(/account_id/);
    expect(world.store.requests).toEqual([]);
  });

  it('answers a page past the end with the last page, and reads page and per_page as the reference server', async () => {
    for (const tx of [world.salary, world.market, world.coffee]) await client.transactions.delete(tx.id);
    const past = await raw('GET', '/api/v1/transactions/deleted?page=5&per_page=2');
    expect(past.status).toBe(200);
    expect(past.body.pagination).toEqual({ page: 2, per_page: 2, total_count: 3, total_pages: 2 });
    for (const query of ['per_page=101', 'per_page=0&page=0', 'per_page=-1&page=-1']) {
      const answer = await raw('GET', `/api/v1/transactions/deleted?${query}`);
      expect(answer.status, query).toBe(200);
      expect(answer.body.pagination, query).toMatchObject({ page: 1, per_page: 25 });
    }
    expect(await raw('GET', '/api/v1/transactions/deleted?per_page=abc')).toMatchObject({
      status: 400,
      body: { error: 'bad_request', message: 'per_page must be a whole number' },
    });
    expect((await raw('GET', '/api/v1/transactions/deleted?page=100001')).status).toBe(400);
    expect((await raw('GET', '/api/v1/transactions/deleted?page=&per_page=')).status).toBe(200);
  });

  it('GET /transactions/deleted is the list, not a show of id "deleted"', async () => {
    const response = await raw('GET', '/api/v1/transactions/deleted');
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ page: 1, per_page: 25, total_count: 0, total_pages: 1 });
    expect((await raw('DELETE', '/api/v1/transactions/deleted')).status).toBe(404);
  });
});
