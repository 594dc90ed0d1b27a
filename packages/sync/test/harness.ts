import { ProviderClient, toDecimalString, type ProviderClientOptions } from '@finsync/provider';
import { SandboxProvider, type SandboxOptions, type SandboxTransaction } from '@finsync/provider/sandbox';
import {
  PROVIDER_BASE_URL,
  holdsTakenForLaterTwins,
  listenDuringTests,
  type TwinRuleRow,
} from '@finsync/test-utils';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { expect } from 'vitest';
import {
  MemoryStorage,
  SyncEngine,
  type FeedEntry,
  type MirrorTransaction,
  type Storage,
  type SyncEngineOptions,
  type WriteBatch,
} from '../src/index.js';

export const BASE = PROVIDER_BASE_URL;
/** The MSW server the harness's sandbox answers on; a test file runs it by calling `useMsw()`. */
export const server = setupServer();

export function useMsw(): void {
  listenDuringTests(server);
}

export interface Harness {
  sandbox: SandboxProvider;
  storage: Storage;
  engine: SyncEngine;
  /** Makes a fresh engine over the same storage, as a restarted process would. */
  restart(storage?: Storage): Promise<SyncEngine>;
}

/**
 * A memory storage whose commits take `commitMs` (default 15), as a networked store's do: reads
 * made meanwhile see the store as it was before the commit. Long enough that the engine's reads of
 * its next page come first, so a read that must wait for the commit and does not shows up.
 */
export class SlowCommits extends MemoryStorage {
  constructor(readonly commitMs = 15) {
    super();
  }
  override async apply(batch: WriteBatch): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.commitMs));
    return super.apply(batch);
  }
}

/**
 * Commits that take 10 ms, logged as `commit <account> start` and `… end` by the account whose
 * transactions they carry: tests compare the order of requests and commits.
 */
