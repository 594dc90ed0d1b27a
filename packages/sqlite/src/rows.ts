/**
 * Conversions between the engine's records and table rows. Identity columns (connection, account,
 * key) come from the change, not its record: the change is what conflict checks and the feed are
 * keyed by, and for well-formed changes the two agree.
 */
import type {
  AccountSyncState,
  Change,
  ConnectionState,
  FeedEntry,
  MirrorAccount,
  MirrorHolding,
  MirrorTransaction,
} from '@finsync/sync';

/** A value better-sqlite3 can bind. Booleans are not among them, hence `flag`. */
export type SqlValue = string | number | bigint | null;

type Identity = Pick<Change, 'connectionId' | 'accountId' | 'key'>;

function flag(value: boolean | null | undefined): 0 | 1 | null {
  return value === null || value === undefined ? null : value ? 1 : 0;
}

function bool(value: number | null): boolean | null {
  return value === null ? null : value !== 0;
}

export interface ConnectionRow {
  id: string;
  status: ConnectionState['status'];
  paused_until: string | null;
  status_reason: string | null;
  last_run_at: string | null;
  last_success_at: string | null;
  created_at: string;
}

export const connectionColumns =
  'id, status, paused_until, status_reason, last_run_at, last_success_at, created_at';

export function connectionParams(c: ConnectionState): SqlValue[] {
  return [
    c.id,
    c.status,
    c.pausedUntil ?? null,
    c.statusReason ?? null,
    c.lastRunAt ?? null,
    c.lastSuccessAt ?? null,
    c.createdAt,
  ];
}

export function connectionFromRow(row: ConnectionRow): ConnectionState {
  return {
    id: row.id,
    status: row.status,
    pausedUntil: row.paused_until,
    statusReason: row.status_reason,
    lastRunAt: row.last_run_at,
    lastSuccessAt: row.last_success_at,
    createdAt: row.created_at,
  };
}

export interface AccountStateRow {
  connection_id: string;
  account_id: string;
  watermark: string | null;
  last_synced_at: string | null;
  last_error: string | null;
  holdings_supported: number | null;
  holdings_checked_at: string | null;
}

export const accountStateColumns =
  'connection_id, account_id, watermark, last_synced_at, last_error, holdings_supported, holdings_checked_at';

export function accountStateParams(s: AccountSyncState): SqlValue[] {
  return [
    s.connectionId,
    s.accountId,
    s.watermark ?? null,
    s.lastSyncedAt ?? null,
    s.lastError ?? null,
    flag(s.holdingsSupported),
    s.holdingsCheckedAt ?? null,
  ];
}

export function accountStateFromRow(row: AccountStateRow): AccountSyncState {
  return {
    connectionId: row.connection_id,
    accountId: row.account_id,
    watermark: row.watermark,
    lastSyncedAt: row.last_synced_at,
    lastError: row.last_error,
    holdingsSupported: bool(row.holdings_supported),
    holdingsCheckedAt: row.holdings_checked_at,
  };
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
}

/** Every column but the identity ones, in the order `accountFields` returns them. */
export const accountFieldColumns = [
  'name',
  'institution_name',
  'institution_logo',
  'provider',
  'upstream_status',
  'currency',
  'state',
  'balance_amount',
  'balance_currency',
  'balance_fetched_at',
] as const;

export function accountFields(a: MirrorAccount): SqlValue[] {
  return [
    a.name,
    a.institutionName ?? null,
    a.institutionLogo ?? null,
    a.provider ?? null,
    a.upstreamStatus ?? null,
    a.currency ?? null,
    a.state,
    a.balance?.amount ?? null,
    a.balance?.currency ?? null,
    a.balance?.fetchedAt ?? null,
  ];
}

export function accountFromRow(row: AccountRow): MirrorAccount {
  return {
    connectionId: row.connection_id,
    id: row.id,
    name: row.name,
    institutionName: row.institution_name,
    institutionLogo: row.institution_logo,
    provider: row.provider,
    upstreamStatus: row.upstream_status,
    currency: row.currency,
    state: row.state,
    balance:
      row.balance_amount === null
        ? null
        : { amount: row.balance_amount, currency: row.balance_currency, fetchedAt: row.balance_fetched_at! },
  };
}

