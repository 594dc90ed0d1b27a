/**
 * Conversions between the engine's records and table rows. Identity columns (connection, account,
 * key) come from the change, not its record: the change is what conflict checks and the feed are
 * keyed by, and for well-formed changes the two agree.
 */
import type {
  AccountSyncState,
  Change,
  ConnectionState,
  MirrorAccount,
  MirrorHolding,
  MirrorTransaction,
} from '@finsync/sync';

/** A value bound into a `text[]`, `boolean[]` or `int2[]` parameter. */
export type SqlValue = string | boolean | number | null;

export interface Column {
  readonly name: string;
  /** The element type of the array parameter `unnest` reads this column from. */
  readonly type: 'text' | 'boolean' | 'int2';
}

const text = (name: string): Column => ({ name, type: 'text' });
const bool = (name: string): Column => ({ name, type: 'boolean' });

/**
 * Turns rows into one array per column: the shape `unnest($1::text[], $2::text[], …)` reads, so a
 * statement takes a fixed number of parameters however many rows it writes.
 */
export function toColumns(rows: readonly SqlValue[][], width: number): SqlValue[][] {
  const columns: SqlValue[][] = Array.from({ length: width }, () => new Array<SqlValue>(rows.length));
  rows.forEach((row, r) => {
    for (let c = 0; c < width; c += 1) columns[c]![r] = row[c] ?? null;
  });
  return columns;
}

/** The write side of one mirror table: its columns and how a change fills them. */
export interface MirrorSpec {
  readonly table: 'accounts' | 'transactions' | 'holdings';
  readonly idColumns: readonly Column[];
  readonly fieldColumns: readonly Column[];
  /** Identity values in `idColumns` order. */
  identity(change: Change): string[];
  /** Field values in `fieldColumns` order. */
  fields(record: NonNullable<Change['record']>): SqlValue[];
}

export const accountSpec: MirrorSpec = {
  table: 'accounts',
  idColumns: [text('connection_id'), text('id')],
  fieldColumns: [
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
  ].map(text),
  identity: (change) => [change.connectionId, change.accountId],
  fields: (record) => {
    const a = record as MirrorAccount;
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
  },
};

export const transactionSpec: MirrorSpec = {
  table: 'transactions',
  idColumns: [text('connection_id'), text('account_id'), text('key')],
  fieldColumns: [
    text('provider_id'),
    text('amount'),
    text('currency'),
    text('date'),
    text('merchant'),
    text('description'),
    bool('is_pending'),
  ],
  identity: (change) => [change.connectionId, change.accountId, change.key],
  fields: (record) => {
    const t = record as MirrorTransaction;
    return [
      t.providerId ?? null,
      t.amount,
      t.currency ?? null,
      t.date,
      t.merchant ?? null,
      t.description ?? null,
      Boolean(t.isPending),
    ];
  },
};

export const holdingSpec: MirrorSpec = {
  table: 'holdings',
  idColumns: [text('connection_id'), text('account_id'), text('key')],
  fieldColumns: [
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
  ].map(text),
  identity: (change) => [change.connectionId, change.accountId, change.key],
  fields: (record) => {
    const h = record as MirrorHolding;
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
  },
};

export const mirrorSpecs: Readonly<Record<Change['entity'], MirrorSpec>> = {
  account: accountSpec,
  transaction: transactionSpec,
  holding: holdingSpec,
};

export const connectionColumns: readonly Column[] = [
  'id',
  'status',
  'paused_until',
  'status_reason',
  'last_run_at',
  'last_success_at',
  'created_at',
].map(text);

export function connectionValues(c: ConnectionState): SqlValue[] {
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

export interface ConnectionRow {
  id: string;
  status: ConnectionState['status'];
  paused_until: string | null;
  status_reason: string | null;
  last_run_at: string | null;
  last_success_at: string | null;
  created_at: string;
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

export const accountStateColumns: readonly Column[] = [
  text('connection_id'),
  text('account_id'),
  text('watermark'),
  text('last_synced_at'),
  text('last_error'),
  bool('holdings_supported'),
  text('holdings_checked_at'),
];

export function accountStateValues(s: AccountSyncState): SqlValue[] {
  return [
    s.connectionId,
    s.accountId,
    s.watermark ?? null,
    s.lastSyncedAt ?? null,
    s.lastError ?? null,
    s.holdingsSupported ?? null,
    s.holdingsCheckedAt ?? null,
  ];
}

export interface AccountStateRow {
  connection_id: string;
  account_id: string;
  watermark: string | null;
  last_synced_at: string | null;
  last_error: string | null;
  holdings_supported: boolean | null;
  holdings_checked_at: string | null;
}

export function accountStateFromRow(row: AccountStateRow): AccountSyncState {
  return {
    connectionId: row.connection_id,
    accountId: row.account_id,
    watermark: row.watermark,
    lastSyncedAt: row.last_synced_at,
    lastError: row.last_error,
    holdingsSupported: row.holdings_supported,
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
  is_pending: boolean;
}

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
    isPending: row.is_pending,
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
