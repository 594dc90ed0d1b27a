import { freshSchemaName, postgresSuiteName } from '@finsync/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  PostgresStorage,
  SCHEMA_VERSION,
  SchemaOutdatedError,
  SchemaTooNewError,
  migrate,
  readSchemaVersion,
  type Migration,
} from '../src/index.js';
import { adminPool, dropSchema, url } from './helpers.js';

interface LedgerRow {
  version: number;
  name: string;
  applied_at: Date;
}

async function ledger(schema: string): Promise<LedgerRow[]> {
  return (await adminPool().query<LedgerRow>(`SELECT * FROM "${schema}".finsync_migrations ORDER BY version`))
    .rows;
}

/**
 * Like Promise.all, but waits for every promise before failing: a migration still running after the
 * test gave up would recreate the schema after afterEach dropped it.
 */
async function settled<T>(promises: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

async function tables(schema: string): Promise<string[]> {
  const { rows } = await adminPool().query<{ table_name: string }>(
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
    [schema],
  );
  return rows.map((r) => r.table_name);
}

describe.skipIf(!url)(postgresSuiteName('PostgresStorage migrations'), () => {
  const schemas: string[] = [];
  const storages: PostgresStorage[] = [];
  function schema(): string {
    const name = freshSchemaName();
    schemas.push(name);
    return name;
  }
  function storage(options: ConstructorParameters<typeof PostgresStorage>[0] = {}): PostgresStorage {
    const created = new PostgresStorage({ connectionString: url, ...options });
    storages.push(created);
    return created;
  }

  afterEach(async () => {
    await Promise.all(storages.splice(0).map((s) => s.close()));
    await Promise.all(schemas.splice(0).map(dropSchema));
  });

  it('SCHEMA_VERSION is the last migration, and the list is frozen and ordered', () => {
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.at(-1)!.version);
    expect(MIGRATIONS.map((m) => m.version)).toEqual(
      [...MIGRATIONS.map((m) => m.version)].sort((a, b) => a - b),
    );
    expect(Object.isFrozen(MIGRATIONS)).toBe(true);
  });

  it('creates the schema and records each migration once, across repeated init and new storages', async () => {
    const name = schema();
    const first = storage({ schema: name });
    await first.init();
    await first.init();
    const rows = await ledger(name);
    expect(rows.map(({ version, name }) => ({ version, name }))).toEqual(
      MIGRATIONS.map(({ version, name }) => ({ version, name })),
    );
    expect(rows.every((row) => row.applied_at instanceof Date)).toBe(true);
    expect(await tables(name)).toEqual([
      'account_states',
      'accounts',
      'connections',
      'feed',
      'feed_head',
      'finsync_migrations',
      'holdings',
      'superseded_transactions',
      'transactions',
    ]);
    await storage({ schema: name }).init();
    expect(await ledger(name)).toEqual(rows);
  });

  it('five storages initializing at once migrate once', async () => {
    const name = schema();
    const many = Array.from({ length: 5 }, () => storage({ schema: name }));
    await settled(many.map((s) => s.init()));
    expect((await ledger(name)).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    // And every one of them works.
    await Promise.all(
      many.map((s, i) => s.apply({ changes: [], connections: [{ ...connection, id: `c${i}` }] })),
    );
    expect((await many[0]!.listConnections()).map((c) => c.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  it('concurrent migrate() calls report the work exactly once, fresh schema or not', async () => {
    // Several rounds: the race between creating the schema and the others waiting for the lock is
    // narrow, and each round is a new schema.
    for (let round = 0; round < 8; round += 1) {
      const name = schema();
      const results = await settled(Array.from({ length: 5 }, () => migrate(adminPool(), { schema: name })));
      expect(results.filter((r) => r.applied.length > 0)).toEqual([
        { from: 0, to: SCHEMA_VERSION, applied: MIGRATIONS.map((m) => m.version) },
      ]);
      expect((await ledger(name)).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    }
    const name = schemas[0]!;
    expect(await migrate(adminPool(), { schema: name })).toEqual({
      from: SCHEMA_VERSION,
      to: SCHEMA_VERSION,
      applied: [],
    });
    expect(await readSchemaVersion(adminPool(), name)).toBe(SCHEMA_VERSION);
  });

  it('refuses a schema migrated by newer code, with a typed error, and leaves it alone', async () => {
    const name = schema();
    await migrate(adminPool(), { schema: name });
    await adminPool().query(`INSERT INTO "${name}".finsync_migrations (version, name) VALUES ($1, $2)`, [
      SCHEMA_VERSION + 1,
      'from the future',
    ]);
    const before = await ledger(name);

    const newer = storage({ schema: name });
    const error = await newer.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect(error).toMatchObject({
      schema: name,
      databaseVersion: SCHEMA_VERSION + 1,
      supportedVersion: SCHEMA_VERSION,
    });
    expect((error as Error).message).toMatch(/newer/);
    // Every other entry point refuses too, rather than running against an unknown layout.
    await expect(newer.lastSeq()).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(newer.apply({ changes: [], connections: [connection] })).rejects.toBeInstanceOf(
      SchemaTooNewError,
    );
    await expect(storage({ schema: name, migrate: 'manual' }).init()).rejects.toBeInstanceOf(
      SchemaTooNewError,
    );
    await expect(migrate(adminPool(), { schema: name })).rejects.toBeInstanceOf(SchemaTooNewError);
    expect(await ledger(name)).toEqual(before);
    expect((await adminPool().query(`SELECT count(*)::int AS n FROM "${name}".connections`)).rows[0].n).toBe(
      0,
    );
  });

  it("migrate: 'manual' checks instead of migrating, and works once migrate() ran", async () => {
    const name = schema();
    const manual = storage({ schema: name, migrate: 'manual' });
    const error = await manual.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaOutdatedError);
    expect(error).toMatchObject({ databaseVersion: 0, supportedVersion: SCHEMA_VERSION });
    expect(await readSchemaVersion(adminPool(), name)).toBe(0);
    expect(await tables(name)).toEqual([]);

    await migrate(adminPool(), { schema: name });
    await manual.init(); // a failed init is retried, not remembered
    expect(await manual.lastSeq()).toBe(0);
  });

  it('a failing migration leaves neither its changes nor its record', async () => {
    const name = schema();
    await migrate(adminPool(), { schema: name });
    const broken: Migration = {
      version: SCHEMA_VERSION + 1,
      name: 'broken',
      up: 'CREATE TABLE half_done (x text); SELECT 1/0;',
    };
    await expect(migrate(adminPool(), { schema: name, migrations: [...MIGRATIONS, broken] })).rejects.toThrow(
      `migration ${SCHEMA_VERSION + 1} (broken) failed: division by zero`,
    );
    expect(await readSchemaVersion(adminPool(), name)).toBe(SCHEMA_VERSION);
    expect(await tables(name)).not.toContain('half_done');

    const fixed: Migration = { ...broken, name: 'fixed', up: 'CREATE TABLE done (x text)' };
    expect(await migrate(adminPool(), { schema: name, migrations: [...MIGRATIONS, fixed] })).toEqual({
      from: SCHEMA_VERSION,
      to: SCHEMA_VERSION + 1,
      applied: [SCHEMA_VERSION + 1],
    });
    // Unqualified names in a migration land in the target schema, nowhere else.
    expect(await tables(name)).toContain('done');
  });

  it('a failed first migration leaves no schema behind', async () => {
    const name = schema();
    await expect(
      migrate(adminPool(), { schema: name, migrations: [{ version: 1, name: 'bad', up: 'SELECT nope' }] }),
    ).rejects.toThrow(/migration 1 \(bad\) failed/);
    const { rows } = await adminPool().query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name]);
    expect(rows).toEqual([]);
  });

  it('rejects a migration list out of order, and unsafe schema names', async () => {
    const name = schema();
    await expect(
      migrate(adminPool(), {
        schema: name,
        migrations: [
          { version: 2, name: 'b', up: '' },
          { version: 1, name: 'a', up: '' },
        ],
      }),
    ).rejects.toThrow(TypeError);
    await expect(
      migrate(adminPool(), { schema: name, migrations: [{ version: 1.5, name: 'a', up: '' }] }),
    ).rejects.toThrow(TypeError);
    for (const bad of ['', '1abc', 'a-b', 'x"; DROP SCHEMA public; --', 'a b', 'é', 'a'.repeat(64)]) {
      expect(() => new PostgresStorage({ connectionString: url, schema: bad })).toThrow(TypeError);
      await expect(migrate(adminPool(), { schema: bad })).rejects.toThrow(TypeError);
    }
    expect(await readSchemaVersion(adminPool(), name)).toBe(0);
  });

  it('keeps the case of a mixed-case schema name', async () => {
    const name = `Mixed_${freshSchemaName()}`;
    schemas.push(name);
    const mixed = storage({ schema: name });
    await mixed.apply({ changes: [], connections: [connection] });
    const { rows } = await adminPool().query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name]);
    expect(rows).toHaveLength(1);
    expect(await mixed.getConnection('c1')).toEqual(connection);
  });
});

const connection = {
  id: 'c1',
  status: 'active' as const,
  pausedUntil: null,
  statusReason: null,
  lastRunAt: null,
  lastSuccessAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
};
