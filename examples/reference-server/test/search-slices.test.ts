/**
 * A search on SQLite is read in slices on a snapshot of its own (store/sqlite-search.ts): it answers
 * what one statement would, other requests are answered while it reads, and a search its request
 * timeout has answered stops.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceSql } from '../src/store/sqlite-search.js';
import type { SqliteAppStore } from '../src/store/sqlite.js';
import { BACKENDS, queryPlan, startTestServer, type TestServer } from './helpers.js';

const sqlite = BACKENDS.find((b) => b.kind === 'sqlite')!;

interface Listed {
  id: string;
  name: string;
  notes: string | null;
  merchant: { name: string } | null;
}

describe('a search on SQLite, read in slices', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(sqlite, {}, { http: { requestTimeoutMs: 400 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const list = async (query: string) => {
    const rows: Listed[] = [];
    let total = 0;
    for (let page = 1; ; page += 1) {
      const answer = await t.request(
        t.keys.alice,
        'GET',
        `/api/v1/transactions?per_page=100&page=${page}&${query}`,
      );
      expect(answer.status, query).toBe(200);
      total = answer.body.pagination.total_count;
      rows.push(...(answer.body.transactions as Listed[]));
      if (page >= answer.body.pagination.total_pages) break;
    }
    return { rows, total };
  };

  it('answers the rows and order one statement would, and their count', async () => {
    const everything = (await list('')).rows;
    expect(everything.length).toBeGreaterThan(200);
    // SQLite's LIKE: ASCII letters in any case, everything else as written.
    const folded = (text: string | null | undefined) =>
      (text ?? '').replace(/[A-Z]/g, (c) => c.toLowerCase());
    const words = [...new Set(everything.flatMap((r) => r.name.split(' ')))].slice(0, 6);
    for (const search of [...words, words[0]!.toUpperCase(), 'zzz-nothing', 'e']) {
      const expected = everything.filter((r) =>
        [r.name, r.notes, r.merchant?.name].some((text) => folded(text).includes(folded(search))),
      );
      const found = await list(`search=${encodeURIComponent(search)}`);
      expect(found.total, search).toBe(expected.length);
      expect(
        found.rows.map((r) => r.id),
        search,
      ).toEqual(expected.map((r) => r.id));
    }
  });

  it('each slice looks its rows up by rowid, not every row of the user (the plan)', () => {
    const database = (t.server.runtime.store as SqliteAppStore).database;
    // The filters as a search's list has them: the partial index of live rows matches them too.
    const where =
      "t.user_id = ? AND t.gone_at IS NULL AND t.deleted_at IS NULL AND t.name LIKE ? ESCAPE '\\'";
    const rowids = Array.from({ length: 48 }, (_, i) => i + 1);
    const plan = queryPlan(database, sliceSql(where, 48), [...rowids, t.users.alice, '%x%']);
    expect(plan).toMatch(/SEARCH t USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  });

  it('other requests are answered while a long search reads, and the search stops at its request timeout', async () => {
    // Rows whose notes make a search slow: 2,000 of 10,000 characters.
    const store = t.server.runtime.store;
    const [account] = await store.listAccounts(t.users.alice);
    const at = new Date().toISOString();
    await store.atomically(async (unit) => {
      for (let i = 0; i < 2_000; i += 1)
        await unit.insertTransaction({
          id: randomUUID(),
          user_id: t.users.alice,
          account_id: account!.id,
          feed_key: `api:${randomUUID()}`,
          external_id: '',
          source: '',
          date: '2026-01-02',
          amount: '1',
          currency: account!.currency ?? 'GBP',
          name: 'Long notes',
          notes: 'a'.repeat(10_000),
          merchant_id: null,
          is_pending: false,
          locked: [],
          created_at: at,
          updated_at: at,
        });
    });
    const order: string[] = [];
    const search = t
      .request(t.keys.alice, 'GET', `/api/v1/transactions?search=${'a'.repeat(199)}b`)
      .then((answer) => (order.push('search'), answer));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const other = await t.request(t.keys.bob, 'GET', '/api/v1/tags');
    order.push('other');
    expect(other.status).toBe(200);
    const answer = await search;
    expect(order).toEqual(['other', 'search']);
    expect(answer.status).toBe(503);
  });
});
