import { describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  SCHEMA_VERSION,
  SchemaOutdatedError,
  SchemaTooNewError,
  SqliteStorage,
  migrate,
  readSchemaVersion,
  type Migration,
} from '../src/index.js';
import { dump, rawDatabase, tempDatabase } from './helpers.js';

interface LedgerRow {
  version: number;
  name: string;
  applied_at: string;
}

function ledger(filename: string): LedgerRow[] {
  return rawDatabase(filename)
    .prepare<[], LedgerRow>('SELECT * FROM finsync_migrations ORDER BY version')
    .all();
}

describe('migrations', () => {
  it('SCHEMA_VERSION is the last migration, and versions increase', () => {
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.at(-1)!.version);
    expect(MIGRATIONS.map((m) => m.version)).toEqual(
      [...MIGRATIONS.map((m) => m.version)].sort((a, b) => a - b),
    );
    expect(Object.isFrozen(MIGRATIONS)).toBe(true);
  });

  it('records every applied migration, once, across repeated init and reopening', async () => {
    const filename = tempDatabase();
    const storage = new SqliteStorage({ filename });
    await storage.init();
    await storage.init();
    const first = ledger(filename);
    expect(first.map(({ version, name }) => ({ version, name }))).toEqual(
      MIGRATIONS.map(({ version, name }) => ({ version, name })),
    );
    expect(first.every((row) => !Number.isNaN(Date.parse(row.applied_at)))).toBe(true);
    await storage.close();

    const again = new SqliteStorage({ filename });
    await again.init();
    await again.close();
    expect(ledger(filename)).toEqual(first);
  });

  it('migrate reports what it did and is a no-op on a current database', async () => {
    const db = rawDatabase(tempDatabase());
    expect(readSchemaVersion(db)).toBe(0);
    expect(migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION, applied: MIGRATIONS.map((m) => m.version) });
    expect(migrate(db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: [] });
  });

  it('refuses a database migrated by newer code, with a typed error, and leaves it alone', async () => {
    const filename = tempDatabase();
    const setup = new SqliteStorage({ filename });
    await setup.init();
    await setup.close();
    const db = rawDatabase(filename);
    db.prepare('INSERT INTO finsync_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      SCHEMA_VERSION + 1,
      'from the future',
      new Date().toISOString(),
    );
    const before = dump(db);

    const storage = new SqliteStorage({ filename });
    const error = await storage.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect(error).toMatchObject({ databaseVersion: SCHEMA_VERSION + 1, supportedVersion: SCHEMA_VERSION });
    expect((error as Error).message).toMatch(/newer/);
    // Every other entry point refuses too, rather than running against an unknown layout.
    await expect(storage.lastSeq()).rejects.toBeInstanceOf(SchemaTooNewError);
    await storage.close();

    const readonly = new SqliteStorage({ filename, readonly: true });
    await expect(readonly.init()).rejects.toBeInstanceOf(SchemaTooNewError);
    await readonly.close();
    expect(dump(db)).toEqual(before);
  });

  it('a read-only storage does not migrate an outdated database', async () => {
    const filename = tempDatabase();
    rawDatabase(filename).exec('CREATE TABLE unrelated (x TEXT)');
    const storage = new SqliteStorage({ filename, readonly: true });
    await expect(storage.init()).rejects.toBeInstanceOf(SchemaOutdatedError);
    await storage.close();
    expect(readSchemaVersion(rawDatabase(filename))).toBe(0);
  });

  it('a failing migration leaves neither its changes nor its record', async () => {
    const db = rawDatabase(tempDatabase());
    migrate(db);
    const broken: Migration = {
      version: SCHEMA_VERSION + 1,
      name: 'broken',
      up: (handle) => {
        handle.exec('CREATE TABLE half_done (x TEXT)');
        throw new Error('boom');
      },
    };
    expect(() => migrate(db, [...MIGRATIONS, broken])).toThrow(
      `migration ${SCHEMA_VERSION + 1} (broken) failed: boom`,
    );
    expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'").pluck().get()).toBe(0);

    const fixed: Migration = {
      ...broken,
      name: 'fixed',
      up: (handle) => void handle.exec('CREATE TABLE done (x TEXT)'),
    };
    expect(migrate(db, [...MIGRATIONS, fixed]).applied).toEqual([SCHEMA_VERSION + 1]);
    expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION + 1);
  });

  it('rejects a migration list that is out of order', async () => {
    const db = rawDatabase(tempDatabase());
    const up = () => {};
    expect(() =>
      migrate(db, [
        { version: 2, name: 'b', up },
        { version: 1, name: 'a', up },
      ]),
    ).toThrow(TypeError);
    expect(() => migrate(db, [{ version: 1.5, name: 'a', up }])).toThrow(TypeError);
    expect(readSchemaVersion(db)).toBe(0);
  });
});
