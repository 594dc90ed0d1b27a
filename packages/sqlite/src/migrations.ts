import type Database from 'better-sqlite3';
import { checkMigrationOrder, migrationFailed } from '@finsync/sync/sql';
import type { MigrationResult, MigrationStep } from '@finsync/sync/sql';
import { SchemaOutdatedError, SchemaTooNewError } from './errors.js';

export type { MigrationResult };

/** One forward-only schema step (see `MigrationStep`), run on the better-sqlite3 handle. */
export interface Migration extends MigrationStep {
  /**
   * Changes the schema. Runs synchronously inside the same transaction that records the version,
   * so a migration that throws leaves neither its changes nor its record behind.
   */
  up(db: Database.Database): void;
}

// STRICT tables make SQLite reject a value of the wrong type instead of coercing it, which is what
// keeps money TEXT: a non-STRICT column would quietly accept (and keep) a REAL.
// No foreign keys between the tables: the engine may write a connection's mirror before (or
// without) its connection state, and a transaction before its account, and the memory reference
// storage allows both.
const initialSchema = `
CREATE TABLE connections (
  id              TEXT PRIMARY KEY NOT NULL,
  status          TEXT NOT NULL,
  paused_until    TEXT,
  status_reason   TEXT,
  last_run_at     TEXT,
  last_success_at TEXT,
  created_at      TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE account_states (
  connection_id       TEXT NOT NULL,
  account_id          TEXT NOT NULL,
  watermark           TEXT,
  last_synced_at      TEXT,
  last_error          TEXT,
  holdings_supported  INTEGER CHECK (holdings_supported IN (0, 1)),
  holdings_checked_at TEXT,
  PRIMARY KEY (connection_id, account_id)
) STRICT, WITHOUT ROWID;

-- balance_* are all NULL exactly when the account has no balance.
CREATE TABLE accounts (
  connection_id      TEXT NOT NULL,
  id                 TEXT NOT NULL,
  name               TEXT NOT NULL,
  institution_name   TEXT,
  institution_logo   TEXT,
  provider           TEXT,
  upstream_status    TEXT,
  currency           TEXT,
  state              TEXT NOT NULL,
  balance_amount     TEXT,
  balance_currency   TEXT,
  balance_fetched_at TEXT,
  PRIMARY KEY (connection_id, id),
  CHECK ((balance_amount IS NULL) = (balance_fetched_at IS NULL))
) STRICT, WITHOUT ROWID;

CREATE TABLE transactions (
  connection_id TEXT NOT NULL,
  account_id    TEXT NOT NULL,
  key           TEXT NOT NULL,
  provider_id   TEXT,
  amount        TEXT NOT NULL,
  currency      TEXT,
  date          TEXT NOT NULL,
  merchant      TEXT,
  description   TEXT,
  is_pending    INTEGER NOT NULL CHECK (is_pending IN (0, 1)),
  PRIMARY KEY (connection_id, account_id, key)
) STRICT, WITHOUT ROWID;

-- The primary key columns ride along in every index of a WITHOUT ROWID table, so this one also
-- serves "ORDER BY date, key" without a sort.
CREATE INDEX transactions_by_date ON transactions (connection_id, account_id, date);
-- Pending rows are few and the engine asks for them on every run (to match them to posted rows).
CREATE INDEX transactions_pending ON transactions (connection_id, account_id, date) WHERE is_pending = 1;

CREATE TABLE holdings (
  connection_id TEXT NOT NULL,
  account_id    TEXT NOT NULL,
  key           TEXT NOT NULL,
  name          TEXT,
  ticker_symbol TEXT,
  isin          TEXT,
  cusip         TEXT,
  figi          TEXT,
  quantity      TEXT NOT NULL,
  price         TEXT,
  value         TEXT,
  cost_basis    TEXT,
  currency      TEXT,
  PRIMARY KEY (connection_id, account_id, key)
) STRICT, WITHOUT ROWID;

-- AUTOINCREMENT (not just INTEGER PRIMARY KEY) so a seq is never handed out twice, even after
-- removeConnection deletes the newest entries: a consumer's cursor must stay meaningful.
-- record is the change's record as JSON (NULL for a removal).
-- link_flags records whether the change carried replaces (1) / replacedBy (2) at all, so an entry
-- comes back with exactly the properties it was applied with, null or absent.
CREATE TABLE feed (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  connection_id TEXT NOT NULL,
  account_id    TEXT NOT NULL,
  entity        TEXT NOT NULL,
  op            TEXT NOT NULL,
  key           TEXT NOT NULL,
  record        TEXT,
  replaces      TEXT,
  replaced_by   TEXT,
  link_flags    INTEGER NOT NULL DEFAULT 0,
  at            TEXT NOT NULL
) STRICT;

CREATE INDEX feed_by_connection ON feed (connection_id, seq);
`;

