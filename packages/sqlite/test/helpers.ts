import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';

const dirs: string[] = [];
const handles: Database.Database[] = [];

afterEach(async () => {
  for (const db of handles.splice(0)) if (db.open) db.close();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh database path in a temp dir that is deleted after the test. */
export async function tempDatabase(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'finsync-sqlite-'));
  dirs.push(dir);
  return join(dir, 'finsync.db');
}

/** A raw better-sqlite3 handle, closed after the test, for looking behind the storage's back. */
export function rawDatabase(filename: string, options?: Database.Options): Database.Database {
  const db = new Database(filename, options);
  handles.push(db);
  return db;
}

/** Every row of every table, in a stable order: two dumps are equal iff the contents are. */
export function dump(db: Database.Database): Record<string, unknown[]> {
  const tables = db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all();
  return Object.fromEntries(
    tables.map((table) => {
      const columns = db.prepare(`PRAGMA table_info("${table}")`).all().length;
      const order = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
      return [table, db.prepare(`SELECT * FROM "${table}" ORDER BY ${order}`).all()] as const;
    }),
  );
}
