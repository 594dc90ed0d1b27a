// Shared by the provider's tests: where the fake answers, and the key the client sends.
import { PROVIDER_BASE_URL } from '@finsync/test-utils';

export const BASE = PROVIDER_BASE_URL;
export const KEY = 'lf_test_key_7c1b9e0d2a';

/** A transaction as the provider's documented wire format sends it. */
export interface WireRow {
  id: string | null;
  accountId: number;
  amount: number;
  currency: string;
  date: string;
  merchant: string;
  description: string;
  isPending: boolean;
}
