/**
 * `UnitOfWork` on SQLite: plain statements, run while `SqliteAppStore.atomically` holds the connection.
 * What a PATCH calls answers at once (no promise), so a PATCH runs synchronously (steps.ts).
 */
import { insertTransactionSql, insertTransactionValues, TX_COLUMNS } from './columns.js';
import { sqliteRelatedReads } from './sqlite-reads.js';
import { lockForUpdate } from './sqlite-lock-for-update.js';
import { keyedStatements, prepareCached, type Db } from './sqlite-schema.js';
import {
  MAX_CREATED_TRANSACTIONS_PER_USER,
  UPDATABLE_COLUMNS,
  type AccountRecord,
  type UnitOfWork,
  type FeedTransaction,
  type LockableField,
  type StoredTransaction,
  type TransactionRow,
  type TransactionUpdate,
} from './types.js';

export const parseLocked = (locked: string) => JSON.parse(locked) as LockableField[];

/** Values as SQLite STRICT tables take them: booleans as 0/1, lists as JSON text. */
function toSqlite(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value)) return JSON.stringify(value);
  return value;
}

/** The updatable columns in one order: which of them an update gives says its SET list, as bits. */
const UPDATE_ORDER = [...UPDATABLE_COLUMNS] as Array<keyof TransactionUpdate>;
const UPDATE_POSITION = new Map<string, number>(UPDATE_ORDER.map((column, i) => [column, i]));
/** The `UPDATE` of each SET list, by its bits. */
const updateStatement = keyedStatements((given: number) => {
  const set = UPDATE_ORDER.filter((_, i) => given & (1 << i)).map((column) => `${column} = ?`);
  return `UPDATE app_transactions SET ${set.join(', ')} WHERE id = ?`;
});

const READ_LIVE = `SELECT ${TX_COLUMNS}, locked FROM app_transactions WHERE id = ? AND user_id = ? AND deleted_at IS NULL AND gone_at IS NULL`;
const READ_DELETED = `SELECT ${TX_COLUMNS}, locked FROM app_transactions WHERE id = ? AND user_id = ? AND deleted_at IS NOT NULL AND gone_at IS NULL`;

/** The user's transaction: live ones, or with `deleted` only deleted ones. */
export function readTransaction(
  db: Db,
  userId: string,
  id: string,
  deleted = false,
): StoredTransaction | undefined {
  const row = prepareCached(db, deleted ? READ_DELETED : READ_LIVE).get(id, userId) as
    (TransactionRow & { locked: string }) | undefined;
  return row && { ...row, locked: parseLocked(row.locked) };
}

