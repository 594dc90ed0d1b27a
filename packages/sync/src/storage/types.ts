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

/** Identifies one transaction key of one account. */
export interface TransactionRef {
  /** The connection the row belongs to. */
  connectionId: string;
  /** The account the row belongs to. */
  accountId: string;
  /** The row's key within the account (see `MirrorTransaction.key`). */
  key: string;
}

/**
 * Everything one atomic commit writes: changes to the mirror (each also appended to the change
 * feed, in order), plus bookkeeping that is not mirrored (connection and account sync state).
 * A storage applies all of it or none of it.
 */
export interface WriteBatch {
  /** Changes to the mirror, applied and appended to the feed in this order. May be empty. */
  changes: Change[];
  /** Connection states to store, each replacing the stored one with its id. */
  connections?: ConnectionState[];
  /** Account sync states to store, each replacing the stored one for its account. */
  accountStates?: AccountSyncState[];
  /** Superseded rows to record, or to replace when their key is recorded already. */
  superseded?: SupersededTransaction[];
  /** Superseded rows to forget (a key that is not recorded is ignored). Applied before `superseded`. */
  releasedSuperseded?: TransactionRef[];
  /**
   * Set by a worker that holds a lease (see `WorkQueue`): a storage that supports leases commits the
   * batch only while `workerId` still holds the lease on `connectionId`, else throws `LeaseLostError`
   * and writes nothing. Storages without leases ignore it.
   */
  fence?: {
    /** The connection whose lease guards the batch. */
    connectionId: string;
    /** The worker that must still hold that lease. */
    workerId: string;
    /**
     * The time the lease is judged at (ISO timestamp): the worker's clock, the one its leases were
     * taken and renewed by. Left out: the storage's own clock.
     */
    at?: string;
  };
}

/** Filters of `Storage.findTransactions`; every one given must match. Dates are `YYYY-MM-DD`. */
export interface TransactionQuery {
  /** First date, inclusive. */
  from?: string;
  /** Last date, inclusive. */
  to?: string;
  /** Only pending (`true`) or only posted (`false`) rows. */
  pending?: boolean;
  /**
   * Only rows with one of these keys, at most `MAX_QUERY_KEYS`. The engine asks this for the rows it
   * is about to add, to find one stored under another date (its date moved, or the provider listed
   * an id twice) and modify it instead of adding it a second time.
   */
  keys?: readonly string[];
}

/** The most keys one `findTransactions` query may name. */
export const MAX_QUERY_KEYS = 10_000;

/** Which change-feed entries `readChanges` returns, in `seq` order. */
export interface ReadChangesOptions {
  /** Return entries with `seq` greater than this (0 or omitted: from the start). */
  after?: number | undefined;
  /** At most this many entries. */
  limit: number;
  /** Only this connection's entries. */
  connectionId?: string | undefined;
}

/**
 * Where the engine keeps its mirror, change feed and bookkeeping. Every method is async so one
 * interface fits in-process, embedded and networked stores. Adapters prove themselves against
 * `runStorageConformance` from `@finsync/sync/testing`.
 *
 * Consistency rules every adapter keeps:
 * - `apply` is atomic: on any error nothing of the batch is visible and the error is thrown.
 * - `apply` rejects (with `StorageConflictError`) an `added` change for a key that exists, and a
 *   `modified`/`removed` change for a key that does not; this keeps a replayed feed equal to the mirror.
 * - Feed `seq` values are unique and increase with commit order; a reader that has seen `seq` n and
 *   later reads `after: n` misses nothing committed after it.
 * - Everything is scoped by connection id; account ids and keys are unique only within it.
 */
export interface Storage {
  /** Creates or migrates the schema. Safe to call more than once. */
  init(): Promise<void>;
  /** Releases what the storage holds open (a database handle or pool it made). */
  close(): Promise<void>;

  /** Commits one batch atomically (see the rules above). */
  apply(batch: WriteBatch): Promise<void>;

  /** A connection's state; `undefined` when none has this id. */
  getConnection(connectionId: string): Promise<ConnectionState | undefined>;
  /** Every stored connection's state. */
  listConnections(): Promise<ConnectionState[]>;
  /** Deletes a connection, its mirror, its feed entries and its bookkeeping (superseded rows included). */
  removeConnection(connectionId: string): Promise<void>;

