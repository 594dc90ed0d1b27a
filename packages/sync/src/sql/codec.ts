/**
 * Conversions between the engine's records and table rows, for every SQL adapter. Identity columns
 * (connection, account, key) come from the change, not its record: the change is what conflict
 * checks and the feed are keyed by, and for well-formed changes the two agree.
 *
 * The databases differ only in how a boolean is stored, so that is the one option of the factory;
 * placeholders, timestamps and SQL text stay with each adapter.
 */
import type {
  AccountSyncState,
  Change,
  ConnectionState,
  FeedEntry,
  MirrorAccount,
  MirrorHolding,
  MirrorTransaction,
  SupersededTransaction,
} from '../model.js';
import { booleanColumn, textColumn, type Column } from './columns.js';
import { feedColumns, feedEntryFromRow, feedValues } from './feed.js';
import type {
  AccountRow,
  AccountStateRow,
  BooleanStorage,
  BoundBoolean,
  ConnectionRow,
  FeedRow,
  HoldingRow,
  RowValue,
  StoredBoolean,
  SupersededRow,
  TransactionRow,
} from './rows.js';

/** A record that some change carries; the change's `entity` says which. */
export type MirrorRecord = NonNullable<Change['record']>;

/** What identifies a change's row. */
export type ChangeIdentity = Pick<Change, 'entity' | 'connectionId' | 'accountId' | 'key'>;

/** One table written whole from a model object (connections, account_states). */
export interface TableCodec<T, Row, V> {
  /** Every column, in `values` order; the rows the adapter selects have exactly these. */
  readonly columns: readonly Column[];
  /** The item's column values, in `columns` order, ready to bind. */
  values(item: T): V[];
  /** The model object a selected row holds. */
  fromRow(row: Row): T;
}

/** One mirror table: rows keyed by a change's identity, written from its record. */
export interface MirrorCodec<T, Row, V> {
  /** The table's name. */
  readonly table: 'accounts' | 'transactions' | 'holdings';
  /** The primary key, in `identity` order. */
  readonly idColumns: readonly Column[];
  /** Every other column, in `fields` order. */
  readonly fieldColumns: readonly Column[];
  /** The primary-key values of the change's row, in `idColumns` order. */
  identity(change: ChangeIdentity): string[];
  /**
   * The record as field values. It takes any record because callers reach the codec through the
   * change's entity; the record of a well-formed change is that entity's.
   */
  fields(record: MirrorRecord): V[];
  /** The record a selected row holds. */
  fromRow(row: Row): T;
}

/** The feed: columns filled from the change (not `seq` or `at`), and rows back to entries. */
export interface FeedCodec<V> {
  /** The columns `values` fills, in order (see `feedColumns`). */
  readonly columns: readonly Column[];
  /** The change's feed column values, in `columns` order. */
  values(change: Change): V[];
  /** The feed entry a selected feed row holds. */
  fromRow(row: FeedRow): FeedEntry;
}

/**
 * The conversions between records and rows for every table, for one way of storing booleans; made
 * by {@link createRowCodec}.
 */
export interface RowCodec<B extends BooleanStorage> {
  /** The `connections` table. */
  readonly connection: TableCodec<ConnectionState, ConnectionRow, RowValue<B>>;
  /** The `account_states` table. */
  readonly accountState: TableCodec<AccountSyncState, AccountStateRow<B>, RowValue<B>>;
  /** The mirror tables, by the entity whose changes they hold. */
  readonly mirror: {
    /** The `accounts` table. */
    readonly account: MirrorCodec<MirrorAccount, AccountRow, RowValue<B>>;
    /** The `transactions` table. */
    readonly transaction: MirrorCodec<MirrorTransaction, TransactionRow<B>, RowValue<B>>;
    /** The `holdings` table. */
    readonly holding: MirrorCodec<MirrorHolding, HoldingRow, RowValue<B>>;
  };
  /** The `feed` table. */
  readonly feed: FeedCodec<RowValue<B>>;
  /** Superseded rows: identity columns, then the link and the row as last listed (JSON). */
  readonly superseded: TableCodec<SupersededTransaction, SupersededRow, RowValue<B>>;
}

