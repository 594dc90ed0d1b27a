/**
 * A database from before the lookup lists carried dates is dated on open: categories with their user,
 * accounts and merchants with their first transaction, what the file cannot date with the upgrade.
 */
import { join } from 'node:path';
import { migrate } from '@finsync/postgres';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { APP_MIGRATIONS, migrateAppSchema } from '../src/store/postgres-schema.js';
import { MIGRATIONS, openDatabase } from '../src/store/sqlite-schema.js';
import { registerDecimalCompare } from '../src/store/sqlite-decimal.js';
import { BACKENDS, testDatabase } from './helpers.js';

const USER_MADE = '2026-01-02T03:04:05.678Z';
const FIRST_ROW = '2026-02-03T04:05:06.789Z';
const LATER_ROW = '2026-03-04T05:06:07.890Z';

/** The rows a release before the dates left behind: two accounts, one without rows, a merchant unused. */
const OLD_ROWS = [
  `INSERT INTO app_users (id, name, created_at) VALUES ('u', 'alice', '${USER_MADE}')`,
  `INSERT INTO app_accounts (id, user_id, provider_account_id, name, account_type, currency, balance, state)
    VALUES ('a', 'u', '1', 'Current', 'depository', 'GBP', '10.00', 'active'),
           ('b', 'u', '2', 'Empty', 'depository', 'GBP', '0.00', 'active')`,
  `INSERT INTO app_categories (id, user_id, name, color, icon) VALUES ('c', 'u', 'Groceries', '#407706', 'cart')`,
  `INSERT INTO app_merchants (id, user_id, name) VALUES ('m', 'u', 'Tesco'), ('n', 'u', 'Unused')`,
  `INSERT INTO app_tags (id, user_id, name, color) VALUES ('t', 'u', 'Holiday', '#e99537')`,
  `INSERT INTO app_transactions (id, user_id, account_id, feed_key, external_id, source, date, amount, currency,
      name, merchant_id, is_pending, created_at, updated_at)
    VALUES ('x', 'u', 'a', 'k1', 'e1', 'lunchflow', '2026-02-03', '1.00', 'GBP', 'Tesco', 'm', 0, '${LATER_ROW}', '${LATER_ROW}'),
           ('y', 'u', 'a', 'k2', 'e2', 'lunchflow', '2026-02-02', '2.00', 'GBP', 'Tesco', 'm', 0, '${FIRST_ROW}', '${LATER_ROW}')`,
];

type Rows = (table: string) => Promise<Array<Record<string, unknown>>>;

/** Makes the tables as release 7 left them, with OLD_ROWS; upgrades them; returns a reader of the result. */
async function upgradeFromVersion7(kind: 'sqlite' | 'postgres', dataDir: string, appSchema: string) {
  if (kind === 'sqlite') {
    const file = join(dataDir, 'old.db');
    const old = new Database(file);
    registerDecimalCompare(old);
    old.exec('CREATE TABLE app_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
    for (const migration of MIGRATIONS.filter((m) => m.version <= 7)) {
      old.exec(migration.sql);
      old.prepare('INSERT INTO app_migrations VALUES (?, ?)').run(migration.version, USER_MADE);
    }
    for (const sql of OLD_ROWS) old.exec(sql);
    old.close();
    const db = openDatabase(file);
    const rows: Rows = async (table) =>
      db.prepare(`SELECT * FROM ${table} ORDER BY id`).all() as Array<Record<string, unknown>>;
    return { rows, close: async () => db.close() };
  }
  const pool = new pg.Pool({ connectionString: process.env.FINSYNC_TEST_POSTGRES_URL, max: 2 });
  await migrate(pool, { schema: appSchema, migrations: APP_MIGRATIONS.filter((m) => m.version <= 7) });
  const client = await pool.connect();
  try {
    await client.query(`SET search_path TO "${appSchema}"`);
    // The pending flag is an integer on SQLite, a boolean here.
    for (const sql of OLD_ROWS) await client.query(sql.replaceAll(", 0, '", ", false, '"));
  } finally {
    client.release();
  }
  await migrateAppSchema(pool, appSchema);
  const rows: Rows = async (table) =>
    (await pool.query(`SELECT * FROM "${appSchema}".${table} ORDER BY id`)).rows;
  return { rows, close: () => pool.end() };
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`upgrading to dated lookup lists ${backend.title}`, () => {
    it('dates the rows already there as closely as the tables tell, and keeps every row', async () => {
      const { dataDir, schemas, cleanup } = testDatabase(backend);
      try {
        const before = Date.now();
        const { rows, close } = await upgradeFromVersion7(backend.kind, dataDir, schemas[1]);
        try {
          const recent = (iso: unknown) => {
            const at = Date.parse(String(iso));
            return at >= before - 1_000 && at <= Date.now() + 1_000;
          };
          const [dated, empty] = await rows('app_accounts');
          expect(dated).toMatchObject({
            id: 'a',
            created_at: FIRST_ROW,
            updated_at: FIRST_ROW,
            institution_name: null,
          });
          expect(empty!.created_at).toBe(empty!.updated_at);
          expect(recent(empty!.created_at)).toBe(true);
          expect(await rows('app_categories')).toEqual([
            expect.objectContaining({ id: 'c', created_at: USER_MADE }),
          ]);
          const [used, unused] = await rows('app_merchants');
          expect(used).toMatchObject({ id: 'm', created_at: FIRST_ROW });
          expect(recent(unused!.created_at)).toBe(true);
          const [tag] = await rows('app_tags');
          expect(recent(tag!.created_at)).toBe(true);
          expect(await rows('app_transactions')).toHaveLength(2);
        } finally {
          await close();
        }
      } finally {
        await cleanup();
      }
    });
  });
}