  /** The connection's mirrored accounts, `gone` and `inactive` ones included. */
  listAccounts(connectionId: string): Promise<MirrorAccount[]>;
  /** The connection's per-account sync bookkeeping. */
  listAccountStates(connectionId: string): Promise<AccountSyncState[]>;

  /** Transactions of one account, filtered; ordered by date then key. */
  findTransactions(
    connectionId: string,
    accountId: string,
    query?: TransactionQuery,
  ): Promise<MirrorTransaction[]>;
  /**
   * Every transaction of a connection (optionally one account), streamed in key order with bounded
   * memory. The engine may `apply` changes to the rows it has been given while the scan goes on (a
   * row taking its account's currency): a scan holds no statement, cursor or lock between rows.
   */
  scanTransactions(connectionId: string, accountId?: string): AsyncIterable<MirrorTransaction>;
  /** How many transaction rows the mirror holds for a connection (optionally one account). */
  countTransactions(connectionId: string, accountId?: string): Promise<number>;

  /** The account's mirrored holdings. */
  listHoldings(connectionId: string, accountId: string): Promise<MirrorHolding[]>;

  /** The account's superseded rows (engine bookkeeping, see `SupersededTransaction`), ordered by key. */
  listSuperseded(connectionId: string, accountId: string): Promise<SupersededTransaction[]>;

  /** One batch of the change feed, in `seq` order; fewer than `limit` entries (or none) once caught up. */
  readChanges(options: ReadChangesOptions): Promise<FeedEntry[]>;
  /** The highest `seq` committed so far (0 when the feed is empty). */
  lastSeq(): Promise<number>;
}

/**
 * The longest lease a work queue grants (a day): a lease is renewed every third of its length, and
 * one of years would overflow a database's interval.
 */
export const MAX_LEASE_MS = 86_400_000;

/**
 * Work distribution for many engine processes over one shared storage (implemented by
 * `PostgresStorage`). A connection is due when its next run time has passed, it is not waiting for
 * re-auth, any rate-limit pause is over, and no live lease is held on it. A worker that dies simply
 * stops renewing: its lease expires and another worker claims the connection, resuming from the last
 * commit.
 */
export interface WorkQueue {
  /** Claims up to `limit` due connections for `workerId`, each leased until `now + leaseMs`. */
  claimDue(workerId: string, options: { limit: number; leaseMs: number; now: Date }): Promise<string[]>;
  /** Extends a lease `workerId` holds. Returns false when the lease was lost (expired and taken). */
  renewLease(
    connectionId: string,
    workerId: string,
    options: { leaseMs: number; now: Date },
  ): Promise<boolean>;
  /** Gives the lease up and records when the connection is next due. */
  releaseLease(connectionId: string, workerId: string, nextRunAt: Date): Promise<void>;
  /**
   * Ends whatever lease is held on the connection, whoever holds it, and makes it due at `now`. For
   * new credentials (`SyncEngine.updateCredentials`): a run with the old ones, in any process, then
   * commits nothing more (`LeaseLostError`), so it cannot write `reauth_required` over the new key's
   * `active`. Optional: a work queue without it leaves such a run to finish.
   */
  revokeLease?(connectionId: string, now: Date): Promise<void>;
  /** Lease and schedule state of every connection, for monitoring. */
  listLeases(): Promise<LeaseInfo[]>;
}

/** One connection's lease and schedule, as `WorkQueue.listLeases` reports it. Times are ISO timestamps. */
export interface LeaseInfo {
  /** The connection. */
  connectionId: string;
  /**
   * The lease's owner; `null` when not leased. Kept after expiry until taken or released. `SyncWorker`
   * claims as `{workerId}#{instance}#{claim}`: one owner a claim, so a lease claimed again fences out the run
   * of the claim before.
   */
  workerId: string | null;
  /** When that lease runs out; `null` when not leased. A past time means the lease is free to claim. */
  leaseExpiresAt: string | null;
  /** When the connection is next due; `null` when not set yet (due now). */
  nextRunAt: string | null;
}

/** Whether a storage also implements {@link WorkQueue}, as `SyncWorker` requires. */
export function isWorkQueue(storage: unknown): storage is WorkQueue {
  return typeof (storage as Partial<WorkQueue>)?.claimDue === 'function';
}