/** What {@link createRowCodec} takes. */
export interface RowCodecOptions<B extends BooleanStorage> {
  /** How the database stores booleans: `'integer'` (SQLite) or `'native'` (PostgreSQL). */
  boolean: B;
}

const accountIdentity = (change: ChangeIdentity): string[] => [change.connectionId, change.accountId];
const keyedIdentity = (change: ChangeIdentity): string[] => [
  change.connectionId,
  change.accountId,
  change.key,
];

const connectionColumns: readonly Column[] = Object.freeze(
  ['id', 'status', 'paused_until', 'status_reason', 'last_run_at', 'last_success_at', 'created_at'].map(
    textColumn,
  ),
);

const accountStateColumns: readonly Column[] = Object.freeze([
  textColumn('connection_id'),
  textColumn('account_id'),
  textColumn('watermark'),
  textColumn('last_synced_at'),
  textColumn('last_error'),
  booleanColumn('holdings_supported'),
  textColumn('holdings_checked_at'),
  textColumn('ledger'),
]);

const accountFieldColumns: readonly Column[] = Object.freeze(
  [
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
    'reconciliation',
  ].map(textColumn),
);

const transactionFieldColumns: readonly Column[] = Object.freeze([
  textColumn('provider_id'),
  textColumn('amount'),
  textColumn('currency'),
  textColumn('date'),
  textColumn('merchant'),
  textColumn('description'),
  booleanColumn('is_pending'),
]);

const supersededColumns: readonly Column[] = Object.freeze(
  ['connection_id', 'account_id', 'key', 'replaced_by', 'reason', 'date', 'record'].map(textColumn),
);

const supersededCodec: TableCodec<SupersededTransaction, SupersededRow, string> = Object.freeze({
  columns: supersededColumns,
  values: (row: SupersededTransaction) => [
    row.connectionId,
    row.accountId,
    row.key,
    row.replacedBy,
    row.reason,
    row.record.date,
    JSON.stringify(row.record),
  ],
  fromRow: (row: SupersededRow) => ({
    connectionId: row.connection_id,
    accountId: row.account_id,
    key: row.key,
    record: JSON.parse(row.record),
    replacedBy: row.replaced_by,
    reason: row.reason,
  }),
});

const holdingFieldColumns: readonly Column[] = Object.freeze(
  [
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
  ].map(textColumn),
);

/**
 * The row codec for a database that stores booleans as `options.boolean` says. Everything else is
 * the same for every SQL adapter; the result is frozen and can be shared by all its storages.
 */
