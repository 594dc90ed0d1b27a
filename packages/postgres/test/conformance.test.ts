import { fixtures, runStorageConformance, runWorkQueueConformance } from '@finsync/sync/testing';
import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { adminPool, dropSchema, url } from './helpers.js';

describe.skipIf(!url)(postgresSuiteName('PostgresStorage'), () => {
  // A fresh schema per test: the suite expects every storage to start empty.
  runStorageConformance('PostgresStorage', async () => {
    const schema = freshSchemaName();
    return {
      storage: new PostgresStorage({ connectionString: url, schema }),
      reopen: async () => new PostgresStorage({ connectionString: url, schema }),
      cleanup: () => dropSchema(schema),
    };
  });

  runWorkQueueConformance('PostgresStorage', async () => {
    const schema = freshSchemaName();
    return {
      storage: new PostgresStorage({ connectionString: url, schema }),
      cleanup: () => dropSchema(schema),
    };
  });

  it('keeps everything in the schema it was given, apart from any other', async () => {
    const [mine, theirs] = [freshSchemaName(), freshSchemaName()];
    const a = new PostgresStorage({ connectionString: url, schema: mine });
    const b = new PostgresStorage({ connectionString: url, schema: theirs });
    try {
      await a.init();
      await b.init();
      await a.apply({ changes: [], connections: [fixtures.connectionState('c1')] });
      expect(await b.getConnection('c1')).toBeUndefined();
      const { rows } = await adminPool().query<{ id: string }>(`SELECT id FROM "${mine}".connections`);
      expect(rows.map((r) => r.id)).toEqual(['c1']);
    } finally {
      await a.close();
      await b.close();
      await dropSchema(mine);
      await dropSchema(theirs);
    }
  });
});
