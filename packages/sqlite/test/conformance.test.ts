import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStorageConformance } from '@finsync/sync/testing';
import { SqliteStorage } from '../src/index.js';

runStorageConformance('SqliteStorage (file)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'finsync-sqlite-'));
  const filename = join(dir, 'finsync.db');
  return {
    storage: new SqliteStorage({ filename }),
    reopen: async () => new SqliteStorage({ filename }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

runStorageConformance('SqliteStorage (:memory:)', async () => ({
  storage: new SqliteStorage({ filename: ':memory:' }),
}));
