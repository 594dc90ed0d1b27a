/**
 * The app's own tables on PostgreSQL, in a schema of their own (default `finsync_app`) beside the
 * engine's (`finsync`). The same model as `sqlite-schema.ts`, typed so that both stores answer alike:
 * money, dates and timestamps are `text` exactly as written (never numeric or timestamptz), and
 * every text column is `COLLATE "C"`, so ORDER BY and comparisons go by code point like SQLite's.
 *
 * Migrations are versioned and forward-only, and run by `migrate` from @finsync/postgres: all
 * pending ones in one transaction under a transaction-scoped advisory lock specific to the schema,
 * recorded in `<schema>.finsync_migrations`. Many instances starting at once: one migrates, the
 * others wait and then find nothing to do. A shipped migration is never edited; fixes are new versions.
 */
import { migrate, type Migration, type MigrationResult } from '@finsync/postgres';
import type { Pool } from 'pg';

export const APP_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'app tables',
    up: `
      CREATE TABLE app_users (
        id         text COLLATE "C" PRIMARY KEY,
        name       text COLLATE "C" NOT NULL UNIQUE,
        created_at text COLLATE "C" NOT NULL
      );
      CREATE TABLE app_api_keys (
        id           text COLLATE "C" PRIMARY KEY,
        user_id      text COLLATE "C" NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name         text COLLATE "C" NOT NULL,
        key_hash     bytea NOT NULL UNIQUE,
        scope        text COLLATE "C" NOT NULL CHECK (scope IN ('read', 'read_write')),
        created_at   text COLLATE "C" NOT NULL,
        revoked_at   text COLLATE "C",
        last_used_at text COLLATE "C"
      );
      CREATE INDEX app_api_keys_by_user ON app_api_keys (user_id);
      CREATE TABLE app_provider_credentials (
        user_id    text COLLATE "C" PRIMARY KEY REFERENCES app_users(id) ON DELETE CASCADE,
        sealed_key text COLLATE "C" NOT NULL,
        base_url   text COLLATE "C",
        updated_at text COLLATE "C" NOT NULL
      );
      CREATE TABLE app_accounts (
        id                  text COLLATE "C" PRIMARY KEY,
        user_id             text COLLATE "C" NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        provider_account_id text COLLATE "C" NOT NULL,
        name                text COLLATE "C" NOT NULL,
        account_type        text COLLATE "C" NOT NULL,
        currency            text COLLATE "C",
        balance             text COLLATE "C",
        state               text COLLATE "C" NOT NULL,
        UNIQUE (user_id, provider_account_id)
      );
      CREATE TABLE app_categories (
        id      text COLLATE "C" PRIMARY KEY,
        user_id text COLLATE "C" NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name    text COLLATE "C" NOT NULL,
        color   text COLLATE "C" NOT NULL,
        icon    text COLLATE "C" NOT NULL,
        UNIQUE (user_id, name)
      );
      CREATE TABLE app_merchants (
        id      text COLLATE "C" PRIMARY KEY,
        user_id text COLLATE "C" NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name    text COLLATE "C" NOT NULL,
        UNIQUE (user_id, name)
      );
      CREATE TABLE app_tags (
        id      text COLLATE "C" PRIMARY KEY,
        user_id text COLLATE "C" NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        name    text COLLATE "C" NOT NULL,
        color   text COLLATE "C" NOT NULL,
        UNIQUE (user_id, name)
      );
      CREATE TABLE app_transactions (
        id          text COLLATE "C" PRIMARY KEY,
        user_id     text COLLATE "C" NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
        account_id  text COLLATE "C" NOT NULL REFERENCES app_accounts(id) ON DELETE CASCADE,
        feed_key    text COLLATE "C" NOT NULL,
        external_id text COLLATE "C" NOT NULL,
        source      text COLLATE "C" NOT NULL,
        date        text COLLATE "C" NOT NULL,
        amount      text COLLATE "C" NOT NULL,
        currency    text COLLATE "C" NOT NULL,
        name        text COLLATE "C" NOT NULL,
        notes       text COLLATE "C",
        category_id text COLLATE "C" REFERENCES app_categories(id),
        merchant_id text COLLATE "C" REFERENCES app_merchants(id),
        is_pending  boolean NOT NULL,
        locked      text COLLATE "C" NOT NULL DEFAULT '[]',
        created_at  text COLLATE "C" NOT NULL,
        updated_at  text COLLATE "C" NOT NULL,
        UNIQUE (account_id, feed_key)
      );
      CREATE INDEX app_transactions_by_user_date ON app_transactions (user_id, date DESC, id);
      CREATE INDEX app_transactions_by_category ON app_transactions (category_id);
      CREATE INDEX app_transactions_by_merchant ON app_transactions (merchant_id);
      CREATE TABLE app_transaction_tags (
        transaction_id text COLLATE "C" NOT NULL REFERENCES app_transactions(id) ON DELETE CASCADE,
        tag_id         text COLLATE "C" NOT NULL REFERENCES app_tags(id) ON DELETE CASCADE,
        position       integer NOT NULL,
        PRIMARY KEY (transaction_id, tag_id)
      );
      CREATE INDEX app_transaction_tags_by_tag ON app_transaction_tags (tag_id);
      CREATE TABLE app_feed_cursors (
        connection_id text COLLATE "C" PRIMARY KEY,
        seq           bigint NOT NULL
      );
    `,
  },
  {
    // Deleted transactions stay as tombstones, so a later sync never brings them back; rows created
    // through the API are idempotent per account, source and external id.
    version: 2,
    name: 'deleted transactions, API idempotency',
    up: `
      ALTER TABLE app_transactions ADD COLUMN deleted_at text COLLATE "C";
      CREATE UNIQUE INDEX app_transactions_api_idempotency ON app_transactions (account_id, source, external_id)
        WHERE left(feed_key, 4) = 'api:' AND external_id <> '';
      CREATE INDEX app_transactions_deleted ON app_transactions (user_id, deleted_at)
        WHERE deleted_at IS NOT NULL;
    `,
  },
  {
    // The last sync's result survives a restart.
    version: 3,
    name: 'last sync results',
    up: `
      CREATE TABLE app_last_syncs (
        user_id text COLLATE "C" PRIMARY KEY REFERENCES app_users(id) ON DELETE CASCADE,
        summary text NOT NULL
      );
    `,
  },
  {
    // A synced row the provider stopped listing is kept, not deleted, when the user edited or
    // deleted it: listed again, it comes back with the user's edits, or stays deleted (feed.ts).
    // Until then it is shown nowhere, not even among the deleted ones.
    version: 4,
    name: 'rows the provider stopped listing',
    up: `ALTER TABLE app_transactions ADD COLUMN gone_at text COLLATE "C";`,
  },
  {
    // The list's order, over the rows it shows: a page is read off the index, and its total counted
    // there, instead of every one of the user's rows being read (and sorted within each day).
    version: 5,
    name: 'the transaction list in its order',
    up: `CREATE INDEX app_transactions_listed ON app_transactions (user_id, date DESC, created_at DESC, id)
      WHERE deleted_at IS NULL AND gone_at IS NULL;`,
  },
  {
    // How many transactions each user created through the API, kept as they come and go: a create
    // checks the bound against it (a count of the rows made bulk imports quadratic).
    version: 6,
    name: 'a count of the transactions each user created',
    up: `
      ALTER TABLE app_users ADD COLUMN created_transactions integer NOT NULL DEFAULT 0;
      UPDATE app_users u SET created_transactions = (
        SELECT count(*) FROM app_transactions t WHERE t.user_id = u.id AND left(t.feed_key, 4) = 'api:'
      );
    `,
  },
  {
    // A create with an external_id (and a restore) looks its key up among the live rows: without this
    // it read every row of the account, twice a create, so a bulk import with keys was quadratic.
    version: 7,
    name: 'live transactions by their key',
    up: `CREATE INDEX app_transactions_by_key ON app_transactions (account_id, source, external_id)
      WHERE deleted_at IS NULL AND gone_at IS NULL;`,
  },
  {
    // The service renders when each account, category, merchant and tag was made and last changed,
    // and an account's bank (filled in by the next sync).
    // Rows from before are dated as closely as the tables tell: categories with their user (they are
    // made with it), accounts and merchants with their first transaction, else (and tags) now.
    version: 8,
    name: 'when accounts, categories, merchants and tags were made',
    // The columns default to the time of the insert, so a server of the release before, still running
    // beside an upgraded one, can go on inserting rows.
    up: `
      ALTER TABLE app_accounts ADD COLUMN created_at text COLLATE "C" NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      ALTER TABLE app_accounts ADD COLUMN updated_at text COLLATE "C" NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      ALTER TABLE app_accounts ADD COLUMN institution_name text COLLATE "C";
      ALTER TABLE app_categories ADD COLUMN created_at text COLLATE "C" NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      ALTER TABLE app_merchants ADD COLUMN created_at text COLLATE "C" NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      ALTER TABLE app_tags ADD COLUMN created_at text COLLATE "C" NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      UPDATE app_accounts a SET created_at = earliest.at
        FROM (SELECT account_id, min(created_at) AS at FROM app_transactions GROUP BY account_id) AS earliest
        WHERE a.id = earliest.account_id;
      UPDATE app_merchants m SET created_at = earliest.at
        FROM (SELECT merchant_id, min(created_at) AS at FROM app_transactions
              WHERE merchant_id IS NOT NULL GROUP BY merchant_id) AS earliest
        WHERE m.id = earliest.merchant_id;
      UPDATE app_categories c SET created_at = u.created_at FROM app_users u WHERE u.id = c.user_id;
      UPDATE app_accounts SET updated_at = created_at;
    `,
  },
];

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/i;

/** Checks a schema name (identifiers cannot be bound as parameters) and returns it quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema) || schema.length > 63) {
    throw new TypeError(
      `a schema name must match ${SCHEMA_NAME} and be at most 63 characters, got ${JSON.stringify(schema)}`,
    );
  }
  return `"${schema}"`;
}

/** Creates or upgrades the app schema; idempotent, safe to run from many instances at once. */
export function migrateAppSchema(pool: Pool, schema: string): Promise<MigrationResult> {
  quoteSchema(schema);
  return migrate(pool, { schema, migrations: APP_MIGRATIONS });
}
