/** The two app stores answer alike: transactions, exact text, ordering and search. */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStores, type OpenedStores } from '../src/store/open.js';
import { AnsweredAsTimedOut, RequestDeadline } from '../src/http/deadline.js';
import { prepareCached } from '../src/store/sqlite-schema.js';
import { SqliteAppStore } from '../src/store/sqlite.js';
import { thenApply } from '../src/store/steps.js';
import { createTransaction, deleteTransaction } from '../src/lifecycle.js';
import { ApiProblem } from '../src/problem.js';
import {
  MAX_CREATED_TRANSACTIONS_PER_USER,
  MAX_TAGS_PER_USER,
  type AppStore,
  type NewTransaction,
  type TransactionUpdate,
} from '../src/store/types.js';
import { createUser } from '../src/users.js';
import {
  BACKENDS,
  holdUnitOfWork,
  queryPlan,
  statementsPreparedDuring,
  testDatabase,
  withClient,
  type TestDatabase,
} from './helpers.js';

const now = () => new Date().toISOString();

async function seedUser(store: AppStore, name: string, id = randomUUID()) {
  const user = { id, name, created_at: now() };
  const account = {
    id: randomUUID(),
    user_id: user.id,
    provider_account_id: `acc-${name}`,
    name: 'Current',
    account_type: 'depository',
    currency: 'GBP',
    balance: '0.10',
    state: 'active',
    institution_name: null,
  };
  await store.atomically(async (unit) => {
    await unit.insertUser(user);
    await unit.insertAccount(account);
  });
  return { user, account };
}

function transaction(userId: string, accountId: string, fields: Partial<NewTransaction>): NewTransaction {
  return {
    id: randomUUID(),
    user_id: userId,
    account_id: accountId,
    feed_key: randomUUID(),
    external_id: 'lunchflow_1',
    source: 'lunchflow',
    date: '2026-01-02',
    amount: '1',
    currency: 'GBP',
    name: 'x',
    notes: null,
    merchant_id: null,
    is_pending: false,
    created_at: now(),
    updated_at: now(),
    ...fields,
  };
}

