/**
 * The rows of the mirror tables as a SQL driver returns them: snake_case columns, one per model
 * field. Every SQL adapter uses the same table layout, so the shapes live here; only how a boolean
 * comes back differs (SQLite has no boolean type and stores 0/1), hence the `B` parameter.
 */
import type {
  Change,
  ConnectionState,
  MirrorAccount,
  ReplacementReason,
  SupersededReason,
} from '../model.js';

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

/** A row of the `connections` table: one `ConnectionState`. */
export interface ConnectionRow {
  /** Stores `ConnectionState.id`. */
  id: string;
  /** Stores `ConnectionState.status`. */
  status: ConnectionState['status'];
  /** Stores `ConnectionState.pausedUntil`. */
  paused_until: string | null;
  /** Stores `ConnectionState.statusReason`. */
  status_reason: string | null;
  /** Stores `ConnectionState.lastRunAt`. */
  last_run_at: string | null;
  /** Stores `ConnectionState.lastSuccessAt`. */
  last_success_at: string | null;
  /** Stores `ConnectionState.createdAt`. */
  created_at: string;
}

/** A row of the `account_states` table: one `AccountSyncState`. `B`: how booleans are stored. */
export interface AccountStateRow<B extends BooleanStorage> {
  /** Stores `AccountSyncState.connectionId`. */
  connection_id: string;
  /** Stores `AccountSyncState.accountId`. */
  account_id: string;
  /** Stores `AccountSyncState.watermark`. */
  watermark: string | null;
  /** Stores `AccountSyncState.lastSyncedAt`. */
  last_synced_at: string | null;
  /** Stores `AccountSyncState.lastError`. */
  last_error: string | null;
  /** Stores `AccountSyncState.holdingsSupported`, in the database's boolean form. */
  holdings_supported: StoredBoolean<B> | null;
  /** Stores `AccountSyncState.holdingsCheckedAt`. */
  holdings_checked_at: string | null;
  /** The balance-check ledger as JSON text; NULL in rows written before it existed. */
  ledger: string | null;
}

/** A row of the `accounts` table: one `MirrorAccount`, its balance flattened into `balance_*` columns. */
export interface AccountRow {
  /** Stores `MirrorAccount.connectionId`. */
  connection_id: string;
  /** Stores `MirrorAccount.id`. */
  id: string;
  /** Stores `MirrorAccount.name`. */
  name: string;
  /** Stores `MirrorAccount.institutionName`. */
  institution_name: string | null;
  /** Stores `MirrorAccount.institutionLogo`. */
  institution_logo: string | null;
  /** Stores `MirrorAccount.provider`. */
  provider: string | null;
  /** Stores `MirrorAccount.upstreamStatus`. */
  upstream_status: MirrorAccount['upstreamStatus'];
  /** Stores `MirrorAccount.currency`. */
  currency: string | null;
  /** Stores `MirrorAccount.state`. */
  state: MirrorAccount['state'];
  /** Stores `MirrorAccount.balance.amount`; NULL while the account has no balance. */
  balance_amount: string | null;
  /** Stores `MirrorAccount.balance.currency`; NULL while the account has no balance. */
  balance_currency: string | null;
  /** Stores `MirrorAccount.balance.fetchedAt`; NULL while the account has no balance. */
  balance_fetched_at: string | null;
  /** The balance check's outcome as JSON text, or NULL. */
  reconciliation: string | null;
}

/** A row of the `transactions` table: one `MirrorTransaction`. `B`: how booleans are stored. */
export interface TransactionRow<B extends BooleanStorage> {
  /** Stores `MirrorTransaction.connectionId`. */
  connection_id: string;
  /** Stores `MirrorTransaction.accountId`. */
  account_id: string;
  /** Stores `MirrorTransaction.key`. */
  key: string;
  /** Stores `MirrorTransaction.providerId`. */
  provider_id: string | null;
  /** Stores `MirrorTransaction.amount`. */
  amount: string;
  /** Stores `MirrorTransaction.currency`. */
  currency: string | null;
  /** Stores `MirrorTransaction.date`. */
  date: string;
  /** Stores `MirrorTransaction.merchant`. */
  merchant: string | null;
  /** Stores `MirrorTransaction.description`. */
  description: string | null;
  /** Stores `MirrorTransaction.isPending`, in the database's boolean form. */
  is_pending: StoredBoolean<B>;
}

