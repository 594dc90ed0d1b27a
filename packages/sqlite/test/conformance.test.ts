import { join } from 'node:path';
import { runStorageConformance } from '@finsync/sync/testing';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { SqliteStorage } from '../src/index.js';

runStorageConformance('SqliteStorage (file)', async () => {
  const dir = makeTempDir('sqlite');
  const filename = join(dir, 'finsync.db');
  return {
    storage: new SqliteStorage({ filename }),
    reopen: async () => new SqliteStorage({ filename }),
    cleanup: async () => removeTempDir(dir),
  };
});

runStorageConformance('SqliteStorage (:memory:)', async () => ({
  storage: new SqliteStorage({ filename: ':memory:' }),
}));
