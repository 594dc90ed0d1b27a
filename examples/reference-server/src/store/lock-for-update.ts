/**
 * What both stores' `UnitOfWork.lockForUpdate` read, as columns: the row with the key's scope, and
 * what the row refers to (its account, category, merchant and tags). Each dialect writes its own
 * statements (postgres-lock-for-update.ts, sqlite-lock-for-update.ts); this turns their rows into
 * `LockedForUpdate` alike.
 */
import { noRelated } from './related.js';
import type { LockableField, LockedForUpdate, Scope, StoredTransaction, TransactionRow } from './types.js';

/** The lock's columns: the transaction's (null when there is none) and the key's scope. */
export type LockedColumns = { [K in keyof TransactionRow]: TransactionRow[K] | null } & {
  locked: string | null;
  key_scope: Scope | null;
};

/** What the row refers to, one column each. */
export interface RelatedColumns {
  account_name: string | null;
  account_type: string | null;
  category_name: string | null;
  category_color: string | null;
  category_icon: string | null;
  merchant_name: string | null;
  /** `[id, name, color]` of each tag in its assigned order, or null for none. */
  tags: Array<[string, string, string]> | null;
}

/**
 * The lock's answer from the lock's row and what the row refers to (unused, and may be undefined, when
 * the lock found no transaction).
 */
export function lockedFromColumns(found: LockedColumns, named: RelatedColumns | undefined): LockedForUpdate {
  const keyScope = found.key_scope ?? undefined;
  if (found.id === null || !named) return { keyScope, row: undefined, related: noRelated() };
  const row = storedFrom(found as unknown as TransactionRow & { locked: string });
  const related = noRelated();
  if (named.account_name !== null)
    related.accounts.push({
      id: row.account_id,
      name: named.account_name,
      account_type: named.account_type!,
    });
  if (row.category_id !== null && named.category_name !== null)
    related.categories.push({
      id: row.category_id,
      name: named.category_name,
      color: named.category_color!,
      icon: named.category_icon!,
    });
  if (row.merchant_id !== null && named.merchant_name !== null)
    related.merchants.push({ id: row.merchant_id, name: named.merchant_name });
  for (const [tagId, name, color] of named.tags ?? [])
    related.tags.push({ transaction_id: row.id, id: tagId, name, color });
  return { keyScope, row, related };
}

/**
 * The transaction's own columns (`TX_COLUMNS` and `locked`) out of a row that has others beside them,
 * named one by one: a PATCH's busiest path, where a rest copy cost more than the statement's reads.
 */
function storedFrom(c: TransactionRow & { locked: string }): StoredTransaction {
  return {
    id: c.id,
    account_id: c.account_id,
    external_id: c.external_id,
    source: c.source,
    date: c.date,
    amount: c.amount,
    currency: c.currency,
    name: c.name,
    notes: c.notes,
    category_id: c.category_id,
    merchant_id: c.merchant_id,
    created_at: c.created_at,
    updated_at: c.updated_at,
    locked: JSON.parse(c.locked) as LockableField[],
  };
}