// Version 2: the engine remembers rows that another key stands for (a hold listed beside its
// posted twin, a re-issued id), says why a feed entry replaces another, and checks balances
// against the rows. ledger and reconciliation are JSON text; NULL in rows written before.
const identityAndBalanceCheck = `
CREATE TABLE superseded_transactions (
  connection_id TEXT NOT NULL,
  account_id    TEXT NOT NULL,
  key           TEXT NOT NULL,
  replaced_by   TEXT NOT NULL,
  reason        TEXT NOT NULL,
  date          TEXT NOT NULL,
  record        TEXT NOT NULL,
  PRIMARY KEY (connection_id, account_id, key)
) STRICT, WITHOUT ROWID;

ALTER TABLE feed ADD COLUMN reason TEXT;
ALTER TABLE account_states ADD COLUMN ledger TEXT;
ALTER TABLE accounts ADD COLUMN reconciliation TEXT;
`;

/** Every migration this release knows, oldest first. Append only. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  { version: 1, name: 'initial schema', up: (db: Database.Database) => void db.exec(initialSchema) },
  {
    version: 2,
    name: 'superseded rows, link reasons, balance check',
    up: (db: Database.Database) => void db.exec(identityAndBalanceCheck),
  },
]);

/** The schema version this release writes: the last entry of `MIGRATIONS`. */
export const SCHEMA_VERSION: number = MIGRATIONS.at(-1)!.version;

const ledger = `
CREATE TABLE IF NOT EXISTS finsync_migrations (
  version    INTEGER PRIMARY KEY NOT NULL,
  name       TEXT NOT NULL,
  applied_at TEXT NOT NULL
) STRICT`;

/** The highest migration version recorded in the database; 0 for a database never migrated. */
export function readSchemaVersion(db: Database.Database): number {
  const hasLedger = db
    .prepare<[], { n: number }>(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'finsync_migrations'",
    )
    .get();
  if (!hasLedger?.n) return 0;
  return (
    db
      .prepare<[], { v: number | null }>('SELECT max(version) AS v FROM finsync_migrations')
      .safeIntegers(false)
      .get()?.v ?? 0
  );
}

/**
 * Brings the database up to the last of `migrations`, one transaction per migration. Safe to run
 * from several processes at once: each step takes the write lock (`BEGIN IMMEDIATE`) and re-reads
 * the version under it, so a step another process already applied is skipped.
 * @throws SchemaTooNewError when the database has a version newer than the last of `migrations`.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationResult {
  const latest = checkMigrationOrder(migrations);
  const from = readSchemaVersion(db);
  if (from > latest) throw new SchemaTooNewError(from, latest);
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    const step = db.transaction((): boolean => {
      db.exec(ledger);
      const current = readSchemaVersion(db);
      if (current > latest) throw new SchemaTooNewError(current, latest);
      if (current >= migration.version) return false;
      try {
        migration.up(db);
      } catch (error) {
        throw migrationFailed(migration, error);
      }
      db.prepare('INSERT INTO finsync_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
      return true;
    });
    if (step.immediate()) applied.push(migration.version);
  }
  return { from, to: readSchemaVersion(db), applied };
}

/**
 * For a database this process may not write to: checks that it is exactly at the last of
 * `migrations`, since it can neither migrate it nor safely read a newer layout.
 */
export function assertSchemaCurrent(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
): void {
  const latest = checkMigrationOrder(migrations);
  const version = readSchemaVersion(db);
  if (version > latest) throw new SchemaTooNewError(version, latest);
  if (version < latest) throw new SchemaOutdatedError(version, latest);
}
