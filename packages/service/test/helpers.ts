import { SERVICE_API_URL, SERVICE_BASE_URL } from '@finsync/test-utils';

export const BASE = SERVICE_BASE_URL;
export const API = SERVICE_API_URL;
/** 64 lowercase hex characters, the service's key format. */
export const KEY = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
export const READ_KEY = '60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752';

export const TX_ID = '6f1c2a9e-0d4b-4c1e-9a57-2f0e8b1d3c44';

/** A transaction as the service renders it, with overrides. */
export function wireTransaction(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: TX_ID,
    date: '2026-05-02',
    amount: '$42.10',
    amount_cents: 4210,
    signed_amount_cents: -4210,
    currency: 'USD',
    name: 'CORNER MARKET #12',
    notes: null,
    external_id: 'lunchflow_tx_9981',
    source: 'lunchflow',
    classification: 'expense',
    account: {
      id: '0b7e5d1c-1111-4c1e-9a57-2f0e8b1d3c44',
      name: 'Everyday Checking',
      account_type: 'depository',
    },
    category: {
      id: 'a1d2c3b4-2222-4c1e-9a57-2f0e8b1d3c44',
      name: 'Groceries',
      color: '#407706',
      icon: 'shopping-bag',
    },
    merchant: { id: 'c9f0a1b2-3333-4c1e-9a57-2f0e8b1d3c44', name: 'Corner Market' },
    tags: [{ id: 'd1e2f3a4-4444-4c1e-9a57-2f0e8b1d3c44', name: 'Household', color: '#e99537' }],
    transfer: null,
    created_at: '2026-05-03T06:14:09Z',
    updated_at: '2026-05-04T19:01:55Z',
    ...overrides,
  };
}

/** Resolves with whatever the promise settles to, so errors can be inspected. */
export function settle<T>(promise: Promise<T>): Promise<T | unknown> {
  return promise.catch((error: unknown) => error);
}
