import { mayCall } from '../engine/connection-status.js';
import { LeaseLostError, StorageConflictError } from '../errors.js';
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
import type {
  LeaseInfo,
  ReadChangesOptions,
  Storage,
  TransactionQuery,
  WorkQueue,
  WriteBatch,
} from './types.js';
import { feedReadBounds } from './feed-read.js';
import { fenceTime } from './fence.js';
import { claimCount, leaseDate, leaseLength, leaseWorker } from './lease-args.js';
import { MAX_QUERY_KEYS } from './types.js';

type Table<R> = Map<string, R>;

function entityKey(change: Pick<Change, 'entity' | 'connectionId' | 'accountId' | 'key'>): string {
  return `${change.entity}\u0000${change.connectionId}\u0000${change.accountId}\u0000${change.key}`;
}

function supersededKey(ref: { connectionId: string; accountId: string; key: string }): string {
  return `${ref.connectionId}\u0000${ref.accountId}\u0000${ref.key}`;
}

/**
 * Code-point order, the order of the SQL stores (UTF-8 bytes, `COLLATE "C"`). JavaScript's `<`
 * compares UTF-16 units, which puts U+E000–U+FFFF after every character past U+FFFF (an emoji).
 */
function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 unit's place in code-point order: surrogates (past U+FFFF) above U+E000–U+FFFF. */
function codePointRank(unit: number): number {
  return unit < 0xd800 ? unit : unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

function compareTransactions(a: MirrorTransaction, b: MirrorTransaction): number {
  return a.date < b.date ? -1 : a.date > b.date ? 1 : byCodePoint(a.key, b.key);
}

/**
 * A storage that lives in process memory. For tests, demos and short-lived jobs: nothing survives
 * the process. Records are copied in and out, so callers can never change stored state by accident.
 */
export class MemoryStorage implements Storage, WorkQueue {
  readonly #connections: Table<ConnectionState> = new Map();
  readonly #accountStates: Table<AccountSyncState> = new Map();
  /** Mirror rows of every entity, keyed by `entityKey`. */
  readonly #mirror: Table<MirrorAccount | MirrorTransaction | MirrorHolding> = new Map();
  /** Per connection and account, the transaction keys, so window queries need not scan everything. */
  readonly #transactionIndex = new Map<string, Map<string, Set<string>>>();
  /** Superseded rows, keyed by connection, account and key. */
  readonly #superseded: Table<SupersededTransaction> = new Map();
  readonly #feed: FeedEntry[] = [];
  #seq = 0;
  #closed = false;
  readonly #leases = new Map<
    string,
    { workerId: string | null; expiresAt: number | null; nextRunAt: number | null }
  >();

  async init(): Promise<void> {}

  async close(): Promise<void> {
    this.#closed = true;
  }

  async apply(batch: WriteBatch): Promise<void> {
    this.#assertOpen();
    if (batch.fence) {
      const lease = this.#leases.get(batch.fence.connectionId);
      if (
        !lease ||
        lease.workerId !== batch.fence.workerId ||
        (lease.expiresAt ?? 0) <= fenceTime(batch.fence.at)
      ) {
        throw new LeaseLostError(batch.fence.connectionId, batch.fence.workerId);
      }
    }
    // Validate the whole batch against the current state plus the batch's own earlier changes
    // before touching anything, so a rejected batch leaves no trace.
    const staged = new Map<string, boolean>();
    for (const change of batch.changes) {
      const key = entityKey(change);
      const exists = staged.get(key) ?? this.#mirror.has(key);
      if (change.op === 'added' && exists) {
        throw new StorageConflictError(
          `${change.entity} ${change.key} of connection ${change.connectionId} already exists`,
          change,
        );
      }
      if (change.op !== 'added' && !exists) {
        throw new StorageConflictError(
          `${change.entity} ${change.key} of connection ${change.connectionId} does not exist`,
          change,
        );
      }
      if (change.op !== 'removed' && change.record === null) {
        throw new StorageConflictError(`${change.op} ${change.entity} ${change.key} has no record`, change);
      }
      staged.set(key, change.op !== 'removed');
    }

    // Every copy and key the batch writes is made before anything is written: one that throws (a
    // function in a record, an entry that is not an object) leaves no trace, as the SQL stores'
    // rollback does.
    const at = new Date().toISOString();
    const changes = batch.changes.map((change) => ({
      change,
      key: entityKey(change),
      record: change.op === 'removed' ? undefined : structuredClone(change.record!),
      entry: structuredClone({ ...change, seq: 0, at }) as FeedEntry,
    }));
    const connections = (batch.connections ?? []).map((c) => [c.id, { ...c }] as const);
    const states = (batch.accountStates ?? []).map(
      (state) => [`${state.connectionId}\u0000${state.accountId}`, structuredClone(state)] as const,
    );
    const released = (batch.releasedSuperseded ?? []).map(supersededKey);
    const superseded = (batch.superseded ?? []).map(
      (row) => [supersededKey(row), structuredClone(row)] as const,
    );

    for (const { change, key, record, entry } of changes) {
      if (record === undefined) this.#mirror.delete(key);
      else this.#mirror.set(key, record);
      if (change.entity === 'transaction') this.#index(change, change.op !== 'removed');
      this.#seq += 1;
      entry.seq = this.#seq;
      this.#feed.push(entry);
    }
    for (const [id, connection] of connections) this.#connections.set(id, connection);
    for (const [key, state] of states) this.#accountStates.set(key, state);
    for (const key of released) this.#superseded.delete(key);
    for (const [key, row] of superseded) this.#superseded.set(key, row);
  }

  #index(change: Pick<Change, 'connectionId' | 'accountId' | 'key'>, present: boolean): void {
    let accounts = this.#transactionIndex.get(change.connectionId);
    if (!accounts) this.#transactionIndex.set(change.connectionId, (accounts = new Map()));
    let keys = accounts.get(change.accountId);
    if (!keys) accounts.set(change.accountId, (keys = new Set()));
    if (present) keys.add(change.key);
    else keys.delete(change.key);
  }

  async getConnection(connectionId: string): Promise<ConnectionState | undefined> {
    const found = this.#connections.get(connectionId);
    return found && { ...found };
  }

  async listConnections(): Promise<ConnectionState[]> {
    return [...this.#connections.values()].map((c) => ({ ...c })).sort((a, b) => byCodePoint(a.id, b.id));
  }

  async removeConnection(connectionId: string): Promise<void> {
    this.#connections.delete(connectionId);
    this.#leases.delete(connectionId);
    for (const key of [...this.#accountStates.keys()])
      if (key.startsWith(`${connectionId}\u0000`)) this.#accountStates.delete(key);
    for (const [key, record] of [...this.#mirror])
      if (record.connectionId === connectionId) this.#mirror.delete(key);
    this.#transactionIndex.delete(connectionId);
    for (const [key, row] of [...this.#superseded])
      if (row.connectionId === connectionId) this.#superseded.delete(key);
    for (let i = this.#feed.length - 1; i >= 0; i -= 1)
      if (this.#feed[i]!.connectionId === connectionId) this.#feed.splice(i, 1);
  }

  async listAccounts(connectionId: string): Promise<MirrorAccount[]> {
    const accounts: MirrorAccount[] = [];
    for (const record of this.#mirror.values()) {
      if ('state' in record && record.connectionId === connectionId) accounts.push(structuredClone(record));
    }
    return accounts.sort((a, b) => byCodePoint(a.id, b.id));
  }

  async listAccountStates(connectionId: string): Promise<AccountSyncState[]> {
    return [...this.#accountStates.values()]
      .filter((s) => s.connectionId === connectionId)
      .map((s) => structuredClone(s))
      .sort((a, b) => byCodePoint(a.accountId, b.accountId));
  }

  #transactionsOf(connectionId: string, accountId: string): MirrorTransaction[] {
    const keys = this.#transactionIndex.get(connectionId)?.get(accountId) ?? new Set<string>();
    const rows: MirrorTransaction[] = [];
    for (const key of keys) {
      rows.push(
        this.#mirror.get(
          entityKey({ entity: 'transaction', connectionId, accountId, key }),
        ) as MirrorTransaction,
      );
    }
    return rows;
  }

  async findTransactions(
    connectionId: string,
    accountId: string,
    query: TransactionQuery = {},
  ): Promise<MirrorTransaction[]> {
    if (query.keys !== undefined && query.keys.length > MAX_QUERY_KEYS) {
      throw new RangeError(`findTransactions takes at most ${MAX_QUERY_KEYS} keys, got ${query.keys.length}`);
    }
    const keys = query.keys === undefined ? undefined : new Set(query.keys);
    return this.#transactionsOf(connectionId, accountId)
      .filter(
        (t) =>
          (query.from === undefined || t.date >= query.from) &&
          (query.to === undefined || t.date <= query.to) &&
          (query.pending === undefined || t.isPending === query.pending) &&
          (keys === undefined || keys.has(t.key)),
      )
      .sort(compareTransactions)
      .map((t) => ({ ...t }));
  }

  async *scanTransactions(connectionId: string, accountId?: string): AsyncIterable<MirrorTransaction> {
    const accounts = [...(this.#transactionIndex.get(connectionId)?.keys() ?? [])].sort(byCodePoint);
    for (const account of accounts) {
      if (accountId !== undefined && account !== accountId) continue;
      const rows = this.#transactionsOf(connectionId, account).sort((a, b) => byCodePoint(a.key, b.key));
      for (const row of rows) yield { ...row };
    }
  }

  async countTransactions(connectionId: string, accountId?: string): Promise<number> {
    let count = 0;
    for (const [account, keys] of this.#transactionIndex.get(connectionId) ?? []) {
      if (accountId === undefined || account === accountId) count += keys.size;
    }
    return count;
  }

  async listHoldings(connectionId: string, accountId: string): Promise<MirrorHolding[]> {
    const holdings: MirrorHolding[] = [];
    for (const [key, record] of this.#mirror) {
      if (key.startsWith(`holding\u0000${connectionId}\u0000${accountId}\u0000`))
        holdings.push({ ...(record as MirrorHolding) });
    }
    return holdings.sort((a, b) => byCodePoint(a.key, b.key));
  }

  async listSuperseded(connectionId: string, accountId: string): Promise<SupersededTransaction[]> {
    return [...this.#superseded.values()]
      .filter((row) => row.connectionId === connectionId && row.accountId === accountId)
      .sort((a, b) => byCodePoint(a.key, b.key))
      .map((row) => structuredClone(row));
  }

  async readChanges(options: ReadChangesOptions): Promise<FeedEntry[]> {
    const { after, limit = Infinity } = feedReadBounds(options);
    const out: FeedEntry[] = [];
    // The feed is sorted by seq, so start from the first entry past `after`.
    let low = 0;
    let high = this.#feed.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#feed[mid]!.seq <= after) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < this.#feed.length && out.length < limit; i += 1) {
      const entry = this.#feed[i]!;
      if (options.connectionId === undefined || entry.connectionId === options.connectionId)
        out.push(structuredClone(entry));
    }
    return out;
  }

  async lastSeq(): Promise<number> {
    return this.#seq;
  }

  #lease(connectionId: string) {
    let lease = this.#leases.get(connectionId);
    if (!lease)
      this.#leases.set(connectionId, (lease = { workerId: null, expiresAt: null, nextRunAt: null }));
    return lease;
  }

  async claimDue(
    workerId: string,
    options: { limit: number; leaseMs: number; now: Date },
  ): Promise<string[]> {
    leaseWorker(workerId, 'claimDue');
    leaseDate(options.now, 'now');
    const leaseMs = leaseLength(options.leaseMs);
    const now = options.now.getTime();
    // Due first, then by id: the order PostgreSQL's claim takes them in.
    const due = [...this.#connections.values()]
      .filter((c) => mayCall(c, now))
      .map((c) => ({ id: c.id, lease: this.#lease(c.id) }))
      .filter(
        ({ lease }) =>
          (lease.nextRunAt ?? -Infinity) <= now && (lease.workerId === null || (lease.expiresAt ?? 0) <= now),
      )
      .sort(
        (a, b) =>
          (a.lease.nextRunAt ?? -Infinity) - (b.lease.nextRunAt ?? -Infinity) || byCodePoint(a.id, b.id),
      )
      .slice(0, claimCount(options.limit));
    for (const { lease } of due) {
      lease.workerId = workerId;
      lease.expiresAt = now + leaseMs;
    }
    return due.map((d) => d.id);
  }

  async renewLease(
    connectionId: string,
    workerId: string,
    options: { leaseMs: number; now: Date },
  ): Promise<boolean> {
    leaseDate(options.now, 'now');
    const leaseMs = leaseLength(options.leaseMs);
    const lease = this.#leases.get(connectionId);
    const now = options.now.getTime();
    if (!lease || lease.workerId !== workerId || (lease.expiresAt ?? 0) <= now) return false;
    lease.expiresAt = now + leaseMs;
    return true;
  }

  async releaseLease(connectionId: string, workerId: string, nextRunAt: Date): Promise<void> {
    leaseDate(nextRunAt, 'nextRunAt');
    const lease = this.#leases.get(connectionId);
    if (!lease || lease.workerId !== workerId) return;
    Object.assign(lease, { workerId: null, expiresAt: null, nextRunAt: nextRunAt.getTime() });
  }

  async revokeLease(connectionId: string, now: Date): Promise<void> {
    leaseDate(now, 'now');
    // A connection never claimed is due from `now` as well, as in PostgreSQL.
    if (!this.#connections.has(connectionId)) return;
    Object.assign(this.#lease(connectionId), { workerId: null, expiresAt: null, nextRunAt: now.getTime() });
  }

  async listLeases(): Promise<LeaseInfo[]> {
    return [...this.#connections.keys()].sort(byCodePoint).map((connectionId) => {
      const lease = this.#lease(connectionId);
      const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
      return {
        connectionId,
        workerId: lease.workerId,
        leaseExpiresAt: iso(lease.expiresAt),
        nextRunAt: iso(lease.nextRunAt),
      };
    });
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('MemoryStorage is closed');
  }
}
