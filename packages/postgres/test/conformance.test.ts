import { runStorageConformance } from '@finsync/sync/testing';
import { describe } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { dropSchema, freshSchema, suiteName, url } from './helpers.js';

describe.skipIf(!url)(suiteName('PostgresStorage'), () => {
  // A fresh schema per test: the suite expects every storage to start empty.
  runStorageConformance('PostgresStorage', async () => {
    const schema = freshSchema();
    return {
      storage: new PostgresStorage({ connectionString: url, schema }),
      reopen: async () => new PostgresStorage({ connectionString: url, schema }),
      cleanup: () => dropSchema(schema),
    };
  });
});
