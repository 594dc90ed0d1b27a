import { checkMigrationOrder, migrationFailed } from '@finsync/sync/sql';
import type { MigrationResult, MigrationStep } from '@finsync/sync/sql';
import { inTransaction, type Database } from './db.js';
import { SchemaOutdatedError, SchemaTooNewError } from './errors.js';
import { DEFAULT_SCHEMA, MIGRATION_LOCK, quoteSchema, schemaLockKey } from './schema.js';

export type { MigrationResult };

/** One forward-only schema step (see `MigrationStep`), as SQL text. */
export interface Migration extends MigrationStep {
  /**
   * SQL, possibly several statements, with unqualified table names: it runs with `search_path` set
   * to the target schema, inside the transaction that records it.
   */
  readonly up: string;
}

/** Options of `migrate()`. */
export interface MigrateOptions {
  /** The schema to migrate (a plain identifier of at most 63 characters). Default `'finsync'`. */
  schema?: string | undefined;
  /** Default `MIGRATIONS`; for tests and tooling. */
  migrations?: readonly Migration[] | undefined;
}

// Money and the model's timestamps are text: the model's exact decimal and ISO strings come back
// byte for byte, which numeric (drops trailing zeros' formatting) or timestamptz (reformats) would
// not guarantee. Only the columns this package owns and compares (leases, schedule, feed time) are
// timestamptz. Keys and ids are COLLATE "C" so ORDER BY and keyset cursors compare bytes, like the
// other adapters, whatever the database's default collation is.
// No foreign keys: the engine may write a connection's mirror before its connection state, and a
// transaction before its account, as the memory reference storage allows.
const initialSchema = `
CREATE TABLE connections (
  id               text COLLATE "C" PRIMARY KEY,
  status           text NOT NULL,
  paused_until     text,
  status_reason    text,
  last_run_at      text,
  last_success_at  text,
  created_at       text NOT NULL,
  lease_owner      text,
  lease_expires_at timestamptz,
  next_run_at      timestamptz,
  CHECK ((lease_owner IS NULL) = (lease_expires_at IS NULL))
);
-- claimDue orders the due connections by this expression.
CREATE INDEX connections_due ON connections ((COALESCE(next_run_at, '-infinity'::timestamptz)));

CREATE TABLE account_states (
  connection_id       text COLLATE "C" NOT NULL,
  account_id          text COLLATE "C" NOT NULL,
  watermark           text,
  last_synced_at      text,
  last_error          text,
  holdings_supported  boolean,
  holdings_checked_at text,
  PRIMARY KEY (connection_id, account_id)
);

-- balance_* are all NULL exactly when the account has no balance.
CREATE TABLE accounts (
  connection_id      text COLLATE "C" NOT NULL,
  id                 text COLLATE "C" NOT NULL,
  name               text NOT NULL,
  institution_name   text,
  institution_logo   text,
  provider           text,
  upstream_status    text,
  currency           text,
  state              text NOT NULL,
  balance_amount     text,
  balance_currency   text,
  balance_fetched_at text,
  PRIMARY KEY (connection_id, id),
  CHECK ((balance_amount IS NULL) = (balance_fetched_at IS NULL))
);

CREATE TABLE transactions (
  connection_id text COLLATE "C" NOT NULL,
  account_id    text COLLATE "C" NOT NULL,
  key           text COLLATE "C" NOT NULL,
  provider_id   text,
  amount        text NOT NULL,
  currency      text,
  date          text COLLATE "C" NOT NULL,
  merchant      text,
  description   text,
  is_pending    boolean NOT NULL,
  PRIMARY KEY (connection_id, account_id, key)
);

-- key is in the index (unlike SQLite, a Postgres index does not carry the primary key) so that
-- "ORDER BY date, key" of a window is read in index order without a sort.
CREATE INDEX transactions_by_date ON transactions (connection_id, account_id, date, key);
-- Pending rows are few and the engine asks for them on every run (to match them to posted rows).
CREATE INDEX transactions_pending ON transactions (connection_id, account_id, date, key) WHERE is_pending;

CREATE TABLE holdings (
  connection_id text COLLATE "C" NOT NULL,
  account_id    text COLLATE "C" NOT NULL,
  key           text COLLATE "C" NOT NULL,
  name          text,
  ticker_symbol text,
  isin          text,
  cusip         text,
  figi          text,
  quantity      text NOT NULL,
  price         text,
  value         text,
  cost_basis    text,
  currency      text,
  PRIMARY KEY (connection_id, account_id, key)
);

-- record is the change's record as JSON text (json keeps it verbatim, unlike jsonb); NULL for a
-- removal. link_flags records whether the change carried replaces (1) / replacedBy (2) at all, so
-- an entry comes back with exactly the properties it was applied with, null or absent.
CREATE TABLE feed (
  seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  connection_id text COLLATE "C" NOT NULL,
  account_id    text COLLATE "C" NOT NULL,
  entity        text NOT NULL,
  op            text NOT NULL,
  key           text COLLATE "C" NOT NULL,
  record        json,
  replaces      text,
  replaced_by   text,
  link_flags    smallint NOT NULL DEFAULT 0,
  at            timestamptz NOT NULL
);
CREATE INDEX feed_by_connection ON feed (connection_id, seq);

-- The highest seq ever committed, updated in the transaction that appends. lastSeq reads it rather
-- than max(seq), which would go backwards after removeConnection deletes the newest entries, or
-- the identity sequence, which also counts seqs of uncommitted and rolled-back batches.
CREATE TABLE feed_head (
  id       boolean PRIMARY KEY DEFAULT true CHECK (id),
  last_seq bigint NOT NULL
);
INSERT INTO feed_head (id, last_seq) VALUES (true, 0);
`;

