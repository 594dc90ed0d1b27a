/** `UnitOfWork` on PostgreSQL: statements on the client of its open database transaction, locking what they read. */
import { insertTransactionSql, insertTransactionValues, TX_COLUMNS } from './columns.js';
import type { PoolClient, QueryResultRow } from 'pg';
import type {
  UnitOfWork,
  FeedTransaction,
  LockableField,
  StoredTransaction,
  TransactionRow,
} from './types.js';
import { MAX_CREATED_TRANSACTIONS_PER_USER, UPDATABLE_COLUMNS } from './types.js';
import { postgresRelatedReads } from './postgres-reads.js';
import { lockForUpdate } from './postgres-lock-for-update.js';

export type Queryable = Pick<PoolClient, 'query'>;

/**
 * The advisory lock class of a transaction's key (`FSTK`), beside @finsync/postgres's migration and
 * feed classes in the same two-int lock space.
 */
const TRANSACTION_KEY_LOCK = 0x4653544b;

export async function rows<T extends QueryResultRow>(db: Queryable, sql: string, params: unknown[] = []) {
  return (await db.query<T>(sql, params)).rows;
}

export function storedTransaction(row: TransactionRow & { locked: string }): StoredTransaction {
  return { ...row, locked: JSON.parse(row.locked) as LockableField[] };
}

/**
 * `client`, taking one query at a time: the unit's reads may be asked for together (a render asks
 * for four), and pg is to refuse a query sent while its client is busy (deprecated since 8.x, an error
 * in pg@9). One client runs one query at a time anyway, so this costs no round trip.
 */
export function oneQueryAtATime(client: Queryable): Queryable {
  let previous: Promise<unknown> = Promise.resolve();
  const query = (...args: unknown[]) => {
    const next = previous.then(() => (client.query as (...a: unknown[]) => Promise<unknown>)(...args));
    previous = next.catch(() => undefined);
    return next;
  };
  return { query } as Queryable;
}

/**
 * The statements of `UnitOfWork`, on the client that holds its open database transaction (wrapped by
 * `oneQueryAtATime`, as are the transaction's own BEGIN, COMMIT and ROLLBACK, so every statement runs
 * in the order it was sent); `s` is the quoted schema.
 */
