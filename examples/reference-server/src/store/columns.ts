/**
 * Column lists both dialects share: what a transaction read selects, and what a new transaction
 * writes, in one order. Each dialect adds its own placeholders and value conversions.
 */
import type { NewTransaction } from './types.js';

/** The columns every transaction read selects (some add `locked` or `deleted_at`). */
export const TX_COLUMNS =
  'id, account_id, external_id, source, date, amount, currency, name, notes, category_id, merchant_id, created_at, updated_at';

const INSERT_COLUMNS = [
  'id',
  'user_id',
  'account_id',
  'feed_key',
  'external_id',
  'source',
  'date',
  'amount',
  'currency',
  'name',
  'notes',
  'merchant_id',
  'is_pending',
  'created_at',
  'updated_at',
  'category_id',
  'locked',
] as const;

/** `INSERT INTO <table> (…) VALUES (…)` for a new transaction, with `placeholder(n)` for the nth value (1-based). */
export function insertTransactionSql(table: string, placeholder: (n: number) => string): string {
  return `INSERT INTO ${table} (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map((_, i) => placeholder(i + 1)).join(', ')})`;
}

/** The values of a new transaction, in the order of `insertTransactionSql`; `locked` as JSON text. */
export function insertTransactionValues(t: NewTransaction): unknown[] {
  return [
    t.id,
    t.user_id,
    t.account_id,
    t.feed_key,
    t.external_id,
    t.source,
    t.date,
    t.amount,
    t.currency,
    t.name,
    t.notes,
    t.merchant_id,
    t.is_pending,
    t.created_at,
    t.updated_at,
    t.category_id ?? null,
    JSON.stringify(t.locked ?? []),
  ];
}