// Version 2: the engine remembers rows that another key stands for (a hold listed beside its
// posted twin, a re-issued id), says why a feed entry replaces another, and checks balances
// against the rows. ledger and reconciliation are JSON text; NULL in rows written before.
const identityAndBalanceCheck = `
CREATE TABLE superseded_transactions (
  connection_id text COLLATE "C" NOT NULL,
  account_id    text COLLATE "C" NOT NULL,
  key           text COLLATE "C" NOT NULL,
  replaced_by   text COLLATE "C" NOT NULL,
  reason        text NOT NULL,
  date          text COLLATE "C" NOT NULL,
  record        text NOT NULL,
  PRIMARY KEY (connection_id, account_id, key)
);

ALTER TABLE feed ADD COLUMN reason text;
ALTER TABLE account_states ADD COLUMN ledger text;
ALTER TABLE accounts ADD COLUMN reconciliation text;
`;

/** Every migration this release knows, oldest first. Append only. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  Object.freeze({ version: 1, name: 'initial schema', up: initialSchema }),
  Object.freeze({
    version: 2,
    name: 'superseded rows, link reasons, balance check',
    up: identityAndBalanceCheck,
  }),
]);

/** The schema version this release writes: the last entry of `MIGRATIONS`. */
export const SCHEMA_VERSION: number = MIGRATIONS.at(-1)!.version;

/** The highest migration version recorded in the schema; 0 when it was never migrated. */
export async function readSchemaVersion(db: Database, schema: string = DEFAULT_SCHEMA): Promise<number> {
  const ledger = `${quoteSchema(schema)}.finsync_migrations`;
  const { rows } = await db.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
    ledger,
  ]);
  if (!rows[0]?.exists) return 0;
  const result = await db.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${ledger}`);
  return result.rows[0]?.version ?? 0;
}

/**
 * Brings the schema up to the last of `migrations`, creating it if needed, in one transaction under
 * a transaction-scoped advisory lock (per schema): when many workers start at once, one migrates and
 * the others wait, then find nothing left to do. A migration that fails rolls back everything this
 * call did. A schema that is already current is detected without taking the lock.
 * @throws SchemaTooNewError when the schema has a version newer than the last of `migrations`.
 */
export async function migrate(db: Database, options: MigrateOptions = {}): Promise<MigrationResult> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const migrations = options.migrations ?? MIGRATIONS;
  const latest = checkMigrationOrder(migrations);
  const seen = await readSchemaVersion(db, schema);
  if (seen > latest) throw new SchemaTooNewError(schema, seen, latest);
  if (seen === latest) return { from: seen, to: seen, applied: [] };

  return inTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [MIGRATION_LOCK, schemaLockKey(schema)]);
    // Not CREATE SCHEMA IF NOT EXISTS: that consults this session's catalog cache, which waiting
    // for an advisory lock does not refresh, so it can miss a schema another worker created while
    // we waited and fail on the duplicate. A query reads the catalog with a fresh snapshot (and,
    // by locking pg_namespace, refreshes the cache for the statements that follow).
    const { rows } = await client.query<{ present: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1) AS present',
      [schema],
    );
    if (!rows[0]?.present) await client.query(`CREATE SCHEMA ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.finsync_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    // Re-read under the lock: another worker may have migrated since the check above.
    const from = await readSchemaVersion(client, schema);
    if (from > latest) throw new SchemaTooNewError(schema, from, latest);
    // LOCAL: reverts at COMMIT/ROLLBACK, so a pooled connection goes back unchanged.
    await client.query(`SET LOCAL search_path TO ${quoted}`);
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      try {
        await client.query(migration.up);
      } catch (error) {
        throw migrationFailed(migration, error);
      }
      await client.query(`INSERT INTO ${quoted}.finsync_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return { from, to: Math.max(from, latest), applied };
  });
}

/**
 * For `migrate: 'manual'`: checks that the schema is exactly at the last of `migrations`, since
 * this code can neither use an older layout nor safely write a newer one.
 */
export async function assertSchemaCurrent(
  db: Database,
  schema: string = DEFAULT_SCHEMA,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> {
  const latest = checkMigrationOrder(migrations);
  const version = await readSchemaVersion(db, schema);
  if (version > latest) throw new SchemaTooNewError(schema, version, latest);
  if (version < latest) throw new SchemaOutdatedError(schema, version, latest);
}
