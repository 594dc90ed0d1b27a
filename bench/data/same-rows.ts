/**
 * "The same rows" for the raw loops: exactly the records the engine stores, in the order it sees
 * them (the provider's order: newest first, account by account), with the engine's keys.
 */
import { ProviderClient } from '@finsync/provider';
import type { MirrorTransaction, Storage, TransactionChange } from '@finsync/sync';
// The engine's keying is internal; the benchmark measures it from source.
import { keyTransactions } from '../../packages/sync/src/engine/keys.js';
import { API_KEY, CONNECTION_ID, TODAY } from './data-set.js';

/** Fetches every account's whole history through the client and keys it as the engine does. */
export async function loadRecords(baseUrl: string): Promise<MirrorTransaction[]> {
  const client = new ProviderClient({ apiKey: API_KEY, baseUrl, rateLimit: false });
  const records: MirrorTransaction[] = [];
  for (const account of await client.listAccounts()) {
    const list = client.listTransactions(account.id, { to: TODAY, includePending: true });
    for await (const page of list.pages()) {
      for (const record of keyTransactions(CONNECTION_ID, account.id, page.transactions).records) {
        records.push(record);
      }
    }
  }
  return records;
}

/** Column order of the `transactions` table in both schemas (SQLite and PostgreSQL). */
export const TRANSACTION_COLUMNS = [
  'connection_id',
  'account_id',
  'key',
  'provider_id',
  'amount',
  'currency',
  'date',
  'merchant',
  'description',
  'is_pending',
] as const;

export const TRANSACTION_KEY = ['connection_id', 'account_id', 'key'] as const;

export type TransactionParams = [
  string,
  string,
  string,
  string | null,
  string,
  string | null,
  string,
  string | null,
  string | null,
  boolean,
];

export function transactionParams(t: MirrorTransaction): TransactionParams {
  return [
    t.connectionId,
    t.accountId,
    t.key,
    t.providerId,
    t.amount,
    t.currency,
    t.date,
    t.merchant,
    t.description,
    t.isPending,
  ];
}

/** `INSERT … ON CONFLICT (key) DO UPDATE SET every other column = excluded.column`. */
export function upsertTail(): string {
  const updates = TRANSACTION_COLUMNS.filter((c) => !(TRANSACTION_KEY as readonly string[]).includes(c)).map(
    (c) => `${c} = excluded.${c}`,
  );
  return `ON CONFLICT (${TRANSACTION_KEY.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
}

/** The changes a first sync hands the storage for these records: one `added` each. */
export function addedChanges(records: readonly MirrorTransaction[]): TransactionChange[] {
  return records.map((record) => ({
    entity: 'transaction',
    op: 'added',
    connectionId: record.connectionId,
    accountId: record.accountId,
    key: record.key,
    record,
  }));
}

/**
 * The storage adapter alone: `storage.apply` of the same changes in batches of `batchSize` (the
 * engine's default, 2,000), as the engine commits them. Returns milliseconds.
 */
export async function timeApply(
  storage: Storage,
  changes: readonly TransactionChange[],
  batchSize: number,
): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < changes.length; from += batchSize) {
    await storage.apply({ changes: changes.slice(from, from + batchSize) });
  }
  return performance.now() - started;
}

/** The engine's default `batchSize`: changes per storage commit. */
export const ENGINE_BATCH_SIZE = 2_000;