export class LoggedSlowCommits extends MemoryStorage {
  constructor(readonly log: string[]) {
    super();
  }
  override async apply(batch: WriteBatch): Promise<void> {
    const account = batch.changes.find((change) => change.entity === 'transaction')?.accountId;
    if (account === undefined) return super.apply(batch);
    this.log.push(`commit ${account} start`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await super.apply(batch);
    this.log.push(`commit ${account} end`);
  }
}

export async function createHarness(
  options: {
    sandbox?: SandboxOptions;
    engine?: Partial<SyncEngineOptions>;
    client?: Partial<ProviderClientOptions>;
    storage?: Storage;
    connectionId?: string;
  } = {},
): Promise<Harness> {
  const sandbox = new SandboxProvider({ historyDays: 60, transactionsPerDay: 2, ...options.sandbox });
  server.use(http.all(`${BASE}/*`, ({ request }) => sandbox.handle(request)));
  const makeEngine = async (storage: Storage) => {
    const engine = new SyncEngine({
      storage,
      clock: { now: () => new Date(`${sandbox.today}T12:00:00Z`), today: () => sandbox.today },
      ...options.engine,
    });
    await engine.addConnection({
      id: options.connectionId ?? 'c1',
      client: new ProviderClient({
        apiKey: 'sandbox-key',
        rateLimit: false,
        maxRetries: 0,
        ...options.client,
      }),
    });
    return engine;
  };
  const storage = options.storage ?? new MemoryStorage();
  const engine = await makeEngine(storage);
  return { sandbox, storage, engine, restart: (s = storage) => makeEngine(s) };
}

/**
 * What a transaction is, without the engine's key: used to compare the mirror with the sandbox's
 * ground truth. `withId: false` for a bank that re-issues ids: which id a row shows depends on
 * when it was last re-read, so only its content is compared.
 */
function signature(
  withId: boolean,
  t: TwinRuleFields & { id?: string | null; providerId?: string | null },
): string {
  return JSON.stringify([
    withId ? (t.providerId ?? t.id ?? null) : null,
    toDecimalString(t.amount),
    t.currency,
    t.date,
    t.merchant?.trim() || null,
    t.description?.trim() || null,
    t.isPending,
  ]);
}

/** A row as the twin rule compares rows: amount, currency and payee (the merchant, else the description). */
function asTwinRuleRow<T extends TwinRuleFields>(row: T): TwinRuleRow & { row: T } {
  const payee = (row.merchant ?? row.description ?? '').trim().toLowerCase();
  return {
    row,
    date: row.date,
    pending: row.isPending,
    lookalike: JSON.stringify([toDecimalString(row.amount), row.currency, payee]),
  };
}

/** What a transaction says about itself, in the sandbox's rows and the mirror's alike. */
type TwinRuleFields = Pick<
  MirrorTransaction,
  'amount' | 'currency' | 'date' | 'merchant' | 'description' | 'isPending'
>;

/**
 * The listed rows the mirror does not hold that it may leave out: holds taken for a later posting
 * of the same price and payee (`holdsTakenForLaterTwins`). Compared by content, as a multiset.
 */
function excusedHolds<T extends TwinRuleFields>(
  listed: readonly T[],
  stored: readonly TwinRuleFields[],
): T[] {
  const content = (t: TwinRuleFields) => signature(false, t);
  const storedCount = new Map<string, number>();
  for (const t of stored) storedCount.set(content(t), (storedCount.get(content(t)) ?? 0) + 1);
  const missing = listed.filter((t) => {
    const left = storedCount.get(content(t)) ?? 0;
    storedCount.set(content(t), left - 1);
    return left <= 0;
  });
  return holdsTakenForLaterTwins(missing.map(asTwinRuleRow), stored.map(asTwinRuleRow)).map((t) => t.row);
}

/**
 * Asserts the mirror holds exactly the provider's current rows for every active account (as a
 * multiset), each purchase once: a hold the bank still lists beside its posted twin is not shown.
 */
export async function expectMirrorMatchesProvider(
  h: Harness,
  { connectionId = 'c1', from }: { connectionId?: string; from?: string } = {},
): Promise<SandboxTransaction[]> {
  const excused: SandboxTransaction[] = [];
  const accounts = await h.storage.listAccounts(connectionId);
  for (const account of h.sandbox.listAccounts()) {
    const mirrored = accounts.find((a) => a.id === account.id);
    expect(mirrored, `account ${account.id} is mirrored`).toBeDefined();
    if (account.status !== 'ACTIVE') continue;
    const withId = account.reissueIdsEveryDays === null;
    const listed = [...h.sandbox.transactionsOf(account.id, { includePending: true, from })].filter(
      (t) => !t.lingering,
    );
    const stored = await h.storage.findTransactions(connectionId, account.id);
    const taken = excusedHolds(listed, stored);
    excused.push(...taken);
    const takenForTwins = new Set(taken.map((t) => signature(withId, t)));
    const expected = listed
      .map((t) => signature(withId, t))
      .filter((s) => !takenForTwins.delete(s))
      .sort();
    const actual = stored.map((t) => signature(withId, t)).sort();
    expect(actual, `transactions of account ${account.id}`).toEqual(expected);
    expect(mirrored!.balance?.amount).toBe(toDecimalString(h.sandbox.balanceOf(account.id).amount));
    // The sandbox's balances are exactly its posted rows: the check must never cry wolf.
    expect(mirrored!.reconciliation?.status, `balance check of ${account.id}`).not.toBe('mismatch');
  }
  return excused;
}

/** Replays the whole feed of a connection into maps and asserts it equals the stored mirror. */
export async function expectFeedReplaysToMirror(storage: Storage, connectionId = 'c1'): Promise<FeedEntry[]> {
  const transactions = new Map<string, MirrorTransaction>();
  const accounts = new Map<string, unknown>();
  const all: FeedEntry[] = [];
  for (let after = 0; ;) {
    const page = await storage.readChanges({ after, limit: 1_000, connectionId });
    if (page.length === 0) break;
    all.push(...page);
    after = page.at(-1)!.seq;
  }
  for (const entry of all) {
    if (entry.entity === 'transaction') {
      const key = `${entry.accountId}/${entry.key}`;
      if (entry.op === 'removed') transactions.delete(key);
      else transactions.set(key, entry.record!);
    } else if (entry.entity === 'account') {
      accounts.set(entry.key, entry.record);
    }
  }
  const mirror: MirrorTransaction[] = [];
  for await (const row of storage.scanTransactions(connectionId)) mirror.push(row);
  const byKey = (a: MirrorTransaction, b: MirrorTransaction) =>
    `${a.accountId}/${a.key}` < `${b.accountId}/${b.key}` ? -1 : 1;
  expect([...transactions.values()].sort(byKey)).toEqual(mirror.sort(byKey));
  expect(new Map([...accounts].sort())).toEqual(
    new Map((await storage.listAccounts(connectionId)).map((a) => [a.id, a])),
  );
  return all;
}

export function transactionRequests(sandbox: SandboxProvider, accountId?: string) {
  return sandbox.requests.filter(
    (r) =>
      r.path.endsWith('/transactions') &&
      (accountId === undefined || r.path.includes(`/accounts/${accountId}/`)),
  );
}
