/**
 * `UnitOfWork.lockForUpdate` on PostgreSQL: one statement, one round trip, for what a PATCH reads
 * before it writes and renders (the row, locked; its account, category, merchant and tags; the key's
 * scope), where separate reads took four. It always answers one row, so a missing transaction still
 * tells the key's scope: the key is judged first. (SQLite composes the separate reads instead: there
 * they cost less than this join, sqlite-unit-of-work.ts.)
 */
import { TX_COLUMNS } from './columns.js';
import { noRelated } from './related.js';
import type { LockableField, LockedForUpdate, Scope, TransactionRow } from './types.js';

/** The statement's one row: the transaction's columns (null when there is none) beside what it refers to. */
export type LockedUpdateColumns = { [K in keyof TransactionRow]: TransactionRow[K] | null } & {
  locked: string | null;
  key_scope: Scope | null;
  account_name: string | null;
  account_type: string | null;
  category_name: string | null;
  category_color: string | null;
  category_icon: string | null;
  merchant_name: string | null;
  /** `[id, name, color]` of each tag in its assigned order (json, parsed by pg), or null for none. */
  tags: Array<[string, string, string]> | null;
};

/** The statement on schema `s` (quoted); its parameters are the key id (or null), the transaction id, the user id. */
export function lockForUpdateSql(s: string): string {
  // FOR UPDATE may not name the nullable side of an outer join: the row is locked in the CTE.
  return `WITH x AS (
      SELECT ${TX_COLUMNS}, locked FROM ${s}.app_transactions
      WHERE id = $2::text AND user_id = $3::text AND deleted_at IS NULL FOR UPDATE
    )
    SELECT x.*,
      (SELECT scope FROM ${s}.app_api_keys WHERE id = $1::text AND revoked_at IS NULL) AS key_scope,
      a.name AS account_name, a.account_type,
      c.name AS category_name, c.color AS category_color, c.icon AS category_icon,
      m.name AS merchant_name,
      (SELECT json_agg(json_build_array(t.id, t.name, t.color) ORDER BY tt.position)
        FROM ${s}.app_transaction_tags tt JOIN ${s}.app_tags t ON t.id = tt.tag_id
        WHERE tt.transaction_id = x.id) AS tags
    FROM (SELECT 1) AS one
      LEFT JOIN x ON true
      LEFT JOIN ${s}.app_accounts a ON a.id = x.account_id
      LEFT JOIN ${s}.app_categories c ON c.id = x.category_id
      LEFT JOIN ${s}.app_merchants m ON m.id = x.merchant_id`;
}

/** The statement's one row as `lockForUpdate` answers it. */
export function lockedForUpdate(found: LockedUpdateColumns): LockedForUpdate {
  const keyScope = found.key_scope ?? undefined;
  if (found.id === null) return { keyScope, row: undefined, related: noRelated() };
  const {
    key_scope: _scope,
    account_name,
    account_type,
    category_name,
    category_color,
    category_icon,
    merchant_name,
    tags,
    locked,
    ...columns
  } = found;
  const row = columns as TransactionRow;
  const related = noRelated();
  if (account_name !== null)
    related.accounts.push({ id: row.account_id, name: account_name, account_type: account_type! });
  if (row.category_id !== null && category_name !== null)
    related.categories.push({
      id: row.category_id,
      name: category_name,
      color: category_color!,
      icon: category_icon!,
    });
  if (row.merchant_id !== null && merchant_name !== null)
    related.merchants.push({ id: row.merchant_id, name: merchant_name });
  for (const [id, name, color] of tags ?? []) related.tags.push({ transaction_id: row.id, id, name, color });
  return { keyScope, row: { ...row, locked: JSON.parse(locked!) as LockableField[] }, related };
}