export function createRowCodec<B extends BooleanStorage>(options: RowCodecOptions<B>): RowCodec<B> {
  if (options?.boolean !== 'integer' && options?.boolean !== 'native') {
    throw new TypeError(`boolean must be 'integer' or 'native', got ${JSON.stringify(options?.boolean)}`);
  }
  const integer = options.boolean === 'integer';

  // A NOT NULL flag (is_pending). Truthiness, not identity, so a malformed record still binds a
  // value the column accepts.
  const flag = (value: boolean): BoundBoolean<B> =>
    (integer ? (value ? 1 : 0) : Boolean(value)) as BoundBoolean<B>;
  // A nullable flag (holdings_supported): absent is NULL. A native boolean is bound as given.
  const optionalFlag = (value: boolean | null | undefined): BoundBoolean<B> | null =>
    value === null || value === undefined ? null : ((integer ? (value ? 1 : 0) : value) as BoundBoolean<B>);
  const readFlag = (value: StoredBoolean<B>): boolean => (integer ? value !== 0 : (value as boolean));
  const readOptionalFlag = (value: StoredBoolean<B> | null): boolean | null =>
    value === null ? null : readFlag(value);

  const connection: RowCodec<B>['connection'] = {
    columns: connectionColumns,
    values: (c) => [
      c.id,
      c.status,
      c.pausedUntil ?? null,
      c.statusReason ?? null,
      c.lastRunAt ?? null,
      c.lastSuccessAt ?? null,
      c.createdAt,
    ],
    fromRow: (row) => ({
      id: row.id,
      status: row.status,
      pausedUntil: row.paused_until,
      statusReason: row.status_reason,
      lastRunAt: row.last_run_at,
      lastSuccessAt: row.last_success_at,
      createdAt: row.created_at,
    }),
  };

  const accountState: RowCodec<B>['accountState'] = {
    columns: accountStateColumns,
    values: (s) => [
      s.connectionId,
      s.accountId,
      s.watermark ?? null,
      s.lastSyncedAt ?? null,
      s.lastError ?? null,
      optionalFlag(s.holdingsSupported),
      s.holdingsCheckedAt ?? null,
      s.ledger ? JSON.stringify(s.ledger) : null,
    ],
    fromRow: (row) => ({
      connectionId: row.connection_id,
      accountId: row.account_id,
      watermark: row.watermark,
      lastSyncedAt: row.last_synced_at,
      lastError: row.last_error,
      holdingsSupported: readOptionalFlag(row.holdings_supported),
      holdingsCheckedAt: row.holdings_checked_at,
      ledger: row.ledger === null ? null : JSON.parse(row.ledger),
    }),
  };

  const account: RowCodec<B>['mirror']['account'] = {
    table: 'accounts',
    idColumns: Object.freeze([textColumn('connection_id'), textColumn('id')]),
    fieldColumns: accountFieldColumns,
    identity: accountIdentity,
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
        a.reconciliation ? JSON.stringify(a.reconciliation) : null,
      ];
    },
    fromRow: (row) => ({
      connectionId: row.connection_id,
      id: row.id,
      name: row.name,
      institutionName: row.institution_name,
      institutionLogo: row.institution_logo,
      provider: row.provider,
      upstreamStatus: row.upstream_status,
      currency: row.currency,
      state: row.state,
      // The schema keeps balance_* all NULL or amount and fetched_at both set (a CHECK).
      balance:
        row.balance_amount === null
          ? null
          : {
              amount: row.balance_amount,
              currency: row.balance_currency,
              fetchedAt: row.balance_fetched_at!,
            },
      reconciliation: row.reconciliation === null ? null : JSON.parse(row.reconciliation),
    }),
  };

  const transaction: RowCodec<B>['mirror']['transaction'] = {
    table: 'transactions',
    idColumns: Object.freeze(['connection_id', 'account_id', 'key'].map(textColumn)),
    fieldColumns: transactionFieldColumns,
    identity: keyedIdentity,
    fields: (record) => {
      const t = record as MirrorTransaction;
      return [
        t.providerId ?? null,
        t.amount,
        t.currency ?? null,
        t.date,
        t.merchant ?? null,
        t.description ?? null,
        flag(t.isPending),
      ];
    },
    fromRow: (row) => ({
      connectionId: row.connection_id,
      accountId: row.account_id,
      key: row.key,
      providerId: row.provider_id,
      amount: row.amount,
      currency: row.currency,
      date: row.date,
      merchant: row.merchant,
      description: row.description,
      isPending: readFlag(row.is_pending),
    }),
  };

  const holding: RowCodec<B>['mirror']['holding'] = {
    table: 'holdings',
    idColumns: Object.freeze(['connection_id', 'account_id', 'key'].map(textColumn)),
    fieldColumns: holdingFieldColumns,
    identity: keyedIdentity,
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
    fromRow: (row) => ({
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
    }),
  };

  return Object.freeze({
    connection: Object.freeze(connection),
    accountState: Object.freeze(accountState),
    mirror: Object.freeze({
      account: Object.freeze(account),
      transaction: Object.freeze(transaction),
      holding: Object.freeze(holding),
    }),
    feed: Object.freeze({ columns: feedColumns, values: feedValues, fromRow: feedEntryFromRow }),
    superseded: supersededCodec,
  });
}
