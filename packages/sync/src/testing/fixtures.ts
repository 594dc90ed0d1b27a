import { makeChange } from '../engine/changes.js';
import { newConnectionState } from '../engine/connection-status.js';
import type {
  AccountSyncState,
  ConnectionState,
  MirrorAccount,
  MirrorHolding,
  MirrorTransaction,
  TransactionChange,
} from '../model.js';

/** An `active` connection state created 2026-01-01, with `overrides` laid over it. */
export function connectionState(id: string, overrides: Partial<ConnectionState> = {}): ConnectionState {
  return { ...newConnectionState(id, new Date('2026-01-01T00:00:00.000Z')), ...overrides };
}

/** An active GBP account with a balance, with `overrides` laid over it. */
export function account(
  connectionId: string,
  id: string,
  overrides: Partial<MirrorAccount> = {},
): MirrorAccount {
  return {
    connectionId,
    id,
    name: `Account ${id}`,
    institutionName: 'Example Bank',
    institutionLogo: null,
    provider: 'gocardless',
    upstreamStatus: 'ACTIVE',
    currency: 'GBP',
    state: 'active',
    balance: { amount: '-412.07', currency: 'GBP', fetchedAt: '2026-01-02T03:04:05.000Z' },
    reconciliation: null,
    ...overrides,
  };
}

/**
 * A posted GBP card payment dated 2026-03-14 under `key` (its `providerId` taken from an `id:` key),
 * with `overrides` laid over it.
 */
export function transaction(
  connectionId: string,
  accountId: string,
  key: string,
  overrides: Partial<MirrorTransaction> = {},
): MirrorTransaction {
  return {
    connectionId,
    accountId,
    key,
    providerId: key.startsWith('id:') ? key.slice(3) : null,
    amount: '-23.4',
    currency: 'GBP',
    date: '2026-03-14',
    merchant: 'Corner Cafe',
    description: 'CARD PAYMENT TO CORNER CAFE',
    isPending: false,
    ...overrides,
  };
}

/** A USD holding of an index ETF under `key`, with `overrides` laid over it. */
export function holding(
  connectionId: string,
  accountId: string,
  key: string,
  overrides: Partial<MirrorHolding> = {},
): MirrorHolding {
  return {
    connectionId,
    accountId,
    key,
    name: 'World Index ETF',
    tickerSymbol: 'WIDX',
    isin: null,
    cusip: null,
    figi: null,
    quantity: '12.5',
    price: '101.5',
    value: '1268.75',
    costBasis: null,
    currency: 'USD',
    ...overrides,
  };
}

/** An account sync state with nothing recorded yet, with `overrides` laid over it. */
export function accountState(
  connectionId: string,
  accountId: string,
  overrides: Partial<AccountSyncState> = {},
): AccountSyncState {
  return {
    connectionId,
    accountId,
    watermark: null,
    lastSyncedAt: null,
    lastError: null,
    holdingsSupported: null,
    holdingsCheckedAt: null,
    ledger: null,
    ...overrides,
  };
}

/** The `added` change of a transaction record. */
export function added(record: MirrorTransaction): TransactionChange {
  return makeChange('transaction', 'added', record);
}
/** The `modified` change of a transaction record. */
export function modified(record: MirrorTransaction): TransactionChange {
  return makeChange('transaction', 'modified', record);
}
/** The `removed` change of the transaction with this identity. */
export function removed(
  record: Pick<MirrorTransaction, 'connectionId' | 'accountId' | 'key'>,
): TransactionChange {
  // A removal carries no record; its identity is all makeChange reads from it.
  return makeChange('transaction', 'removed', record as MirrorTransaction);
}
