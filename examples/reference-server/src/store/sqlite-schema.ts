/**
 * The app's own tables on SQLite, in the same file as the engine's mirror (one file to back up).
 * They hold the app's model: users and keys, and the service's view of accounts and transactions,
 * which the change feed keeps up to date. `postgres-schema.ts` is the same model on PostgreSQL.
 */
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { registerDecimalCompare } from './sqlite-decimal.js';

type Db = Database.Database;

/** @internal Every version of the app tables, oldest first; exported for the migration tests. */
export const MIGRATIONS: Array<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE app_users (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE app_api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        key_hash BLOB NOT NULL UNIQUE,
        scope TEXT NOT NULL CHECK (scope IN ('read', 'read_write')),
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        last_used_at TEXT
      ) STRICT;
      CREATE TABLE app_provider_credentials (
        user_id TEXT PRIMARY KEY REFERENCES app_users(id) ON DELETE CASCADE,
        sealed_key TEXT NOT NULL,
        base_url TEXT,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE app_accounts (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        provider_account_id TEXT NOT NULL,
        name TEXT NOT NULL,
        account_type TEXT NOT NULL,
        currency TEXT,
        balance TEXT,
        state TEXT NOT NULL,
        UNIQUE (user_id, provider_account_id)
      ) STRICT;
      CREATE TABLE app_categories (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        color TEXT NOT NULL,
        icon TEXT NOT NULL,
        UNIQUE (user_id, name)
      ) STRICT;
      CREATE TABLE app_merchants (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        UNIQUE (user_id, name)
      ) STRICT;
      CREATE TABLE app_tags (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        color TEXT NOT NULL,
        UNIQUE (user_id, name)
      ) STRICT;
      CREATE TABLE app_transactions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        account_id TEXT NOT NULL REFERENCES app_accounts(id) ON DELETE CASCADE,
        feed_key TEXT NOT NULL,
        external_id TEXT NOT NULL,
        source TEXT NOT NULL,
        date TEXT NOT NULL,
        amount TEXT NOT NULL,
        currency TEXT NOT NULL,
        name TEXT NOT NULL,
        notes TEXT,
        category_id TEXT REFERENCES app_categories(id),
        merchant_id TEXT REFERENCES app_merchants(id),
        is_pending INTEGER NOT NULL,
        locked TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (account_id, feed_key)
      ) STRICT;
      CREATE INDEX app_transactions_by_user_date ON app_transactions (user_id, date DESC, id);
      CREATE TABLE app_transaction_tags (
        transaction_id TEXT NOT NULL REFERENCES app_transactions(id) ON DELETE CASCADE,
        tag_id TEXT NOT NULL REFERENCES app_tags(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (transaction_id, tag_id)
      ) STRICT;
      CREATE TABLE app_feed_cursors (
        connection_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    // Deleted transactions stay as tombstones, so a later sync never brings them back; rows created
    // through the API are idempotent per account, source and external id.
    version: 2,
    sql: `
      ALTER TABLE app_transactions ADD COLUMN deleted_at TEXT;
      CREATE UNIQUE INDEX app_transactions_api_idempotency ON app_transactions (account_id, source, external_id)
        WHERE substr(feed_key, 1, 4) = 'api:' AND external_id <> '';
      CREATE INDEX app_transactions_deleted ON app_transactions (user_id, deleted_at)
        WHERE deleted_at IS NOT NULL;
    `,
  },
  {
    // The last sync's result survives a restart.
    version: 3,
    sql: `
      CREATE TABLE app_last_syncs (
        user_id TEXT PRIMARY KEY REFERENCES app_users(id) ON DELETE CASCADE,
        summary TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    // A synced row the provider stopped listing is kept, not deleted, when the user edited or
    // deleted it: listed again, it comes back with the user's edits, or stays deleted (feed.ts).
    // Until then it is shown nowhere, not even among the deleted ones.
    version: 4,
    sql: `ALTER TABLE app_transactions ADD COLUMN gone_at TEXT;`,
  },
  {
    // The list's order, over the rows it shows: a page is read off the index, and its total counted
    // there. Before, a page 150 deep read every one of the user's rows (their notes too, which come
    // before deleted_at and gone_at in each row) and sorted each day's: 70 ms at 30,000 rows, against 1 ms.
    version: 5,
    sql: `CREATE INDEX app_transactions_listed ON app_transactions (user_id, date DESC, created_at DESC, id)
      WHERE deleted_at IS NULL AND gone_at IS NULL;`,
  },
  {
    // How many transactions each user created through the API, kept as they come and go: a create
    // checks the bound against it (a count of the rows made bulk imports quadratic).
    version: 6,
    sql: `
      ALTER TABLE app_users ADD COLUMN created_transactions INTEGER NOT NULL DEFAULT 0;
      UPDATE app_users SET created_transactions = (
        SELECT count(*) FROM app_transactions t
        WHERE t.user_id = app_users.id AND substr(t.feed_key, 1, 4) = 'api:'
      );
    `,
  },
  {
    // A create with an external_id (and a restore) looks its key up among the live rows: without this
    // it read every row of the account, twice a create (81-92 ms against 2 ms at 27,000 rows), so a
    // bulk import with keys was quadratic.
    version: 7,
    sql: `CREATE INDEX app_transactions_by_key ON app_transactions (account_id, source, external_id)
      WHERE deleted_at IS NULL AND gone_at IS NULL;`,
  },
  {
    // The service renders when each account, category, merchant and tag was made and last changed,
    // and an account's bank (filled in by the next sync).
    // Rows from before are dated as closely as the file tells: categories with their user (they are
    // made with it), accounts and merchants with their first transaction, else (and tags) now.
    version: 8,
    sql: `
      ALTER TABLE app_accounts ADD COLUMN created_at TEXT NOT NULL DEFAULT '';
      ALTER TABLE app_accounts ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
      ALTER TABLE app_accounts ADD COLUMN institution_name TEXT;
      ALTER TABLE app_categories ADD COLUMN created_at TEXT NOT NULL DEFAULT '';
      ALTER TABLE app_merchants ADD COLUMN created_at TEXT NOT NULL DEFAULT '';
      ALTER TABLE app_tags ADD COLUMN created_at TEXT NOT NULL DEFAULT '';
      -- Each first row found in one pass over the transactions (a lookup per account or merchant
      -- would read them all again for each: there is no index by merchant).
      UPDATE app_accounts SET created_at = earliest.at
        FROM (SELECT account_id, min(created_at) AS at FROM app_transactions GROUP BY account_id) AS earliest
        WHERE app_accounts.id = earliest.account_id;
      UPDATE app_merchants SET created_at = earliest.at
        FROM (SELECT merchant_id, min(created_at) AS at FROM app_transactions
              WHERE merchant_id IS NOT NULL GROUP BY merchant_id) AS earliest
        WHERE app_merchants.id = earliest.merchant_id;
      UPDATE app_categories SET created_at = u.created_at FROM app_users u WHERE u.id = app_categories.user_id;
      UPDATE app_accounts SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE created_at = '';
      UPDATE app_merchants SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE created_at = '';
      UPDATE app_tags SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
      UPDATE app_accounts SET updated_at = created_at;
    `,
  },
];

/** Removes group and other permissions from a file, if it exists. */
function tighten(file: string): void {
  try {
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) chmodSync(file, mode & 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * The database holds every user's transactions and sealed keys: mode 0600. The file is created 0600
 * before SQLite opens it, and SQLite gives the -wal, -shm and -journal files it creates the mode of
 * the database file; so no process-wide umask is changed and there is no window at 0644. Files left
 * with looser modes by older releases are tightened (chmod) on open. Windows has no POSIX modes.
 */
function makePrivate(filename: string, when: 'before' | 'after'): void {
  if (process.platform === 'win32' || filename === ':memory:' || filename === '') return;
  if (when === 'before') closeSync(openSync(filename, 'a', 0o600));
  for (const suffix of ['', '-wal', '-shm', '-journal']) tighten(`${filename}${suffix}`);
}

/** The connection's page cache, at most (KiB): 64 MiB. */
const PAGE_CACHE_KIB = 65_536;

/** Opens (creating and migrating) the database file; `:memory:` for a throwaway one. */
export function openDatabase(filename: string): Db {
  makePrivate(filename, 'before');
  const db = new Database(filename);
  if (filename !== ':memory:') db.pragma('journal_mode = WAL');
  // The WAL files exist from here; they should already be 0600, this makes sure.
  makePrivate(filename, 'after');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // A filtered list (a search, an amount bound) reads each of the user's rows through the list's
  // index, in the index's order, not the table's: with SQLite's 2 MiB default, every read missed the
  // cache once the table outgrew it (880 ms for a search over 100,000 rows; 160 ms with 64 MiB). The
  // cache takes memory only as pages are read, up to this bound.
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  registerDecimalCompare(db);
  db.exec(
    'CREATE TABLE IF NOT EXISTS app_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT',
  );
  const applied = new Set(
    (db.prepare('SELECT version FROM app_migrations').all() as Array<{ version: number }>).map(
      (r) => r.version,
    ),
  );
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO app_migrations (version, applied_at) VALUES (?, ?)').run(
        migration.version,
        new Date().toISOString(),
      );
    })();
  }
  return db;
}

export type { Db };

const caches = new WeakMap<Db, Map<string, Database.Statement>>();
/** Reads whose rows are named by `prepareCachedRows`, apart from `caches`: the same SQL may be wanted both ways. */
const rowCaches = new WeakMap<Db, Map<string, RowsStatement<object>>>();
/** One-row reads that SQLite writes as JSON (`prepareCachedJsonRow`), by their SQL as given. */
const jsonRowCaches = new WeakMap<Db, Map<string, JsonRowStatement<object>>>();
const STATEMENT_CACHE_SIZE = 256;

/**
 * A prepared statement for `sql`, reused across calls: preparing is most of the cost of a small query
 * (a PATCH runs about ten). Queries built with a variable number of `?` make distinct strings, so the
 * cache is bounded, oldest first out. A hit is not moved to the end (as a least-recently-used cache
 * would): that costs a delete and an insert on every call, and a busy statement pushed out is only
 * prepared again, once.
 */
export function prepareCached(db: Db, sql: string): Database.Statement {
  return cached(caches, db, sql, () => db.prepare(sql));
}

/** A read whose rows come as objects named by the statement's own columns (`prepareCachedRows`). */
export interface RowsStatement<R = Record<string, unknown>> {
  get(...params: unknown[]): R | undefined;
  all(...params: unknown[]): R[];
}

/**
 * `prepareCached` for a read whose rows are named here: they come as arrays (`raw`) and are named
 * from the statement's column names, taken once, by one loop, or by `named`, an object literal of the
 * columns by position, where a read is hot enough for it. On Node 20 better-sqlite3 builds a row
 * object through V8's API a column at a time, looking each name up in V8's string table: for the
 * PATCH's locked read of 22 columns that cost more than its SQL, 358k instructions a PATCH against
 * 341k with the loop and 322k with a literal (docs/benchmarks.md, "Reference-server PATCH"; that read
 * now takes `prepareCachedJsonRow`, cheaper still). A
 * literal's keys are checked against the statement's columns when it is prepared, so a column added
 * to the SQL fails at once instead of shifting every name after it. The rows are the objects
 * better-sqlite3 would give, with the same keys in the same order. Past about 19 columns an object
 * the loop builds falls into V8's slow dictionary mode (as better-sqlite3's would): a wider read
 * wants a literal.
 */
export function prepareCachedRows<R extends object = Record<string, unknown>>(
  db: Db,
  sql: string,
  named?: (values: unknown[]) => R,
): RowsStatement<R> {
  return cached(rowCaches, db, sql, () => {
    const statement = db.prepare(sql).raw(true);
    const names = statement.columns().map((column) => column.name);
    if (named && Object.keys(named([])).join() !== names.join())
      throw new Error(`the statement selects ${names.join(', ')}, not ${Object.keys(named([])).join(', ')}`);
    const name =
      named ??
      ((values: unknown[]) => {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
        return row as R;
      });
    return {
      get: (...params) => {
        const values = statement.get(...params) as unknown[] | undefined;
        return values === undefined ? undefined : name(values);
      },
      all: (...params) => (statement.all(...params) as unknown[][]).map(name),
    };
  }) as RowsStatement<R>;
}

/** A one-row read whose row SQLite writes as JSON (`prepareCachedJsonRow`). */
export interface JsonRowStatement<R> {
  get(...params: unknown[]): R | undefined;
}

/** Declared column types whose values JSON carries exactly; an expression's column has none. */
const EXACT_IN_JSON = /^(?:TEXT|INTEGER)$/i;

/**
 * A one-row read for the busiest path, named by `named` as `prepareCachedRows` names it, whose row
 * SQLite writes as one JSON array (`json_array` over the statement as a subquery) and `JSON.parse`
 * reads: better-sqlite3 builds even a raw row through V8's API a value at a time, which for the
 * PATCH's lock of 22 columns cost more than its SQL, and the text and one parse cost half as much
 * (296.7k → 284.5k instructions a PATCH; docs/benchmarks.md, "Reference-server PATCH"). Columns named
 * in `jsonColumns` hold JSON text and come parsed. JSON carries text, integers and null exactly, not
 * a REAL (written with 15 digits) or a BLOB (refused): a column declared otherwise is refused when
 * the statement is prepared, as are names that are not `named`'s.
 */
export function prepareCachedJsonRow<R extends object>(
  db: Db,
  sql: string,
  named: (values: unknown[]) => R,
  jsonColumns: readonly string[] = [],
): JsonRowStatement<R> {
  return cached(jsonRowCaches, db, sql, () => {
    const columns = db.prepare(sql).columns();
    const names = columns.map((column) => column.name);
    if (Object.keys(named([])).join() !== names.join())
      throw new Error(`the statement selects ${names.join(', ')}, not ${Object.keys(named([])).join(', ')}`);
    for (const column of columns)
      if (column.type !== null && !EXACT_IN_JSON.test(column.type))
        throw new Error(`column ${column.name} is ${column.type}, which JSON does not carry exactly`);
    const values = names.map((name) => {
      const quoted = `"${name.replaceAll('"', '""')}"`;
      return jsonColumns.includes(name) ? `json(${quoted})` : quoted;
    });
    const statement = db.prepare(`SELECT json_array(${values.join(', ')}) FROM (${sql})`).pluck(true);
    return {
      get: (...params) => {
        const text = statement.get(...params) as string | undefined;
        return text === undefined ? undefined : named(JSON.parse(text) as unknown[]);
      },
    };
  }) as JsonRowStatement<R>;
}

/**
 * `prepareCached` for statements a caller finds by a key of its own (a number, say) rather than by
 * their SQL text: for a statement whose text would otherwise be built and hashed on every call.
 * `sqlFor` writes a key's SQL, on a miss only. Each call of this makes a cache of its own, bounded as
 * `prepareCached`'s.
 */
export function keyedStatements<K>(sqlFor: (key: K) => string): (db: Db, key: K) => Database.Statement {
  const keyed = new WeakMap<Db, Map<K, Database.Statement>>();
  return (db, key) => cached(keyed, db, key, () => db.prepare(sqlFor(key)));
}

function cached<K, S>(caches: WeakMap<Db, Map<K, S>>, db: Db, key: K, prepare: () => S): S {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let statement = cache.get(key);
  if (statement) return statement;
  statement = prepare();
  if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, statement);
  return statement;
}