/** The statement every unit of work on SQLite commits with (statements are prepared once and kept). */
function commitStatement(store: AppStore) {
  return prepareCached((store as SqliteAppStore).database, 'COMMIT');
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`app store ${backend.title}`, () => {
    let db: TestDatabase;
    let opened: OpenedStores;

    beforeAll(() => {
      db = testDatabase(backend);
      opened = openStores(db.database, db.dataDir);
    });

    afterAll(async () => {
      await opened?.storage.close();
      await opened?.store.close();
      await db?.cleanup();
    });

    it('a unit of work that throws leaves nothing behind, and nobody sees its writes meanwhile', async () => {
      const { store } = opened;
      const user = { id: randomUUID(), name: 'rolled-back', created_at: now() };
      let during: Promise<unknown> | undefined;
      await expect(
        store.atomically(async (unit) => {
          await unit.insertUser(user);
          // Not awaited here: on SQLite it waits for the unit of work to end.
          during = store.findUser(user.name);
          await new Promise((resolve) => setTimeout(resolve, 30));
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await during).toBeUndefined();
      expect(await store.findUser(user.name)).toBeUndefined();
    });

    it("the engine's writes during a unit of work are not rolled back with it", async () => {
      const { store, storage } = opened;
      const state = {
        id: `conn-${randomUUID()}`,
        status: 'active' as const,
        pausedUntil: null,
        statusReason: null,
        lastRunAt: null,
        lastSuccessAt: null,
        createdAt: now(),
      };
      let applying: Promise<void> | undefined;
      await expect(
        store.atomically(async () => {
          applying = storage.apply({ changes: [], connections: [state] });
          await new Promise((resolve) => setTimeout(resolve, 30));
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await applying;
      expect(await storage.getConnection(state.id)).toMatchObject({ id: state.id });
    });

    it('a unit of work that answers at once commits at once, and one that throws at once rolls back', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, `at-once-${backend.kind}`);
      const written = transaction(user.id, account.id, {});
      await store.atomically((unit) => unit.insertTransaction(written));
      const done = store.atomically((unit) => unit.updateTransaction(written.id, { notes: 'kept' }));
      // On SQLite, with no other unit open, the statements have run and committed by now.
      if (backend.kind === 'sqlite') expect(done).toBeUndefined();
      await done;
      let failed: unknown;
      try {
        await store.atomically((unit) => {
          unit.updateTransaction(written.id, { notes: 'lost' });
          throw new Error('boom');
        });
      } catch (error) {
        failed = error;
      }
      expect(failed).toEqual(new Error('boom'));
      expect(await store.getTransaction(user.id, written.id)).toMatchObject({ notes: 'kept' });
    });

    it('an update sets exactly the columns it gives, in any set and order, and refuses one not updatable', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, `set-lists-${backend.kind}`);
      const written = transaction(user.id, account.id, { notes: 'first' });
      await store.atomically((unit) => unit.insertTransaction(written));
      const read = async () => (await store.getTransaction(user.id, written.id))!;
      const update = (fields: TransactionUpdate) =>
        store.atomically((unit) => unit.updateTransaction(written.id, fields));

      await update({ name: 'one', notes: 'two' });
      expect(await read()).toMatchObject({ name: 'one', notes: 'two', amount: '1', date: '2026-01-02' });
      // The same set in another order, a null among them.
      await update({ notes: null, name: 'three' });
      expect(await read()).toMatchObject({ name: 'three', notes: null });
      // Undefined is no change; the values go to their own columns whatever the set.
      await update({
        locked: ['notes', 'amount'],
        notes: undefined,
        amount: '2.50',
        updated_at: '2026-02-03T04:05:06.007Z',
        date: '2026-01-05',
      });
      expect(await read()).toMatchObject({
        name: 'three',
        notes: null,
        amount: '2.50',
        date: '2026-01-05',
        updated_at: '2026-02-03T04:05:06.007Z',
        locked: ['notes', 'amount'],
      });
      await update({ notes: 'four' });
      await update({});
      const before = await read();
      expect(before).toMatchObject({ notes: 'four', amount: '2.50' });
      let failed: unknown;
      try {
        await store.atomically(async (unit) => {
          await unit.updateTransaction(written.id, { notes: 'lost' });
          await unit.updateTransaction(written.id, { name: 'lost', user_id: 'another' } as TransactionUpdate);
        });
      } catch (error) {
        failed = error;
      }
      expect(failed).toEqual(new Error('not an updatable column: user_id'));
      expect(await read()).toEqual(before);
    });

    it('a unit of work that could answer at once waits for one already open, then sees its commit', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, `queued-${backend.kind}`);
      const written = transaction(user.id, account.id, { notes: 'before' });
      await store.atomically((unit) => unit.insertTransaction(written));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = store.atomically(async (unit) => {
        await unit.lockTransaction(user.id, written.id);
        await unit.updateTransaction(written.id, { notes: 'first' });
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = store.atomically((unit) =>
        thenApply(unit.lockTransaction(user.id, written.id), (row) => row?.notes),
      );
      expect(second).toBeInstanceOf(Promise);
      release();
      await first;
      expect(await second).toBe('first');
    });

    it('grouped units asked for together each commit or roll back on their own, in the order asked', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, `grouped-${backend.kind}`);
      const one = transaction(user.id, account.id, { external_id: 'lunchflow_g1' });
      const two = transaction(user.id, account.id, { external_id: 'lunchflow_g2' });
      await store.atomically(async (unit) => {
        await unit.insertTransaction(one);
        await unit.insertTransaction(two);
      });
      const commit = backend.kind === 'sqlite' ? vi.spyOn(commitStatement(store), 'run') : undefined;
      const settled = await Promise.allSettled([
        store.atomically((unit) => unit.updateTransaction(one.id, { notes: 'first' }), { group: true }),
        store.atomically(
          (unit) => {
            unit.updateTransaction(one.id, { notes: 'lost' });
            unit.updateTransaction(two.id, { notes: 'lost' });
            throw new Error('boom');
          },
          { group: true },
        ),
        store.atomically(
          (unit) =>
            thenApply(unit.lockTransaction(user.id, one.id), (row) => {
              unit.updateTransaction(two.id, { notes: `after ${row?.notes}` });
              return row?.notes;
            }),
          { group: true },
        ),
      ]);
      expect(settled).toEqual([
        { status: 'fulfilled', value: undefined },
        { status: 'rejected', reason: new Error('boom') },
        // The third saw the first's write, not the second's.
        { status: 'fulfilled', value: 'first' },
      ]);
      expect(await store.getTransaction(user.id, one.id)).toMatchObject({ notes: 'first' });
      expect(await store.getTransaction(user.id, two.id)).toMatchObject({ notes: 'after first' });
      // On SQLite the three shared one commit.
      if (commit) {
        expect(commit).toHaveBeenCalledTimes(1);
        commit.mockRestore();
      }
      // Alone in its group, a unit that throws after writing leaves nothing behind either.
      await expect(
        store.atomically(
          (unit) => {
            unit.updateTransaction(one.id, { notes: 'alone' });
            throw new Error('alone');
          },
          { group: true },
        ),
      ).rejects.toThrow('alone');
      expect(await store.getTransaction(user.id, one.id)).toMatchObject({ notes: 'first' });
    });

    it('a unit whose request was answered as timed out rolls back at its commit; its group-mates commit', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, `deadline-${backend.kind}`);
      const one = transaction(user.id, account.id, { external_id: 'lunchflow_d1', notes: 'before' });
      const two = transaction(user.id, account.id, { external_id: 'lunchflow_d2', notes: 'before' });
      await store.atomically(async (unit) => {
        await unit.insertTransaction(one);
        await unit.insertTransaction(two);
      });
      const late = new RequestDeadline();
      expect(late.expire()).toBe(true);
      const inTime = new RequestDeadline();
      const settled = await Promise.allSettled([
        store.atomically((unit) => unit.updateTransaction(one.id, { notes: 'late' }), {
          group: true,
          deadline: late,
        }),
        store.atomically((unit) => unit.updateTransaction(two.id, { notes: 'in time' }), {
          group: true,
          deadline: inTime,
        }),
      ]);
      expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled']);
      expect((settled[0] as PromiseRejectedResult).reason).toBeInstanceOf(AnsweredAsTimedOut);
      expect(await store.getTransaction(user.id, one.id)).toMatchObject({ notes: 'before' });
      expect(await store.getTransaction(user.id, two.id)).toMatchObject({ notes: 'in time' });
      // Once its write has begun to commit, the request is no longer answered as timed out.
      expect(inTime.expire()).toBe(false);
      // Alone, and without grouping, the same.
      await expect(
        (async () =>
          store.atomically((unit) => unit.updateTransaction(two.id, { notes: 'late' }), {
            deadline: late,
          }))(),
      ).rejects.toBeInstanceOf(AnsweredAsTimedOut);
      expect(await store.getTransaction(user.id, two.id)).toMatchObject({ notes: 'in time' });
    });

    it.runIf(backend.kind === 'sqlite')(
      'a grouped unit asked for just before close() still commits before the database closes',
      async () => {
        const file = join(db.dataDir, 'closing.db');
        const closing = new SqliteAppStore(file);
        const { user, account } = await seedUser(closing, 'closing');
        const row = transaction(user.id, account.id, { notes: 'before' });
        await closing.atomically((unit) => unit.insertTransaction(row));
        const update = closing.atomically((unit) => unit.updateTransaction(row.id, { notes: 'kept' }), {
          group: true,
        });
        await closing.close();
        await expect(update).resolves.toBeUndefined();
        const reopened = new SqliteAppStore(file);
        expect(await reopened.getTransaction(user.id, row.id)).toMatchObject({ notes: 'kept' });
        await reopened.close();
      },
    );

    it.runIf(backend.kind === 'sqlite')(
      'a group that cannot begin (another process holds the write lock) fails every unit and writes nothing',
      async () => {
        const { store } = opened;
        const { user, account } = await seedUser(store, `group-busy-${backend.kind}`);
        const row = transaction(user.id, account.id, { notes: 'before' });
        await store.atomically((unit) => unit.insertTransaction(row));
        const database = (store as SqliteAppStore).database;
        const other = new Database(database.name);
        other.exec('BEGIN IMMEDIATE');
        database.pragma('busy_timeout = 50');
        try {
          const settled = await Promise.allSettled(
            ['a', 'b'].map((notes) =>
              store.atomically((unit) => unit.updateTransaction(row.id, { notes }), { group: true }),
            ),
          );
          expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
          expect(settled.map((s) => (s as PromiseRejectedResult).reason.code)).toEqual([
            'SQLITE_BUSY',
            'SQLITE_BUSY',
          ]);
        } finally {
          database.pragma('busy_timeout = 5000');
          other.exec('ROLLBACK');
          other.close();
        }
        expect(await store.getTransaction(user.id, row.id)).toMatchObject({ notes: 'before' });
      },
    );

    it('finds a user by id before another user named with that id (a database from before such names were refused)', async () => {
      const { store } = opened;
      const id = randomUUID();
      await expect(createUser(store, id.toUpperCase())).rejects.toThrow(/shape of a user id/);
      expect((await store.listUsers()).filter((u) => u.name.toLowerCase() === id)).toEqual([]);
      // Seeded straight into the store, as a database from before the refusal may hold it, and
      // before the user whose id it is, so that neither insertion order nor rowid picks the answer.
      const { user: namedLikeIt } = await seedUser(store, id);
      await seedUser(store, `owner-${id.slice(0, 8)}`, id);
      expect(await store.findUser(id)).toMatchObject({ id, name: `owner-${id.slice(0, 8)}` });
      expect(await store.findUser(namedLikeIt.id)).toMatchObject({ id: namedLikeIt.id, name: id });
    });

    it('lists live rows newest first (date, then created, then id) with their total, off the index made for it', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, 'listed');
      const at = (n: number) => `2026-03-0${n}T10:00:00.000Z`;
      const rows = [
        transaction(user.id, account.id, { date: '2026-02-01', created_at: at(1) }),
        transaction(user.id, account.id, { date: '2026-02-03', created_at: at(1) }),
        transaction(user.id, account.id, { date: '2026-02-03', created_at: at(2) }),
        transaction(user.id, account.id, { date: '2026-02-03', created_at: at(2) }),
        transaction(user.id, account.id, { date: '2026-02-02', created_at: at(3) }),
      ];
      const [deleted, gone] = [
        transaction(user.id, account.id, { date: '2026-02-04' }),
        transaction(user.id, account.id, { date: '2026-02-05' }),
      ];
      await store.atomically(async (unit) => {
        for (const row of [...rows, deleted, gone]) await unit.insertTransaction(row);
        await unit.setDeleted(deleted.id, now());
      });
      if (store instanceof SqliteAppStore)
        store.database.prepare('UPDATE app_transactions SET gone_at = ? WHERE id = ?').run(now(), gone.id);
      else
        await (
          store as unknown as { pool: { query(sql: string, p: unknown[]): Promise<unknown> } }
        ).pool.query(
          `UPDATE ${(store as unknown as { schema: string }).schema}.app_transactions SET gone_at = $1 WHERE id = $2`,
          [now(), gone.id],
        );
      const tied = [rows[2]!.id, rows[3]!.id].sort();
      const expected = [...tied, rows[1]!.id, rows[4]!.id, rows[0]!.id];
      const pages = [];
      for (let offset = 0; offset < 5; offset += 2)
        pages.push(await store.findTransactions(user.id, {}, { limit: 2, offset }));
      expect(pages.flatMap((p) => p.rows.map((r) => r.id))).toEqual(expected);
      expect(pages.map((p) => p.total)).toEqual([5, 5, 5]);
      // A page short of its limit proves the total; an empty one past the end does not (it is counted).
      const totals = async (filter: object, limit: number, offset: number) => {
        const found = await store.findTransactions(user.id, filter, { limit, offset });
        return [found.rows.length, found.total];
      };
      expect(await totals({}, 10, 0)).toEqual([5, 5]);
      expect(await totals({}, 2, 5)).toEqual([0, 5]);
      expect(await totals({}, 2, 50)).toEqual([0, 5]);
      expect(await totals({ search: 'x' }, 2, 0)).toEqual([2, 5]);
      expect(await totals({ search: 'x' }, 3, 3)).toEqual([2, 5]);
      expect(await totals({ search: 'nothing like it' }, 2, 0)).toEqual([0, 0]);
      expect(await totals({ search: 'nothing like it' }, 2, 4)).toEqual([0, 0]);

      if (!(store instanceof SqliteAppStore)) return;
      // The page and its count are read off the index: no scan of the table, no sort. A store of its
      // own, so its statements are prepared here, where they can be seen.
      const fresh = new SqliteAppStore(join(db.dataDir, `listed-${randomUUID()}.db`));
      try {
        const seeded = await seedUser(fresh, 'listed');
        await fresh.atomically((unit) =>
          unit.insertTransaction(transaction(seeded.user.id, seeded.account.id, {})),
        );
        const database = fresh.database;
        const prepared = await statementsPreparedDuring(database, () =>
          fresh.findTransactions(seeded.user.id, {}, { limit: 3, offset: 1 }),
        );
        const listing = prepared.filter((sql) => sql.includes('FROM app_transactions t'));
        expect(listing).toHaveLength(2);
        for (const sql of listing) {
          const plan = queryPlan(
            database,
            sql,
            sql.includes('LIMIT') ? [seeded.user.id, 1, 1] : [seeded.user.id],
          );
          expect(plan, sql).toContain('USING INDEX app_transactions_listed');
          expect(plan, sql).not.toMatch(/TEMP B-TREE|SCAN t\b/);
        }
      } finally {
        await fresh.close();
      }
    });

    it("a key's lookup among the live rows is read off its index, not a scan of the account (SQLite's plan)", async () => {
      if (!(opened.store instanceof SqliteAppStore)) return;
      const fresh = new SqliteAppStore(join(db.dataDir, `by-key-${randomUUID()}.db`));
      try {
        const seeded = await seedUser(fresh, 'by-key');
        const database = fresh.database;
        const prepared = await statementsPreparedDuring(database, () =>
          fresh.atomically((unit) => unit.findByExternalId(seeded.account.id, 'api', 'inv-1')),
        );
        const lookup = prepared.find((sql) => sql.includes('external_id = ?'))!;
        const plan = queryPlan(database, lookup, [seeded.account.id, 'api', 'inv-1']);
        expect(plan).toContain('USING INDEX app_transactions_by_key');
      } finally {
        await fresh.close();
      }
    });

    it('money, dates and timestamps come back as the exact text written', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, 'exact');
      const written = transaction(user.id, account.id, {
        amount: '-12345678901234.56789',
        created_at: '2026-01-02T03:04:05.678Z',
      });
      await store.atomically((unit) => unit.insertTransaction(written));
      await store.atomically((unit) =>
        unit.updateTransaction(written.id, { amount: '0.10', locked: ['amount'] }),
      );
      expect(await store.getTransaction(user.id, written.id)).toMatchObject({
        amount: '0.10',
        date: '2026-01-02',
        created_at: '2026-01-02T03:04:05.678Z',
        locked: ['amount'],
      });
      expect((await store.listAccounts(user.id))[0]?.balance).toBe('0.10');
    });

    it(`a user has at most ${MAX_TAGS_PER_USER} tags (they are listed in one answer); other users are not held back`, async () => {
      const { store } = opened;
      const { user } = await seedUser(store, 'many-tags');
      const { user: other } = await seedUser(store, 'few-tags');
      const tag = (name: string) => ({
        id: randomUUID(),
        name,
        color: '#000',
        created_at: new Date().toISOString(),
      });
      for (let i = 0; i < MAX_TAGS_PER_USER; i++)
        expect(await store.insertTag(user.id, tag(`tag ${i}`))).toBe('created');
      expect(await store.insertTag(user.id, tag('one more'))).toBe('full');
      expect(await store.insertTag(user.id, tag('tag 7'))).toBe('taken');
      expect(await store.listTags(user.id)).toHaveLength(MAX_TAGS_PER_USER);
      expect(await store.insertTag(other.id, tag('one more'))).toBe('created');
    });

    it(`a user creates at most ${MAX_CREATED_TRANSACTIONS_PER_USER} transactions through the API; a delete makes room, other users are not held back`, async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, 'many-created');
      const { user: other, account: otherAccount } = await seedUser(store, 'few-created');
      const create = (userId: string, accountId: string, fields: Record<string, unknown> = {}) =>
        createTransaction(
          store,
          userId,
          {
            transaction: {
              account_id: accountId,
              name: 'Cash',
              amount: '2.50',
              date: '2026-05-02',
              ...fields,
            },
          },
          '2026-06-01',
        );
      const rowsOf = async (userId: string) =>
        (await store.findTransactions(userId, {}, { limit: 100, offset: 0 })).rows.map((r) => r.id).sort();
      const keyed = await create(user.id, account.id, { external_id: 'import-1' });
      // As if the user had created all but one of the bound's rows (creating 100,000 here takes minutes).
      await setCreatedCount(user.id, MAX_CREATED_TRANSACTIONS_PER_USER - 1);
      const last = await create(user.id, account.id);
      expect(last.created).toBe(true);
      const before = await rowsOf(user.id);
      const refused = await create(user.id, account.id).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiProblem);
      expect(refused).toMatchObject({
        status: 422,
        errors: [expect.stringMatching(/at most 100,000 transactions through the API/)],
      });
      expect(await rowsOf(user.id)).toEqual(before);
      // A repeat of an earlier create is answered with its row, as ever: it creates nothing.
      expect(await create(user.id, account.id, { external_id: 'import-1' })).toMatchObject({
        created: false,
        transaction: { id: (keyed.transaction as { id: string }).id },
      });
      expect((await create(other.id, otherAccount.id)).created).toBe(true);
      // Deleting one makes room for exactly one.
      await deleteTransaction(store, user.id, (last.transaction as { id: string }).id);
      expect((await create(user.id, account.id)).created).toBe(true);
      await expect(create(user.id, account.id)).rejects.toBeInstanceOf(ApiProblem);
    });

    it('a database from before the count (v5) counts the rows its users created, once upgraded', async () => {
      const older = testDatabase(backend);
      try {
        let stores = openStores(older.database, older.dataDir);
        const { user, account } = await seedUser(stores.store, 'upgraded');
        await stores.store.atomically((unit) => unit.insertTransaction(transaction(user.id, account.id, {})));
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const created = await createTransaction(
            stores.store,
            user.id,
            { transaction: { account_id: account.id, name: `Cash ${i}`, amount: '1', date: '2026-05-02' } },
            '2026-06-01',
          );
          ids.push((created.transaction as { id: string }).id);
        }
        await deleteTransaction(stores.store, user.id, ids[0]!);
        // Back to version 5, as a file or schema made by the release before.
        const downgrade = [
          ...['app_accounts', 'app_categories', 'app_merchants', 'app_tags'].map(
            (table) => `ALTER TABLE ${table} DROP COLUMN created_at`,
          ),
          'ALTER TABLE app_accounts DROP COLUMN updated_at',
          'ALTER TABLE app_accounts DROP COLUMN institution_name',
          'DROP INDEX app_transactions_by_key',
          'ALTER TABLE app_users DROP COLUMN created_transactions',
          `DELETE FROM ${backend.kind === 'postgres' ? 'finsync_migrations' : 'app_migrations'} WHERE version >= 6`,
        ];
        if (backend.kind === 'postgres')
          await withClient(async (client) => {
            await client.query(`SET search_path TO "${older.schemas[1]}"`);
            for (const sql of downgrade) await client.query(sql);
          });
        else for (const sql of downgrade) (stores.store as SqliteAppStore).database.exec(sql);
        await stores.storage.close();
        await stores.store.close();
        stores = openStores(older.database, older.dataDir);
        try {
          await stores.store.listUsers();
          const counted =
            backend.kind === 'postgres'
              ? await withClient(
                  async (client) =>
                    (
                      await client.query(
                        `SELECT created_transactions FROM "${older.schemas[1]}".app_users WHERE id = $1`,
                        [user.id],
                      )
                    ).rows[0],
                )
              : (stores.store as SqliteAppStore).database
                  .prepare('SELECT created_transactions FROM app_users WHERE id = ?')
                  .get(user.id);
          expect(counted).toEqual({ created_transactions: 2 });
        } finally {
          await stores.storage.close();
          await stores.store.close();
        }
      } finally {
        await older.cleanup();
      }
    });

    async function setCreatedCount(userId: string, count: number) {
      if (backend.kind === 'postgres')
        await withClient((client) =>
          client.query(`UPDATE "${db.schemas[1]}".app_users SET created_transactions = $1 WHERE id = $2`, [
            count,
            userId,
          ]),
        );
      else
        (opened.store as SqliteAppStore).database
          .prepare('UPDATE app_users SET created_transactions = ? WHERE id = ?')
          .run(count, userId);
    }

    it.skipIf(backend.kind !== 'postgres')(
      "creating a tag does not wait for a write of the user's rows in flight (a feed batch), on PostgreSQL",
      async () => {
        const { store } = opened;
        const { user, account } = await seedUser(store, 'tag-beside-batch');
        // A unit of work that has inserted one of the user's transactions and not committed yet.
        const held = await holdUnitOfWork(store, (unit) =>
          unit.insertTransaction(transaction(user.id, account.id, {})),
        );
        try {
          const created = store.insertTag(user.id, {
            id: randomUUID(),
            name: 'beside',
            color: '#000',
            created_at: new Date().toISOString(),
          });
          const first = await Promise.race([
            created,
            new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000)),
          ]);
          expect(first).toBe('created');
        } finally {
          await held.release();
        }
      },
    );

    it('orders names by code point, and search ignores the case of ASCII letters only', async () => {
      const { store } = opened;
      const { user, account } = await seedUser(store, 'ordering');
      for (const name of ['b', 'B', 'a', 'Z', 'é'])
        expect(
          await store.insertTag(user.id, {
            id: randomUUID(),
            name,
            color: '#000',
            created_at: new Date().toISOString(),
          }),
        ).toBe('created');
      expect(
        await store.insertTag(user.id, {
          id: randomUUID(),
          name: 'a',
          color: '#fff',
          created_at: new Date().toISOString(),
        }),
      ).toBe('taken');
      expect((await store.listTags(user.id)).map((t) => t.name)).toEqual(['B', 'Z', 'a', 'b', 'é']);

      await store.atomically(async (unit) => {
        for (const name of ['ÉCOLE Fees', 'école', 'Save 50% now', 'Save 500 now'])
          await unit.insertTransaction(transaction(user.id, account.id, { name }));
      });
      const search = async (text: string) =>
        (await store.findTransactions(user.id, { search: text }, { limit: 10, offset: 0 })).rows
          .map((r) => r.name)
          .sort();
      expect(await search('cole')).toEqual(['ÉCOLE Fees', 'école']);
      expect(await search('ÉCOLE')).toEqual(['ÉCOLE Fees']);
      expect(await search('50%')).toEqual(['Save 50% now']);
      expect(await search('_')).toEqual([]);
    });
  });
}
