/**
 * The reads that validate and render a transaction, on a better-sqlite3 connection: the store runs
 * them behind its gate, an open unit of work runs them directly (inside it, they share its one lock
 * instead of each taking and releasing its own — most of a point read's cost in WAL mode).
 */
import { prepareCached, type Db } from './sqlite-schema.js';
import { thenApply, type Awaitable } from './steps.js';
import type { Category, Merchant, OwnedKind, RelatedReads, Tag } from './types.js';

const OWNED_TABLES: Record<OwnedKind, string> = {
  category: 'app_categories',
  merchant: 'app_merchants',
  tag: 'app_tags',
};

export const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/** `wrap` runs each read: at once inside a unit of work, behind the store's gate outside one. */
export function sqliteRelatedReads(db: Db, wrap: <T>(read: () => T) => Awaitable<T>): RelatedReads {
  const all = <T>(sql: string, params: unknown[]) => wrap(() => prepareCached(db, sql).all(...params) as T[]);
  const none = wrap(() => []);
  return {
    ownedIds: (kind, userId, ids) =>
      ids.length === 0
        ? wrap(() => new Set<string>())
        : thenApply(
            all<{ id: string }>(
              `SELECT id FROM ${OWNED_TABLES[kind]} WHERE user_id = ? AND id IN (${marks(ids)})`,
              [userId, ...ids],
            ),
            (rows) => new Set(rows.map((r) => r.id)),
          ),
    accountsByIds: (ids) =>
      ids.length === 0
        ? none
        : all(`SELECT id, name, account_type FROM app_accounts WHERE id IN (${marks(ids)})`, ids),
    categoriesByIds: (ids) =>
      ids.length === 0
        ? none
        : all<Category>(`SELECT id, name, color, icon FROM app_categories WHERE id IN (${marks(ids)})`, ids),
    merchantsByIds: (ids) =>
      ids.length === 0
        ? none
        : all<Merchant>(`SELECT id, name FROM app_merchants WHERE id IN (${marks(ids)})`, ids),
    tagsOfTransactions: (transactionIds) =>
      transactionIds.length === 0
        ? none
        : all<Tag & { transaction_id: string }>(
            `SELECT tt.transaction_id, t.id, t.name, t.color FROM app_transaction_tags tt JOIN app_tags t ON t.id = tt.tag_id
             WHERE tt.transaction_id IN (${marks(transactionIds)}) ORDER BY tt.position`,
            transactionIds,
          ),
  };
}
