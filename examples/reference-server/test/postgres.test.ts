/** PostgreSQL only: the app schema's migration, and two server instances on one database. */
import { randomBytes } from 'node:crypto';
import { testPostgresUrl } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedApplier } from '../src/feed.js';
import { SANDBOX, startReferenceServer, type RunningServer } from '../src/server.js';
import { APP_MIGRATIONS, migrateAppSchema } from '../src/store/postgres-schema.js';
import { PostgresAppStore } from '../src/store/postgres.js';
import { createApiKey, createUser } from '../src/users.js';
import { BACKENDS, testDatabase, withClient, type TestDatabase } from './helpers.js';

const postgres = BACKENDS.find((b) => b.kind === 'postgres')!;
const masterKey = randomBytes(32).toString('hex');

describe.skipIf(postgres.skip)(`PostgreSQL deployment ${postgres.title}`, () => {
  let db: TestDatabase;
  let first: RunningServer;
  let second: RunningServer;
  let key: string;
  let userId: string;

  const start = () =>
    startReferenceServer({
      dataDir: db.dataDir,
      database: db.database,
      masterKey,
      port: 0,
      sandbox: { seed: 5, historyDays: 20, transactionsPerDay: 3 },
      scheduler: false,
    });
  const get = async (server: RunningServer, path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: { 'X-Api-Key': key } });
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    db = testDatabase(postgres);
    // Two instances starting at once: one migrates each schema, the other waits and finds it done.
    [first, second] = await Promise.all([start(), start()]);
    const user = await createUser(first.runtime.store, 'shared');
    userId = user.id;
    key = (await createApiKey(first.runtime.store, user.id, { name: 'test' })).key;
    await first.runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
    await first.runtime.syncUser(user.id);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await db?.cleanup();
  });

  it('migrates the app schema once, under its lock, and is idempotent', async () => {
    const [, appSchema] = db.schemas;
    const versions = await withClient(
      async (client) =>
        (
          await client.query<{ version: number }>(
            `SELECT version FROM "${appSchema}".finsync_migrations ORDER BY version`,
          )
        ).rows,
    );
    expect(versions).toEqual(APP_MIGRATIONS.map(({ version }) => ({ version })));
    const store = new PostgresAppStore({
      connectionString: testPostgresUrl()!,
      schema: appSchema,
    });
    try {
      const latest = APP_MIGRATIONS.at(-1)!.version;
      expect(await migrateAppSchema(store.pool, appSchema)).toEqual({
        from: latest,
        to: latest,
        applied: [],
      });
    } finally {
      await store.close();
    }
  });

  it('a user, key and provider key stored through one instance work through the other', async () => {
    const fromFirst = await get(first, '/api/v1/transactions?per_page=100');
    const fromSecond = await get(second, '/api/v1/transactions?per_page=100');
    expect(fromSecond.status).toBe(200);
    expect(fromSecond.body).toEqual(fromFirst.body);
    expect(fromFirst.body.pagination.total_count).toBeGreaterThan(0);
    // The second instance had no client for this user: it takes the stored key and syncs.
    const summary = await second.runtime.syncUser(userId);
    expect(summary.ok).toBe(true);
  });

  it('feed appliers of two instances running at once neither duplicate nor lose anything', async () => {
    for (let day = 0; day < 3; day += 1) {
      first.runtime.sandbox!.advanceDays(1);
      expect((await first.runtime.engine.sync(userId)).ok).toBe(true);
      // Besides the first instance's own applier (started by the run), three more at once.
      const appliers = [first, second, second].map((s) => new FeedApplier(s.runtime.store, s.runtime.engine));
      await Promise.all(appliers.map((applier) => applier.apply(userId)));
    }
    await first.runtime.syncUser(userId); // waits for the first instance's own applier too
    const list = (await get(second, '/api/v1/transactions?per_page=100')).body;
    expect(list.pagination.total_count).toBe(await first.runtime.engine.storage.countTransactions(userId));
    const externalIds = list.transactions.map((t: { external_id: string }) => t.external_id);
    expect(new Set(externalIds).size).toBe(externalIds.length);
    expect((await get(first, '/api/v1/transactions?per_page=100')).body).toEqual(list);
  });

  it('an edit through one instance is seen, and kept by later syncs, through the other', async () => {
    const [tx] = (await get(first, '/api/v1/transactions?per_page=1')).body.transactions;
    const response = await fetch(`${second.url}/api/v1/transactions/${tx.id}`, {
      method: 'PATCH',
      headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ transaction: { name: 'Edited on the second' } }),
    });
    expect(response.status).toBe(200);
    await first.runtime.syncUser(userId);
    expect((await get(first, `/api/v1/transactions/${tx.id}`)).body.name).toBe('Edited on the second');
  });
});