export interface TransactionRow {
  connection_id: string;
  account_id: string;
  key: string;
  provider_id: string | null;
  amount: string;
  currency: string | null;
  date: string;
  merchant: string | null;
  description: string | null;
  is_pending: number;
}

export const transactionFieldColumns = [
  'provider_id',
  'amount',
  'currency',
  'date',
  'merchant',
  'description',
  'is_pending',
] as const;

export function transactionFields(t: MirrorTransaction): SqlValue[] {
  return [
    t.providerId ?? null,
    t.amount,
    t.currency ?? null,
    t.date,
    t.merchant ?? null,
    t.description ?? null,
    t.isPending ? 1 : 0,
  ];
}

export const transactionColumns = `connection_id, account_id, key, ${transactionFieldColumns.join(', ')}`;

export function transactionFromRow(row: TransactionRow): MirrorTransaction {
  return {
    connectionId: row.connection_id,
    accountId: row.account_id,
    key: row.key,
    providerId: row.provider_id,
    amount: row.amount,
    currency: row.currency,
    date: row.date,
    merchant: row.merchant,
    description: row.description,
    isPending: row.is_pending !== 0,
  };
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

export const holdingFieldColumns = [
  'name',
  'ticker_symbol',
  'isin',
  'cusip',
  'figi',
  'quantity',
  'price',
  'value',
  'cost_basis',
  'currency',
] as const;

export function holdingFields(h: MirrorHolding): SqlValue[] {
  return [
    h.name ?? null,
    h.tickerSymbol ?? null,
    h.isin ?? null,
    h.cusip ?? null,
    h.figi ?? null,
    h.quantity,
    h.price ?? null,
    h.value ?? null,
    h.costBasis ?? null,
    h.currency ?? null,
  ];
}

export function holdingFromRow(row: HoldingRow): MirrorHolding {
  return {
    connectionId: row.connection_id,
    accountId: row.account_id,
    key: row.key,
    name: row.name,
    tickerSymbol: row.ticker_symbol,
    isin: row.isin,
    cusip: row.cusip,
    figi: row.figi,
    quantity: row.quantity,
    price: row.price,
    value: row.value,
    costBasis: row.cost_basis,
    currency: row.currency,
  };
}

export interface FeedRow {
  seq: number;
  connection_id: string;
  account_id: string;
  entity: Change['entity'];
  op: Change['op'];
  key: string;
  record: string | null;
  replaces: string | null;
  replaced_by: string | null;
  link_flags: number;
  at: string;
}

const HAS_REPLACES = 1;
const HAS_REPLACED_BY = 2;

export const feedColumns =
  'seq, connection_id, account_id, entity, op, key, record, replaces, replaced_by, link_flags, at';

/** Parameters for the feed insert: everything but `seq`, which SQLite assigns. */
export function feedParams(change: Change, at: string): SqlValue[] {
  // Only transaction changes declare the links, but the memory reference keeps whatever a change
  // carries, so read them off any entity.
  const links = change as { replaces?: string | null; replacedBy?: string | null };
  const flags =
    (links.replaces !== undefined ? HAS_REPLACES : 0) |
    (links.replacedBy !== undefined ? HAS_REPLACED_BY : 0);
  return [
    change.connectionId,
    change.accountId,
    change.entity,
    change.op,
    change.key,
    change.record === null || change.record === undefined ? null : JSON.stringify(change.record),
    links.replaces ?? null,
    links.replacedBy ?? null,
    flags,
    at,
  ];
}

export function feedEntryFromRow(row: FeedRow): FeedEntry {
  const entry: Record<string, unknown> = {
    entity: row.entity,
    op: row.op,
    connectionId: row.connection_id,
    accountId: row.account_id,
    key: row.key,
    record: row.record === null ? null : JSON.parse(row.record),
  };
  if (row.link_flags & HAS_REPLACES) entry['replaces'] = row.replaces;
  if (row.link_flags & HAS_REPLACED_BY) entry['replacedBy'] = row.replaced_by;
  entry['seq'] = row.seq;
  entry['at'] = row.at;
  return entry as unknown as FeedEntry;
}

/** Identity parameters in primary-key order, for the mirror table of `change.entity`. */
export function identityParams(change: Identity & { entity: Change['entity'] }): SqlValue[] {
  return change.entity === 'account'
    ? [change.connectionId, change.accountId]
    : [change.connectionId, change.accountId, change.key];
}
