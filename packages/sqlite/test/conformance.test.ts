import Database from 'better-sqlite3';
import { join } from 'node:path';
import { fixtures, runStorageConformance } from '@finsync/sync/testing';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
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

// A caller's own handle that reads integers as BigInts by default: the storage's reads must not.
runStorageConformance('SqliteStorage (a handle with defaultSafeIntegers)', async () => {
  const database = new Database(':memory:').defaultSafeIntegers(true);
  return { storage: new SqliteStorage({ database }), cleanup: async () => void database.close() };
});

describe('SqliteStorage, beyond the shared contract', () => {
  it('a second storage open on the same file sees what the first committed, while both stay open', async () => {
    const dir = makeTempDir('sqlite');
    const filename = join(dir, 'finsync.db');
    const writer = new SqliteStorage({ filename });
    const reader = new SqliteStorage({ filename });
    try {
      await writer.init();
      await reader.init();
      await writer.apply({ changes: [], connections: [fixtures.connectionState('c1')] });
      expect(await reader.getConnection('c1')).toMatchObject({ id: 'c1', status: 'active' });
    } finally {
      await writer.close();
      await reader.close();
      removeTempDir(dir);
    }
  });

  it('two :memory: storages share nothing', async () => {
    const a = new SqliteStorage({ filename: ':memory:' });
    const b = new SqliteStorage({ filename: ':memory:' });
    try {
      await a.init();
      await b.init();
      await a.apply({ changes: [], connections: [fixtures.connectionState('c1')] });
      expect(await b.getConnection('c1')).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