/** A row of the `holdings` table: one `MirrorHolding`. */
export interface HoldingRow {
  /** Stores `MirrorHolding.connectionId`. */
  connection_id: string;
  /** Stores `MirrorHolding.accountId`. */
  account_id: string;
  /** Stores `MirrorHolding.key`. */
  key: string;
  /** Stores `MirrorHolding.name`. */
  name: string | null;
  /** Stores `MirrorHolding.tickerSymbol`. */
  ticker_symbol: string | null;
  /** Stores `MirrorHolding.isin`. */
  isin: string | null;
  /** Stores `MirrorHolding.cusip`. */
  cusip: string | null;
  /** Stores `MirrorHolding.figi`. */
  figi: string | null;
  /** Stores `MirrorHolding.quantity`. */
  quantity: string;
  /** Stores `MirrorHolding.price`. */
  price: string | null;
  /** Stores `MirrorHolding.value`. */
  value: string | null;
  /** Stores `MirrorHolding.costBasis`. */
  cost_basis: string | null;
  /** Stores `MirrorHolding.currency`. */
  currency: string | null;
}

/** A row of the `feed` table: one `FeedEntry`, its record as JSON text. */
export interface FeedRow {
  /**
   * A number from SQLite; Postgres returns int8 as a string (or whatever a global type parser makes
   * of it), so the codec converts it.
   */
  seq: number | string;
  /** Stores `FeedEntry.connectionId`. */
  connection_id: string;
  /** Stores `FeedEntry.accountId`. */
  account_id: string;
  /** Stores `FeedEntry.entity`. */
  entity: Change['entity'];
  /** Stores `FeedEntry.op`. */
  op: Change['op'];
  /** Stores `FeedEntry.key`. */
  key: string;
  /** The record as JSON text: adapters select it as text so no driver-level JSON parsing applies. */
  record: string | null;
  /** Stores `TransactionChange.replaces`; NULL when absent or null (see `link_flags`). */
  replaces: string | null;
  /** Stores `TransactionChange.replacedBy`; NULL when absent or null (see `link_flags`). */
  replaced_by: string | null;
  /** Which of `replaces` / `replaced_by` the change carried at all (see `LINK_FLAGS`). */
  link_flags: number;
  /** Why the link was made, when there is one. */
  reason: ReplacementReason | null;
  /** ISO timestamp, as the model has it. */
  at: string;
}

/** A row of the `superseded_transactions` table: one `SupersededTransaction`. */
export interface SupersededRow {
  /** Stores `SupersededTransaction.connectionId`. */
  connection_id: string;
  /** Stores `SupersededTransaction.accountId`. */
  account_id: string;
  /** Stores `SupersededTransaction.key`. */
  key: string;
  /** Stores `SupersededTransaction.replacedBy`. */
  replaced_by: string;
  /** Stores `SupersededTransaction.reason`. */
  reason: SupersededReason;
  /** The row's date, for pruning by age. */
  date: string;
  /** The row as the provider last listed it, as JSON text. */
  record: string;
}

/** Every row type for a database that stores booleans as `B`, by table (`RowTypes<'integer'>['holding']`). */
export interface RowTypes<B extends BooleanStorage> {
  /** A `connections` row. */
  connection: ConnectionRow;
  /** An `account_states` row. */
  accountState: AccountStateRow<B>;
  /** An `accounts` row. */
  account: AccountRow;
  /** A `transactions` row. */
  transaction: TransactionRow<B>;
  /** A `holdings` row. */
  holding: HoldingRow;
  /** A `feed` row. */
  feed: FeedRow;
  /** A `superseded_transactions` row. */
  superseded: SupersededRow;
}
