import { runStorageConformance } from '@finsync/sync/testing';
import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import { describe } from 'vitest';
import { PostgresStorage } from '../src/index.js';
import { dropSchema, url } from './helpers.js';

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
});
