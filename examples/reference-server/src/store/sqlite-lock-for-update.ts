/**
 * `UnitOfWork.lockForUpdate` on SQLite: the row, the key's scope and what the row refers to in one
 * statement. `BEGIN IMMEDIATE` already holds the database's write lock, so nothing can change between
 * the row and what it refers to. Measured against five separate reads, each after the event loop had
 * been idle as a server's is between requests: 9.4–9.9 µs against 16.0–16.3 µs (docs/benchmarks.md).
 */
import { TX_COLUMNS } from './columns.js';
import { lockedFromColumns, type LockedColumns, type RelatedColumns } from './lock-for-update.js';
import { prepareCachedJsonRow, type Db } from './sqlite-schema.js';
import type { LockedForUpdate } from './types.js';

// One row always: a missing transaction still tells the key's scope. Parameters, in order: the key
// id (or null), the transaction id, the user id. Tags in their assigned order
// by the aggregate's own ORDER BY (SQLite 3.44+; better-sqlite3 bundles its SQLite).
export const LOCK_FOR_UPDATE = `SELECT x.*,
    (SELECT scope FROM app_api_keys WHERE id = ? AND revoked_at IS NULL) AS key_scope,
    a.name AS account_name, a.account_type AS account_type,
    c.name AS category_name, c.color AS category_color, c.icon AS category_icon,
    m.name AS merchant_name,
    CASE WHEN EXISTS (SELECT 1 FROM app_transaction_tags WHERE transaction_id = x.id) THEN
      (SELECT json_group_array(json_array(g.id, g.name, g.color) ORDER BY tt.position)
        FROM app_transaction_tags tt JOIN app_tags g ON g.id = tt.tag_id
        WHERE tt.transaction_id = x.id)
    END AS tags
  FROM (SELECT 1) AS one
    LEFT JOIN (
      SELECT ${TX_COLUMNS}, locked FROM app_transactions
      WHERE id = ? AND user_id = ? AND deleted_at IS NULL AND gone_at IS NULL
    ) AS x ON 1
    LEFT JOIN app_accounts a ON a.id = x.account_id
    LEFT JOIN app_categories c ON c.id = x.category_id
    LEFT JOIN app_merchants m ON m.id = x.merchant_id`;

type LockRow = LockedColumns & RelatedColumns;

/** The statement's row by position (see `prepareCachedJsonRow`, which checks these names against it). */
function named(v: unknown[]): LockRow {
  return {
    id: v[0],
    account_id: v[1],
    external_id: v[2],
    source: v[3],
    date: v[4],
    amount: v[5],
    currency: v[6],
    name: v[7],
    notes: v[8],
    category_id: v[9],
    merchant_id: v[10],
    created_at: v[11],
    updated_at: v[12],
    locked: v[13],
    key_scope: v[14],
    account_name: v[15],
    account_type: v[16],
    category_name: v[17],
    category_color: v[18],
    category_icon: v[19],
    merchant_name: v[20],
    tags: v[21],
  } as LockRow;
}

export function lockForUpdate(
  db: Db,
  userId: string,
  id: string,
  keyId: string | undefined,
): LockedForUpdate {
  // Written by SQLite as one JSON array and named by a literal: better-sqlite3's own naming of these
  // 22 columns was a tenth of a lone connection's PATCH, and its raw row still more than the JSON
  // (prepareCachedJsonRow). The tags come parsed.
  const found = prepareCachedJsonRow(db, LOCK_FOR_UPDATE, named, ['tags']).get(keyId ?? null, id, userId)!;
  // The joined row holds what the row refers to too: read from it as it is, not copied.
  return lockedFromColumns(found, found as unknown as RelatedColumns);
}
