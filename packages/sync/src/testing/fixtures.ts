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

export function connectionState(id: string, overrides: Partial<ConnectionState> = {}): ConnectionState {
  return { ...newConnectionState(id, new Date('2026-01-01T00:00:00.000Z')), ...overrides };
}

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

export function added(record: MirrorTransaction): TransactionChange {
  return makeChange('transaction', 'added', record);
}
export function modified(record: MirrorTransaction): TransactionChange {
  return makeChange('transaction', 'modified', record);
}
export function removed(
  record: Pick<MirrorTransaction, 'connectionId' | 'accountId' | 'key'>,
): TransactionChange {
  // A removal carries no record; its identity is all makeChange reads from it.
  return makeChange('transaction', 'removed', record as MirrorTransaction);
}