export function postgresUnitOfWork(client: Queryable, s: string): UnitOfWork {
  const insertSql = insertTransactionSql(`${s}.app_transactions`, (n) => `$${n}`);
  const run = async (sql: string, params: unknown[]) => {
    await client.query(sql, params);
  };
  return {
    ...postgresRelatedReads((sql, params) => rows(client, sql, params), s),
    insertUser: (u) =>
      run(`INSERT INTO ${s}.app_users (id, name, created_at) VALUES ($1, $2, $3)`, [
        u.id,
        u.name,
        u.created_at,
      ]),
    insertCategory: (userId, c) =>
      run(
        `INSERT INTO ${s}.app_categories (id, user_id, name, color, icon, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [c.id, userId, c.name, c.color, c.icon, new Date().toISOString()],
      ),
    lockTransaction: async (userId, id, options) => {
      const [row] = await rows<TransactionRow & { locked: string }>(
        client,
        `SELECT ${TX_COLUMNS}, locked FROM ${s}.app_transactions
         WHERE id = $1 AND user_id = $2 AND deleted_at IS ${options?.deleted ? 'NOT ' : ''}NULL AND gone_at IS NULL
         FOR UPDATE`,
        [id, userId],
      );
      return row && storedTransaction(row);
    },
    lockForUpdate: (userId, id, keyId) =>
      lockForUpdate((sql, params) => rows(client, sql, params), s, userId, id, keyId),
    setDeleted: (id, at) => run(`UPDATE ${s}.app_transactions SET deleted_at = $2 WHERE id = $1`, [id, at]),
    removeTransaction: (id) => run(`DELETE FROM ${s}.app_transactions WHERE id = $1`, [id]),
    countCreatedTransaction: async (userId) =>
      (
        await client.query(
          `UPDATE ${s}.app_users SET created_transactions = created_transactions + 1
           WHERE id = $1 AND created_transactions < $2`,
          [userId, MAX_CREATED_TRANSACTIONS_PER_USER],
        )
      ).rowCount === 1,
    uncountCreatedTransaction: (userId) =>
      run(
        `UPDATE ${s}.app_users SET created_transactions = greatest(created_transactions - 1, 0) WHERE id = $1`,
        [userId],
      ),
    transactionTagIds: async (transactionId) =>
      (
        await rows<{ tag_id: string }>(
          client,
          `SELECT tag_id FROM ${s}.app_transaction_tags WHERE transaction_id = $1 ORDER BY position`,
          [transactionId],
        )
      ).map((r) => r.tag_id),
    findByExternalId: async (accountId, source, externalId) => {
      // The key is locked even while no live row holds it: a create and a restore of one key take
      // turns, as SQLite's write lock makes them (under READ COMMITTED each saw no holder, and both
      // committed a live row with the key). A statement of its own: joined into the read, the read's
      // snapshot would be taken before the wait, and miss the row a restore it waited for made live.
      await client.query('SELECT pg_advisory_xact_lock($1::int4, hashtext($2))', [
        TRANSACTION_KEY_LOCK,
        JSON.stringify([s, accountId, source, externalId]),
      ]);
      const [row] = await rows<TransactionRow & { locked: string }>(
        client,
        `SELECT ${TX_COLUMNS}, locked FROM ${s}.app_transactions
         WHERE account_id = $1 AND source = $2 AND external_id = $3 AND deleted_at IS NULL AND gone_at IS NULL
         LIMIT 1 FOR UPDATE`,
        [accountId, source, externalId],
      );
      return row && storedTransaction(row);
    },
    findCreatedThroughApi: async (accountId, source, externalId) => {
      const [row] = await rows<{ id: string }>(
        client,
        `SELECT id FROM ${s}.app_transactions
         WHERE account_id = $1 AND source = $2 AND external_id = $3 AND left(feed_key, 4) = 'api:'
           AND external_id <> '' AND deleted_at IS NULL AND gone_at IS NULL`,
        [accountId, source, externalId],
      );
      return row?.id;
    },
    updateTransaction: async (id, update) => {
      const entries = Object.entries(update).filter(([, value]) => value !== undefined);
      if (entries.length === 0) return;
      for (const [column] of entries)
        if (!UPDATABLE_COLUMNS.has(column)) throw new Error(`not an updatable column: ${column}`);
      await run(
        `UPDATE ${s}.app_transactions SET ${entries.map(([column], i) => `${column} = $${i + 2}`).join(', ')} WHERE id = $1`,
        [id, ...entries.map(([, value]) => (Array.isArray(value) ? JSON.stringify(value) : value))],
      );
    },
    replaceTransactionTags: async (transactionId, tagIds) => {
      await run(`DELETE FROM ${s}.app_transaction_tags WHERE transaction_id = $1`, [transactionId]);
      if (tagIds.length === 0) return;
      await run(
        `INSERT INTO ${s}.app_transaction_tags (transaction_id, tag_id, position)
         SELECT $1, tag, ordinality - 1 FROM unnest($2::text[]) WITH ORDINALITY AS x(tag, ordinality)`,
        [transactionId, tagIds],
      );
    },
    lockFeedCursor: async (connectionId) => {
      // A row to lock even before the first batch: concurrent appliers of one connection queue on it.
      await run(
        `INSERT INTO ${s}.app_feed_cursors (connection_id, seq) VALUES ($1, 0) ON CONFLICT (connection_id) DO NOTHING`,
        [connectionId],
      );
      const [row] = await rows<{ seq: string }>(
        client,
        `SELECT seq FROM ${s}.app_feed_cursors WHERE connection_id = $1 FOR UPDATE`,
        [connectionId],
      );
      return Number(row?.seq ?? 0);
    },
    setFeedCursor: (connectionId, seq) =>
      run(
        `INSERT INTO ${s}.app_feed_cursors (connection_id, seq) VALUES ($1, $2)
         ON CONFLICT (connection_id) DO UPDATE SET seq = excluded.seq`,
        [connectionId, seq],
      ),
    findAccount: async (userId, providerAccountId) =>
      (
        await rows<{ id: string; currency: string | null }>(
          client,
          `SELECT id, currency FROM ${s}.app_accounts WHERE user_id = $1 AND provider_account_id = $2`,
          [userId, providerAccountId],
        )
      )[0],
    insertAccount: (a) => {
      const now = new Date().toISOString();
      return run(
        `INSERT INTO ${s}.app_accounts (id, user_id, provider_account_id, name, account_type, currency, balance, state,
           institution_name, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
        [
          a.id,
          a.user_id,
          a.provider_account_id,
          a.name,
          a.account_type,
          a.currency,
          a.balance,
          a.state,
          a.institution_name,
          now,
        ],
      );
    },
    // Every sync writes each account; only one that moved is dated again.
    updateAccount: (id, f) =>
      run(
        `UPDATE ${s}.app_accounts
         SET name = $1, currency = $2, balance = $3, state = $4, institution_name = $5, account_type = $8, updated_at = $7
         WHERE id = $6
           AND (name, currency, balance, state, institution_name, account_type)
             IS DISTINCT FROM ($1, $2, $3, $4, $5, $8)`,
        [
          f.name,
          f.currency,
          f.balance,
          f.state,
          f.institution_name,
          id,
          new Date().toISOString(),
          f.account_type,
        ],
      ),
    findFeedTransaction: async (accountId, key): Promise<FeedTransaction | undefined> => {
      const [row] = await rows<
        TransactionRow & { locked: string; deleted_at: string | null; gone_at: string | null }
      >(
        client,
        `SELECT ${TX_COLUMNS}, locked, deleted_at, gone_at FROM ${s}.app_transactions
         WHERE account_id = $1 AND feed_key = $2 FOR UPDATE`,
        [accountId, key],
      );
      if (!row) return undefined;
      const { deleted_at, gone_at, ...rest } = row;
      return { ...storedTransaction(rest), deleted: deleted_at !== null, gone: gone_at !== null };
    },
    ensureMerchant: async (userId, name, newId) => {
      await run(
        `INSERT INTO ${s}.app_merchants (id, user_id, name, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, name) DO NOTHING`,
        [newId, userId, name, new Date().toISOString()],
      );
      const [row] = await rows<{ id: string }>(
        client,
        `SELECT id FROM ${s}.app_merchants WHERE user_id = $1 AND name = $2`,
        [userId, name],
      );
      return row!.id;
    },
    insertTransaction: (t) => run(insertSql, insertTransactionValues(t)),
  };
}
