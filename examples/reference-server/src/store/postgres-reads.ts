/**
 * The reads that validate and render a transaction, on PostgreSQL: the store runs them on its pool,
 * an open unit of work on its own client (so a PATCH renders what it is about to commit, on the
 * connection it already holds). `s` is the quoted schema.
 */
import type { QueryResultRow } from 'pg';
import type { Category, Merchant, OwnedKind, RelatedReads, Tag } from './types.js';

const OWNED_TABLES: Record<OwnedKind, string> = {
  category: 'app_categories',
  merchant: 'app_merchants',
  tag: 'app_tags',
};

export function postgresRelatedReads(
  rows: <T extends QueryResultRow>(sql: string, params: unknown[]) => Promise<T[]>,
  s: string,
): RelatedReads {
  const none = Promise.resolve([]);
  return {
    ownedIds: async (kind, userId, ids) => {
      if (ids.length === 0) return new Set();
      const found = await rows<{ id: string }>(
        `SELECT id FROM ${s}.${OWNED_TABLES[kind]} WHERE user_id = $1 AND id = ANY($2::text[])`,
        [userId, ids],
      );
      return new Set(found.map((r) => r.id));
    },
    accountsByIds: (ids) =>
      ids.length === 0
        ? none
        : rows(`SELECT id, name, account_type FROM ${s}.app_accounts WHERE id = ANY($1::text[])`, [ids]),
    categoriesByIds: (ids) =>
      ids.length === 0
        ? none
        : rows<Category>(`SELECT id, name, color, icon FROM ${s}.app_categories WHERE id = ANY($1::text[])`, [
            ids,
          ]),
    merchantsByIds: (ids) =>
      ids.length === 0
        ? none
        : rows<Merchant>(`SELECT id, name FROM ${s}.app_merchants WHERE id = ANY($1::text[])`, [ids]),
    tagsOfTransactions: (transactionIds) =>
      transactionIds.length === 0
        ? none
        : rows<Tag & { transaction_id: string }>(
            `SELECT tt.transaction_id, t.id, t.name, t.color
             FROM ${s}.app_transaction_tags tt JOIN ${s}.app_tags t ON t.id = tt.tag_id
             WHERE tt.transaction_id = ANY($1::text[]) ORDER BY tt.position`,
            [transactionIds],
          ),
  };
}
