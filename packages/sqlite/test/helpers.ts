import { join } from 'node:path';
import { useTempDirs } from '@finsync/test-utils';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';

const tempDir = useTempDirs('sqlite');
const handles: Database.Database[] = [];

// Registered after useTempDirs, so it runs first: the handles close before their directories go.
afterEach(() => {
  for (const db of handles.splice(0)) if (db.open) db.close();
});

/** A fresh database path in a temp dir that is deleted after the test. */
export function tempDatabase(): string {
  return join(tempDir(), 'finsync.db');
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
