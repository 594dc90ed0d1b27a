/**
 * `UnitOfWork.lockForUpdate` on PostgreSQL: what a PATCH reads before it writes and renders (the
 * row, locked; the key's scope; the row's account, category, merchant and tags) in two statements,
 * two round trips, where separate reads took four or more. (SQLite reads it all in one statement,
 * sqlite-lock-for-update.ts: its write lock is the whole database's.)
 */
import { TX_COLUMNS } from './columns.js';
import { lockedFromColumns, type LockedColumns, type RelatedColumns } from './lock-for-update.js';
import type { QueryResultRow } from 'pg';
import type { LockedForUpdate } from './types.js';

/**
 * The lock on schema `s` (quoted); its parameters are the key id (or null), the transaction id, the
 * user id. The key's scope comes with it: one row always, so a missing transaction still tells it.
 */
export function lockSql(s: string): string {
  // FOR UPDATE may not name the nullable side of an outer join: the row is locked in the CTE.
  return `WITH x AS (
      SELECT ${TX_COLUMNS}, locked FROM ${s}.app_transactions
      WHERE id = $2::text AND user_id = $3::text AND deleted_at IS NULL AND gone_at IS NULL FOR UPDATE
    )
    SELECT x.*,
      (SELECT scope FROM ${s}.app_api_keys WHERE id = $1::text AND revoked_at IS NULL) AS key_scope
    FROM (SELECT 1) AS one LEFT JOIN x ON true`;
}

/**
 * What the locked row refers to, read by a statement of its own that begins once the lock is held.
 * Joined into the lock's statement, it would be read as of that statement's start: under READ
 * COMMITTED a statement that waited for a row lock sees the row's newest version, but the rest of
 * the database as it was before the wait, so a merchant or tags written by the transaction it waited
 * for would be missing from the answer. Parameters: account, category, merchant and transaction id.
 */
export function relatedSql(s: string): string {
  return `SELECT a.name AS account_name, a.account_type,
      c.name AS category_name, c.color AS category_color, c.icon AS category_icon,
      m.name AS merchant_name,
      (SELECT json_agg(json_build_array(t.id, t.name, t.color) ORDER BY tt.position)
        FROM ${s}.app_transaction_tags tt JOIN ${s}.app_tags t ON t.id = tt.tag_id
        WHERE tt.transaction_id = $4::text) AS tags
    FROM (SELECT 1) AS one
      LEFT JOIN ${s}.app_accounts a ON a.id = $1::text
      LEFT JOIN ${s}.app_categories c ON c.id = $2::text
      LEFT JOIN ${s}.app_merchants m ON m.id = $3::text`;
}

/** Both statements per schema, written once: a PATCH is the server's busiest write. */
const statementsBySchema = new Map<string, { lock: string; related: string }>();

function statementsFor(s: string): { lock: string; related: string } {
  let statements = statementsBySchema.get(s);
  if (!statements) statementsBySchema.set(s, (statements = { lock: lockSql(s), related: relatedSql(s) }));
  return statements;
}

/**
 * `lockForUpdate` on PostgreSQL: two round trips (the lock with the key's scope, then what the row
 * refers to) where separate reads took four or more.
 */
export async function lockForUpdate(
  rows: <T extends QueryResultRow>(sql: string, params: unknown[]) => Promise<T[]>,
  s: string,
  userId: string,
  id: string,
  keyId: string | undefined,
): Promise<LockedForUpdate> {
  const statements = statementsFor(s);
  const found = (await rows<LockedColumns>(statements.lock, [keyId ?? null, id, userId]))[0]!;
  if (found.id === null) return lockedFromColumns(found, undefined);
  const refers = (
    await rows<RelatedColumns>(statements.related, [
      found.account_id,
      found.category_id,
      found.merchant_id,
      found.id,
    ])
  )[0]!;
  return lockedFromColumns(found, refers);
}
