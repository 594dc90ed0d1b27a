/**
 * Ids and filters as the service reads them: an id in any case (PostgreSQL's uuid), a blank filter
 * skipped (Ruby's `present?`), `account_id` with `account_ids[]` both applied, a blank category or
 * merchant on a write treated as not sent, and an id that is no UUID a 404 whatever its length.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';

interface Row {
  id: string;
  name: string;
  notes: string | null;
  account: { id: string };
  category: { id: string } | null;
  tags: Array<{ id: string }>;
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`ids and filters as the service reads them ${backend.title}`, () => {
    let t: TestServer;
    let row: Row;
    let accounts: Array<{ id: string }>;
    const get = (path: string) => t.request(t.keys.alice, 'GET', path);
    const count = async (query: string) => {
      const answer = await get(`/api/v1/transactions?per_page=1&${query}`);
      expect(answer.status, query).toBe(200);
      return answer.body.pagination.total_count as number;
    };

    beforeAll(async () => {
      t = await startTestServer(backend);
      row = (await get('/api/v1/transactions?per_page=1')).body.transactions[0];
      accounts = (await get('/api/v1/accounts')).body.accounts;
    });
    afterAll(async () => {
      await t?.close();
    });

    it('reads, updates, deletes and restores a transaction named by its id in upper case', async () => {
      const upper = row.id.toUpperCase();
      const shown = await get(`/api/v1/transactions/${upper}`);
      expect(shown).toMatchObject({ status: 200, body: { id: row.id } });
      const patched = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${upper}`, {
        transaction: { notes: 'upper-case id' },
      });
      expect(patched).toMatchObject({ status: 200, body: { id: row.id, notes: 'upper-case id' } });
      expect((await get(`/api/v1/transactions/${row.id}`)).body.notes).toBe('upper-case id');
      expect((await t.request(t.keys.alice, 'DELETE', `/api/v1/transactions/${upper}`)).status).toBe(200);
      expect((await get(`/api/v1/transactions/${row.id}`)).status).toBe(404);
      const restored = await t.request(t.keys.alice, 'POST', `/api/v1/transactions/${upper}/restore`);
      expect(restored).toMatchObject({ status: 200, body: { id: row.id } });
    });

    it('takes ids in filters and in a write’s references in any case', async () => {
      const own = await count(`account_id=${row.account.id}`);
      expect(own).toBeGreaterThan(0);
      expect(await count(`account_id=${row.account.id.toUpperCase()}`)).toBe(own);
      expect(await count(`account_ids[]=${row.account.id.toUpperCase()}`)).toBe(own);
      const category = (await t.request(t.keys.alice, 'GET', '/api/v1/categories')).body.categories[0];
      const tag = await t.request(t.keys.alice, 'POST', '/api/v1/tags', { tag: { name: 'Upper' } });
      expect(tag.status).toBe(201);
      const patched = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${row.id}`, {
        transaction: { category_id: category.id.toUpperCase(), tag_ids: [tag.body.id.toUpperCase()] },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.category.id).toBe(category.id);
      expect(patched.body.tags.map((x: { id: string }) => x.id)).toEqual([tag.body.id]);
      expect(await count(`category_id=${category.id.toUpperCase()}`)).toBeGreaterThan(0);
      expect(await count(`tag_ids[]=${tag.body.id.toUpperCase()}`)).toBe(1);
      const created = await t.request(t.keys.alice, 'POST', '/api/v1/transactions', {
        transaction: {
          account_id: row.account.id.toUpperCase(),
          name: 'Upper-case account',
          amount: '1.50',
          date: '2026-01-05',
          currency: 'GBP',
          category_id: category.id.toUpperCase(),
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ account: { id: row.account.id }, category: { id: category.id } });
    });

    it('applies account_id and account_ids[] both: a row must match the two', async () => {
      const [a, b] = accounts;
      const inA = await count(`account_id=${a!.id}`);
      expect(inA).toBeGreaterThan(0);
      expect(await count(`account_id=${a!.id}&account_ids[]=${a!.id}&account_ids[]=${b!.id}`)).toBe(inA);
      expect(await count(`account_id=${a!.id}&account_ids[]=${b!.id}`)).toBe(0);
      expect(await count(`category_id=${randomish()}&category_ids[]=${randomish()}`)).toBe(0);
    });

    it('skips a filter sent blank, as the service skips a value that is not present', async () => {
      const all = await count('');
      expect(all).toBeGreaterThan(1);
      for (const query of [
        'account_id=',
        'account_id=%20',
        'account_ids=',
        'search=',
        'search=%20%20',
        'start_date=',
        'min_amount=',
        'type=',
        'page=&per_page=',
      ])
        expect(await count(query), query).toBe(all);
      // In a bracketed list Rails hands the service `[""]`, which it filters on: nothing matches.
      const [a] = accounts;
      expect(await count('account_ids[]=')).toBe(0);
      expect(await count(`account_ids[]=&account_ids[]=${a!.id}`)).toBe(await count(`account_id=${a!.id}`));
    });

    it('answers 400 to a query value that is not percent-encoded UTF-8, as the service', async () => {
      // Before, each was searched for as written: `%FF` matched a row named `ab%FFcd`.
      for (const query of ['search=%FF', 'search=%ED%A0%80', 'search=%', 'account_id=%FF', '%FF=1']) {
        const answer = await get(`/api/v1/transactions?${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.body.message, query).toMatch(/is not percent-encoded UTF-8/);
      }
      // On a route without query parameters too, and before the key is looked at (as Rack does).
      expect((await get(`/api/v1/transactions/${row.id}?x=%FF`)).status).toBe(400);
      // With the headers of every /api answer.
      const refused = await fetch(`${t.server.url}/api/v1/accounts?x=%FF`, {
        headers: { 'X-Api-Key': t.keys.alice },
      });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await t.request('', 'GET', '/api/v1/transactions?search=%FF')).status).toBe(400);
      // Encoded text, a literal `%25` and a `+` for a space are fine.
      expect(await count('search=%25FF')).toBe(0);
      expect(await count('search=caf%C3%A9+latte')).toBe(0);
    });

    it('treats a blank category or merchant on a PATCH as not sent, and changes nothing else', async () => {
      const before = (await get(`/api/v1/transactions/${row.id}`)).body;
      const patched = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${row.id}`, {
        transaction: { category_id: '   ', merchant_id: ' ', amount: '  ' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual(before);
    });

    it('answers 404, not 400, for an id that is no UUID, however long', async () => {
      for (const id of ['a'.repeat(65), 'x'.repeat(2_000), 'not-an-id']) {
        expect((await get(`/api/v1/transactions/${id}`)).status).toBe(404);
        expect((await t.request(t.keys.alice, 'DELETE', `/api/v1/transactions/${id}`)).status).toBe(404);
        const patched = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${id}`, {
          transaction: { notes: 'x' },
        });
        expect(patched.status).toBe(404);
      }
    });

    it('documents a 503 on every /api/v1 operation that needs a key (the request timeout covers reads)', async () => {
      const doc = (await t.request(undefined, 'GET', '/api/v1/openapi.json')).body;
      const missing: string[] = [];
      for (const [path, operations] of Object.entries(doc.paths as Record<string, object>))
        for (const [method, operation] of Object.entries(operations as Record<string, any>))
          if (operation.security?.length && !('503' in operation.responses))
            missing.push(`${method.toUpperCase()} ${path}`);
      expect(missing).toEqual([]);
    });
  });
}

/** A well-formed id no row has. */
function randomish() {
  return crypto.randomUUID();
}
