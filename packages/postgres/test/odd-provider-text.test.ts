import { ProviderClient } from '@finsync/provider';
import { MemoryStorage, SyncEngine, UnknownConnectionError, type Storage } from '@finsync/sync';
import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { dropSchema, url } from './helpers.js';

const LONG_ID = `tx_${'9'.repeat(3000)}`;

/** One account whose rows carry what PostgreSQL's text and indexes cannot take as they are. */
const rows = [
  {
    id: 'tx_nul',
    accountId: 4711,
    amount: -12.5,
    currency: 'GBP',
    date: '2026-06-01',
    merchant: 'ACME\u0000 LTD',
    description: 'CARD\u0000PAYMENT',
    isPending: false,
  },
  {
    id: LONG_ID,
    accountId: 4711,
    amount: -3,
    currency: 'GBP',
    date: '2026-06-02',
    merchant: 'Kiosk',
    description: 'CARD PAYMENT',
    isPending: false,
  },
];

const fetch = (async (input: string | URL | Request) => {
  const path = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname;
  const body = path.endsWith('/accounts')
    ? {
        accounts: [{ id: 4711, name: 'Current\u0000', institution_name: 'Bank', status: 'ACTIVE' }],
        total: 1,
      }
    : path.endsWith('/balance')
      ? { balance: { amount: -15.5, currency: 'GBP' } }
      : path.endsWith('/holdings')
        ? { holdings: [], totalValue: 0 }
        : { transactions: rows, total: rows.length };
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
}) as typeof globalThis.fetch;

async function syncInto(storage: Storage) {
  const engine = new SyncEngine({
    storage,
    clock: { now: () => new Date('2026-06-03T12:00:00Z'), today: () => '2026-06-03' },
  });
  await engine.addConnection({
    id: 'c1',
    client: new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0, fetch }),
  });
  const first = await engine.sync('c1');
  const again = await engine.sync('c1');
  return { first, again, stored: await storage.findTransactions('c1', '4711') };
}

describe.skipIf(!url)(postgresSuiteName('PostgresStorage with odd provider text'), () => {
  it('stores a NUL in provider text and an id of 3,000 characters as the memory storage does', async () => {
    const schema = freshSchemaName();
    const postgres = new PostgresStorage({ connectionString: url, schema });
    try {
      const inPostgres = await syncInto(postgres);
      const inMemory = await syncInto(new MemoryStorage());
      expect(inPostgres.first.ok).toBe(true);
      expect(inPostgres.again.ok).toBe(true);
      const [account] = inPostgres.again.accounts;
      expect([account!.added, account!.modified, account!.removed]).toEqual([0, 0, 0]);
      expect(inPostgres.stored).toEqual(inMemory.stored);
      expect(inPostgres.stored.map((t) => [t.providerId, t.merchant])).toEqual([
        ['tx_nul', 'ACME\uFFFD LTD'],
        [LONG_ID, 'Kiosk'],
      ]);
      expect((await postgres.listAccounts('c1'))[0]!.name).toBe('Current\uFFFD');
    } finally {
      await postgres.close();
      await dropSchema(schema);
    }
  });

  it('answers a connection id with a NUL as unknown, as every storage does, instead of a database error', async () => {
    const schema = freshSchemaName();
    const postgres = new PostgresStorage({ connectionString: url, schema });
    try {
      const engine = new SyncEngine({ storage: postgres });
      const id = 'user\u00001';
      const client = new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0, fetch });
      await expect(engine.addConnection({ id, client })).rejects.toThrow(TypeError);
      expect(await engine.getConnection(id)).toBeUndefined();
      await expect(engine.sync(id)).rejects.toBeInstanceOf(UnknownConnectionError);
      await expect(engine.updateCredentials(id, { client })).rejects.toBeInstanceOf(UnknownConnectionError);
      await engine.removeConnection(id, { purge: true });
      expect(await postgres.listConnections()).toEqual([]);
    } finally {
      await postgres.close();
      await dropSchema(schema);
    }
  });
});
