import { ProviderClient } from '@finsync/provider';
import { MemoryStorage, SyncEngine, UnknownConnectionError } from '@finsync/sync';
import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import {
  LONG_TRANSACTION_ID,
  oddProviderTextFetch,
  oddProviderTextRuns,
} from '@finsync/test-utils/odd-provider-text';
import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { dropSchema, url } from './helpers.js';

describe.skipIf(!url)(postgresSuiteName('PostgresStorage with odd provider text'), () => {
  it('stores NUL, lone surrogates, a 3,000-character id and a refusal with a NUL as the memory storage does', async () => {
    const schema = freshSchemaName();
    const postgres = new PostgresStorage({ connectionString: url, schema });
    try {
      const inPostgres = await oddProviderTextRuns(postgres);
      expect(inPostgres).toEqual(await oddProviderTextRuns(new MemoryStorage()));
      // Both runs synced 4711 and skipped the account whose id no store can index alike.
      expect(inPostgres.issues).toEqual([[], [], ['accounts: AuthenticationError']]);
      expect(inPostgres.skipped).toEqual([['AccountIdTooLongError'], ['AccountIdTooLongError'], []]);
      expect(inPostgres.holdingKeys).toEqual(['id:h1\uFFFD', 'id:h2\uFFFD']);
      expect(inPostgres.againChanged).toEqual([0, 0, 0]);
      expect(inPostgres.transactions.map((t) => [t.providerId, t.merchant, t.description])).toEqual([
        ['tx_nul', 'ACME\uFFFD LTD', 'CARD\uFFFDPAYMENT'],
        ['tx_\uFFFD', 'CAFE \uFFFD', 'CARD \u{1F600} PAYMENT'],
        [LONG_TRANSACTION_ID, 'Kiosk', 'CARD PAYMENT'],
      ]);
      expect(inPostgres.accountNames).toEqual(['Current\uFFFD \uFFFD']);
      expect(inPostgres.refused).toEqual({
        status: 'reauth_required',
        statusReason: expect.stringContaining('key\uFFFD revoked \uFFFD') as string,
      });
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
      const client = new ProviderClient({
        apiKey: 'k_test',
        rateLimit: false,
        maxRetries: 0,
        fetch: oddProviderTextFetch(),
      });
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
