/**
 * What other local users can see: the data directory the server creates is 0700, the SQLite files
 * (and their -wal and -shm) 0600, and master.key 0600, refused when group or others can read it.
 */
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMasterKey, POSIX_MODES } from '../src/crypto.js';
import { startReferenceServer, type DatabaseConfig } from '../src/server.js';
import { createUser } from '../src/users.js';
import { BACKENDS, testDatabase } from './helpers.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(3, '0');

const title = POSIX_MODES
  ? 'file modes'
  : `file modes (skipped: ${process.platform} has no POSIX file modes, stat reports 0666 whatever the ACLs)`;

describe.skipIf(!POSIX_MODES)(title, () => {
  let umask: number;
  const scratch: string[] = [];
  beforeAll(() => {
    // The usual umask, which made the directory 0755 and the files 0644 before: modes must not rest on it.
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
    for (const dir of scratch) removeTempDir(dir);
  });
  function freshDir(): string {
    const parent = makeTempDir('modes');
    scratch.push(parent);
    return join(parent, 'data');
  }

  for (const backend of BACKENDS) {
    it.skipIf(backend.skip)(
      `${backend.title}: a new data directory is 0700, master.key 0600${backend.kind === 'sqlite' ? ', the SQLite files 0600' : ''}`,
      async () => {
        const { database, cleanup } = testDatabase(backend);
        const dataDir = freshDir();
        const server = await startReferenceServer({ dataDir, database, port: 0, sandbox: false });
        try {
          await createUser(server.runtime.store, 'alice');
          expect(mode(dataDir)).toBe('700');
          expect(mode(join(dataDir, 'master.key'))).toBe('600');
          if (backend.kind === 'sqlite') {
            // While it runs, so the WAL and shared-memory files exist.
            for (const file of ['finsync.db', 'finsync.db-wal', 'finsync.db-shm'])
              expect([file, mode(join(dataDir, file))]).toEqual([file, '600']);
          }
        } finally {
          await server.close();
          await cleanup();
        }
      },
    );
  }

  it('database files an older release left 0644 are tightened on open; an existing directory keeps its mode', async () => {
    const dataDir = freshDir();
    mkdirSync(dataDir, { mode: 0o755 });
    const database: DatabaseConfig = { kind: 'sqlite' };
    const first = await startReferenceServer({ dataDir, database, port: 0, sandbox: false });
    await first.close();
    chmodSync(join(dataDir, 'finsync.db'), 0o644);
    const server = await startReferenceServer({ dataDir, database, port: 0, sandbox: false });
    try {
      await createUser(server.runtime.store, 'bob');
      for (const file of ['finsync.db', 'finsync.db-wal', 'finsync.db-shm'])
        expect([file, mode(join(dataDir, file))]).toEqual([file, '600']);
      expect(mode(dataDir)).toBe('755');
    } finally {
      await server.close();
    }
  });

  it('a master.key that group or others can read or write is refused, with the fix in the message', async () => {
    const dataDir = freshDir();
    mkdirSync(dataDir, { mode: 0o700 });
    const keyFile = join(dataDir, 'master.key');
    writeFileSync(keyFile, `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 });
    expect(loadMasterKey(keyFile, undefined)).toEqual(Buffer.alloc(32, 7));
    for (const loose of [0o644, 0o640, 0o604, 0o620, 0o602]) {
      chmodSync(keyFile, loose);
      expect(() => loadMasterKey(keyFile, undefined)).toThrow(
        new RegExp(`mode 0${loose.toString(8)}: other local users can read or replace it. Run chmod 600`),
      );
    }
    // The server refuses to start on it, before opening the database.
    await expect(startReferenceServer({ dataDir, port: 0, sandbox: false })).rejects.toThrow(/chmod 600/);
    expect(existsSync(join(dataDir, 'finsync.db'))).toBe(false);
    // Not tightened behind the operator's back.
    expect(mode(keyFile)).toBe('602');
    // A key from the environment needs no file.
    expect(loadMasterKey(keyFile, 'ab'.repeat(32))).toEqual(Buffer.alloc(32, 0xab));
  });
});
