/**
 * The rows of the mirror tables as a SQL driver returns them: snake_case columns, one per model
 * field. Every SQL adapter uses the same table layout, so the shapes live here; only how a boolean
 * comes back differs (SQLite has no boolean type and stores 0/1), hence the `B` parameter.
 */
import type { Change, ConnectionState, MirrorAccount, ReplacementReason } from '../model.js';

/**
 * How the database stores a boolean column: `'integer'` as 0/1 (SQLite), `'native'` as a real
 * boolean the driver reads and binds as one (PostgreSQL).
 */
export type BooleanStorage = 'integer' | 'native';

/** A boolean column as the driver returns it. */
export type StoredBoolean<B extends BooleanStorage> = B extends 'integer' ? number : boolean;

/** A boolean as the codec binds it. */
export type BoundBoolean<B extends BooleanStorage> = B extends 'integer' ? 0 | 1 : boolean;

/** A value the codec binds: text, a number (feed link flags), NULL, or a boolean in the database's form. */
export type RowValue<B extends BooleanStorage> = string | number | null | BoundBoolean<B>;

export interface ConnectionRow {
  id: string;
  status: ConnectionState['status'];
  paused_until: string | null;
  status_reason: string | null;
  last_run_at: string | null;
  last_success_at: string | null;
  created_at: string;
}

export interface AccountStateRow<B extends BooleanStorage> {
  connection_id: string;
  account_id: string;
  watermark: string | null;
  last_synced_at: string | null;
  last_error: string | null;
  holdings_supported: StoredBoolean<B> | null;
  holdings_checked_at: string | null;
  /** The balance-check ledger as JSON text; NULL in rows written before it existed. */
  ledger: string | null;
}

export interface AccountRow {
  connection_id: string;
  id: string;
  name: string;
  institution_name: string | null;
  institution_logo: string | null;
  provider: string | null;
  upstream_status: MirrorAccount['upstreamStatus'];
  currency: string | null;
  state: MirrorAccount['state'];
  balance_amount: string | null;
  balance_currency: string | null;
  balance_fetched_at: string | null;
  /** The balance check's outcome as JSON text, or NULL. */
  reconciliation: string | null;
}

export interface TransactionRow<B extends BooleanStorage> {
  connection_id: string;
  account_id: string;
  key: string;
  provider_id: string | null;
  amount: string;
  currency: string | null;
  date: string;
  merchant: string | null;
  description: string | null;
  is_pending: StoredBoolean<B>;
}

export interface HoldingRow {
  connection_id: string;
  account_id: string;
  key: string;
  name: string | null;
  ticker_symbol: string | null;
  isin: string | null;
  cusip: string | null;
  figi: string | null;
  quantity: string;
  price: string | null;
  value: string | null;
  cost_basis: string | null;
  currency: string | null;
}

export interface FeedRow {
  /**
   * A number from SQLite; Postgres returns int8 as a string (or whatever a global type parser makes
   * of it), so the codec converts it.
   */
  seq: number | string;
  connection_id: string;
  account_id: string;
  entity: Change['entity'];
  op: Change['op'];
  key: string;
  /** The record as JSON text: adapters select it as text so no driver-level JSON parsing applies. */
  record: string | null;
  replaces: string | null;
  replaced_by: string | null;
  /** Which of `replaces` / `replaced_by` the change carried at all (see `LINK_FLAGS`). */
  link_flags: number;
  /** Why the link was made, when there is one. */
  reason: ReplacementReason | null;
  /** ISO timestamp, as the model has it. */
  at: string;
}

export interface SupersededRow {
  connection_id: string;
  account_id: string;
  key: string;
  replaced_by: string;
  reason: ReplacementReason;
  /** The row's date, for pruning by age. */
  date: string;
  /** The row as the provider last listed it, as JSON text. */
  record: string;
}

/** Every row type for a database that stores booleans as `B`, by table (`RowTypes<'integer'>['holding']`). */
export interface RowTypes<B extends BooleanStorage> {
  connection: ConnectionRow;
  accountState: AccountStateRow<B>;
  account: AccountRow;
  transaction: TransactionRow<B>;
  holding: HoldingRow;
  feed: FeedRow;
  superseded: SupersededRow;
}