/** The statements of `UnitOfWork`, on the connection its open database transaction holds. */
export function sqliteUnitOfWork(db: Db): UnitOfWork {
  const insertSql = insertTransactionSql('app_transactions', () => '?');
  const run = (sql: string, ...params: unknown[]) => prepareCached(db, sql).run(...params);
  const get = <T>(sql: string, ...params: unknown[]) =>
    prepareCached(db, sql).get(...params) as T | undefined;
  // Inside the open database transaction: no gate to pass, and no lock of their own to take.
  const reads = sqliteRelatedReads(db, (read) => read());
  return {
    ...reads,
    insertUser: async (user) => {
      run(
        'INSERT INTO app_users (id, name, created_at) VALUES (?, ?, ?)',
        user.id,
        user.name,
        user.created_at,
      );
    },
    insertCategory: async (userId, c) => {
      run(
        'INSERT INTO app_categories (id, user_id, name, color, icon, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        c.id,
        userId,
        c.name,
        c.color,
        c.icon,
        new Date().toISOString(),
      );
    },
    lockTransaction: (userId, id, options) => readTransaction(db, userId, id, options?.deleted),
    lockForUpdate: (userId, id, keyId) => lockForUpdate(db, userId, id, keyId),
    setDeleted: async (id, at) => {
      run('UPDATE app_transactions SET deleted_at = ? WHERE id = ?', at, id);
    },
    removeTransaction: async (id) => {
      run('DELETE FROM app_transactions WHERE id = ?', id);
    },
    countCreatedTransaction: async (userId) =>
      prepareCached(
        db,
        `UPDATE app_users SET created_transactions = created_transactions + 1
         WHERE id = ? AND created_transactions < ?`,
      ).run(userId, MAX_CREATED_TRANSACTIONS_PER_USER).changes === 1,
    uncountCreatedTransaction: async (userId) => {
      run(
        'UPDATE app_users SET created_transactions = max(created_transactions - 1, 0) WHERE id = ?',
        userId,
      );
    },
    transactionTagIds: async (transactionId) =>
      (
        prepareCached(
          db,
          'SELECT tag_id FROM app_transaction_tags WHERE transaction_id = ? ORDER BY position',
        ).all(transactionId) as Array<{ tag_id: string }>
      ).map((r) => r.tag_id),
    findByExternalId: async (accountId, source, externalId) => {
      const row = get<TransactionRow & { locked: string }>(
        `SELECT ${TX_COLUMNS}, locked FROM app_transactions
         WHERE account_id = ? AND source = ? AND external_id = ? AND deleted_at IS NULL AND gone_at IS NULL LIMIT 1`,
        accountId,
        source,
        externalId,
      );
      return row && { ...row, locked: parseLocked(row.locked) };
    },
    findCreatedThroughApi: async (accountId, source, externalId) =>
      get<{ id: string }>(
        `SELECT id FROM app_transactions
         WHERE account_id = ? AND source = ? AND external_id = ? AND substr(feed_key, 1, 4) = 'api:'
           AND external_id <> '' AND deleted_at IS NULL AND gone_at IS NULL`,
        accountId,
        source,
        externalId,
      )?.id,
    updateTransaction: (id, update) => {
      // The SET list as bits of UPDATE_ORDER, its statement found by them: building its SQL and
      // hashing it for the statement cache on every PATCH cost more than the UPDATE's bindings.
      let given = 0;
      const byPosition: unknown[] = [];
      for (const column in update) {
        const value = update[column as keyof TransactionUpdate];
        if (value === undefined) continue;
        const position = UPDATE_POSITION.get(column);
        if (position === undefined) throw new Error(`not an updatable column: ${column}`);
        given |= 1 << position;
        byPosition[position] = toSqlite(value);
      }
      if (given === 0) return;
      const values: unknown[] = [];
      for (let i = 0; i < byPosition.length; i++) if (given & (1 << i)) values.push(byPosition[i]);
      values.push(id);
      updateStatement(db, given).run(...values);
    },
    replaceTransactionTags: (transactionId, tagIds) => {
      run('DELETE FROM app_transaction_tags WHERE transaction_id = ?', transactionId);
      const insert = prepareCached(
        db,
        'INSERT INTO app_transaction_tags (transaction_id, tag_id, position) VALUES (?, ?, ?)',
      );
      tagIds.forEach((tag, position) => insert.run(transactionId, tag, position));
    },
    lockFeedCursor: async (connectionId) =>
      get<{ seq: number }>('SELECT seq FROM app_feed_cursors WHERE connection_id = ?', connectionId)?.seq ??
      0,
    setFeedCursor: async (connectionId, seq) => {
      run(
        'INSERT INTO app_feed_cursors (connection_id, seq) VALUES (?, ?) ON CONFLICT (connection_id) DO UPDATE SET seq = excluded.seq',
        connectionId,
        seq,
      );
    },
    findAccount: async (userId, providerAccountId) =>
      get<{ id: string; currency: string | null }>(
        'SELECT id, currency FROM app_accounts WHERE user_id = ? AND provider_account_id = ?',
        userId,
        providerAccountId,
      ),
    insertAccount: async (a: AccountRecord) => {
      const now = new Date().toISOString();
      run(
        'INSERT INTO app_accounts (id, user_id, provider_account_id, name, account_type, currency, balance, state, institution_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
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
        now,
      );
    },
    updateAccount: async (id, f) => {
      // Every sync writes each account; only one that moved is dated again.
      run(
        `UPDATE app_accounts
         SET name = @name, account_type = @account_type, currency = @currency, balance = @balance,
           state = @state, institution_name = @institution_name, updated_at = @now
         WHERE id = @id AND (name, account_type, currency, balance, state, institution_name)
           IS NOT (@name, @account_type, @currency, @balance, @state, @institution_name)`,
        { ...f, id, now: new Date().toISOString() },
      );
    },
    findFeedTransaction: async (accountId, key): Promise<FeedTransaction | undefined> => {
      const row = get<TransactionRow & { locked: string; deleted_at: string | null; gone_at: string | null }>(
        `SELECT ${TX_COLUMNS}, locked, deleted_at, gone_at FROM app_transactions WHERE account_id = ? AND feed_key = ?`,
        accountId,
        key,
      );
      if (!row) return undefined;
      const { deleted_at, gone_at, ...rest } = row;
      return {
        ...rest,
        locked: parseLocked(row.locked),
        deleted: deleted_at !== null,
        gone: gone_at !== null,
      };
    },
    ensureMerchant: async (userId, name, newId) => {
      run(
        'INSERT INTO app_merchants (id, user_id, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id, name) DO NOTHING',
        newId,
        userId,
        name,
        new Date().toISOString(),
      );
      return get<{ id: string }>('SELECT id FROM app_merchants WHERE user_id = ? AND name = ?', userId, name)!
        .id;
    },
    insertTransaction: async (t) => {
      run(insertSql, ...insertTransactionValues(t).map(toSqlite));
    },
  };
}
