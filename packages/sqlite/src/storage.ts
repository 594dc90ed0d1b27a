import Database from 'better-sqlite3';
import {
  StorageConflictError,
  type AccountSyncState,
  type Change,
  type ConnectionState,
  type FeedEntry,
  type MirrorAccount,
  type MirrorHolding,
  type MirrorTransaction,
  type ReadChangesOptions,
  type Storage,
  type SupersededTransaction,
  type TransactionQuery,
  type WriteBatch,
} from '@finsync/sync';
import { SCAN_CHUNK, feedReadBounds, scanByKey, transactionWindowParams } from '@finsync/sync/sql';
import { whileNotBusy } from './errors.js';
import { assertSchemaCurrent, migrate } from './migrations.js';
import { codec } from './rows.js';
import { Statements } from './statements.js';

/** Open (and own) a database file. */
export interface SqliteFileOptions {
  /** Path of the database file, created if missing; `':memory:'` for a private in-memory database. */
  filename: string;
  /** Open read-only: reads work, `apply`/`removeConnection` throw, and `init` checks the schema instead of migrating. */
  readonly?: boolean | undefined;
  /** How long a write waits for another connection's lock before failing with SQLITE_BUSY. Default 5000. */
  busyTimeoutMs?: number | undefined;
  /**
   * WAL pages after which a commit copies them back into the database file (SQLite's
   * `wal_autocheckpoint`); 0 never does, for a caller that checkpoints itself. Default 10,000
   * (about 40 MiB at 4 KiB pages).
   */
  walAutocheckpointPages?: number | undefined;
}

/**
 * Use a database the caller opened and keeps owning: its pragmas are left as they are and
 * `close()` does not close it.
 */
export interface SqliteHandleOptions {
  /** An open better-sqlite3 database. Give this or `filename`, not both. */
  database: Database.Database;
}

/**
 * What `new SqliteStorage(...)` takes: a file for the storage to open and own
 * ({@link SqliteFileOptions}), or a database handle you opened ({@link SqliteHandleOptions}).
 */
export type SqliteStorageOptions = SqliteFileOptions | SqliteHandleOptions;

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
/**
 * Ten times SQLite's 1,000: a large first sync rewrites the same index and feed pages many times
 * between checkpoints, and each checkpoint copies a page once however often it changed. A 1M-row
 * first sync took 29-31 s against 34-35 s with SQLite's default (docs/benchmarks.md).
 */
const DEFAULT_WAL_AUTOCHECKPOINT_PAGES = 10_000;
const MAX_WAL_AUTOCHECKPOINT_PAGES = 1_000_000;

function openDatabase(options: SqliteFileOptions): Database.Database {
  if (typeof options.filename !== 'string')
    throw new TypeError('SqliteStorage needs a filename (or a database)');
  // SQLite reads '' as a temporary file deleted on close: every sync would be lost with it.
  if (options.filename.trim() === '')
    throw new RangeError(
      "SqliteStorage needs a filename; '' opens a temporary database (use ':memory:' for one)",
    );
  const timeout = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout < 0) {
    throw new RangeError(`busyTimeoutMs must be a non-negative integer, got ${timeout}`);
  }
  const checkpointPages = options.walAutocheckpointPages ?? DEFAULT_WAL_AUTOCHECKPOINT_PAGES;
  if (
    !Number.isInteger(checkpointPages) ||
    checkpointPages < 0 ||
    checkpointPages > MAX_WAL_AUTOCHECKPOINT_PAGES
  ) {
    throw new RangeError(
      `walAutocheckpointPages must be an integer from 0 to ${MAX_WAL_AUTOCHECKPOINT_PAGES}, got ${checkpointPages}`,
    );
  }
  const db = new Database(options.filename, { readonly: options.readonly ?? false, timeout });
  try {
    // WAL lets readers (scans, feed consumers, a backup) run while a sync writes, and with
    // synchronous = NORMAL a commit costs no fsync; a power cut may lose the last commits but
    // never corrupts. The mode is stored in the file, so a read-only handle inherits it.
    if (!db.memory && !db.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${timeout}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

interface Prepared {
  statements: Statements;
  applyBatch: Database.Transaction<(batch: WriteBatch) => void>;
  removeConnection: Database.Transaction<(connectionId: string) => void>;
}

function conflict(change: Change, problem: string): StorageConflictError {
  return new StorageConflictError(
    `${change.entity} ${change.key} of connection ${change.connectionId} ${problem}`,
    change,
  );
}

/**
 * The embedded default storage: a single SQLite file (or `:memory:`), via better-sqlite3.
 *
 * better-sqlite3 is synchronous, so every method does all of its database work in one go before
 * its promise settles. Nothing ever awaits inside a transaction, which is what makes concurrent
 * `apply` calls commit one after another, whole, in call order.
 */
export class SqliteStorage implements Storage {
  readonly #db: Database.Database;
  readonly #owned: boolean;
  /** Set when this storage opened the file; a caller's handle keeps its own timeout. */
  readonly #busyTimeoutMs: number | undefined;
  #prepared: Prepared | undefined;
  #closed = false;

  constructor(options: SqliteStorageOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('SqliteStorage needs options');
    if ('database' in options) {
      // Both given, the file was ignored in silence: the caller meant one of them.
      if ('filename' in options && (options as { filename?: unknown }).filename !== undefined)
        throw new TypeError('pass either database or filename, not both');
      if (!options.database?.open) throw new TypeError('SqliteStorage needs an open better-sqlite3 database');
      this.#db = options.database;
      this.#owned = false;
      this.#busyTimeoutMs = undefined;
    } else {
      this.#db = openDatabase(options);
      this.#owned = true;
      this.#busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    }
  }

  /** The underlying better-sqlite3 handle, e.g. for `.backup()` or ad-hoc read queries. */
  get database(): Database.Database {
    this.#assertOpen();
    return this.#db;
  }

  async init(): Promise<void> {
    this.#ready();
  }

  /** Closes the database when this storage opened it (a caller's handle stays open). Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#prepared = undefined;
    if (this.#owned) this.#db.close();
  }

  /**
   * Copies the whole database to `destination` while it stays in use (SQLite's online backup),
   * giving a consistent snapshot. Copying the file itself is not safe: recent commits may still
   * be in the `-wal` file.
   */
  async backup(destination: string): Promise<void> {
    this.#ready();
    await this.#db.backup(destination);
  }

  async apply(batch: WriteBatch): Promise<void> {
    const { applyBatch } = this.#prepare();
    this.#assertWritable();
    if (
      batch.changes.length === 0 &&
      !batch.connections?.length &&
      !batch.accountStates?.length &&
      !batch.superseded?.length &&
      !batch.releasedSuperseded?.length
    )
      return;
    // IMMEDIATE takes the write lock up front, so with another process writing we wait on the busy
    // timeout instead of failing midway when a read lock cannot be upgraded.
    whileNotBusy('apply', this.#busyTimeoutMs, () => applyBatch.immediate(batch));
  }

  /** The body of `apply`, run inside one transaction: a throw anywhere rolls back the whole batch. */
  #writeBatch(s: Statements, batch: WriteBatch): void {
    // One object for the whole batch: the feed's `@at`, bound by name beside each row's columns.
    const commitTime = { at: new Date().toISOString() };
    // Existence is checked by the write itself: the number of rows an INSERT … DO NOTHING, UPDATE
    // or DELETE touched says whether the row was there, counting the batch's own earlier changes,
    // without a SELECT per row.
    for (const change of batch.changes) {
      if (!Object.hasOwn(s.tables, change.entity))
        throw new TypeError(`unknown entity ${JSON.stringify(change.entity)}`);
      const table = s.tables[change.entity];
      if (change.op !== 'removed' && (change.record === null || change.record === undefined)) {
        // Rare and malformed: report it the way the memory storage does, existence first.
        const exists = table.exists(change);
        if (change.op === 'added' && exists) throw conflict(change, 'already exists');
        if (change.op === 'modified' && !exists) throw conflict(change, 'does not exist');
        throw new StorageConflictError(`${change.op} ${change.entity} ${change.key} has no record`, change);
      }
      switch (change.op) {
        case 'added':
          if (table.insert(change) === 0) throw conflict(change, 'already exists');
          break;
        case 'modified':
          if (table.update(change) === 0) throw conflict(change, 'does not exist');
          break;
        case 'removed':
          if (table.remove(change) === 0) throw conflict(change, 'does not exist');
          break;
        default:
          throw new TypeError(`unknown change op ${JSON.stringify((change as Change).op)}`);
      }
      s.appendFeed.run(codec.feed.values(change), commitTime);
    }
    for (const connection of batch.connections ?? [])
      s.upsertConnection.run(codec.connection.values(connection));
    for (const state of batch.accountStates ?? []) s.upsertAccountState.run(codec.accountState.values(state));
    for (const ref of batch.releasedSuperseded ?? [])
      s.releaseSuperseded.run([ref.connectionId, ref.accountId, ref.key]);
    for (const row of batch.superseded ?? []) s.upsertSuperseded.run(codec.superseded.values(row));
  }

  async getConnection(connectionId: string): Promise<ConnectionState | undefined> {
    const row = this.#ready().getConnection.get([connectionId]);
    return row && codec.connection.fromRow(row);
  }

  async listConnections(): Promise<ConnectionState[]> {
    return this.#ready().listConnections.all([]).map(codec.connection.fromRow);
  }

  async removeConnection(connectionId: string): Promise<void> {
    const { removeConnection } = this.#prepare();
    this.#assertWritable();
    whileNotBusy('removeConnection', this.#busyTimeoutMs, () => removeConnection.immediate(connectionId));
  }

  async listAccounts(connectionId: string): Promise<MirrorAccount[]> {
    return this.#ready().listAccounts.all([connectionId]).map(codec.mirror.account.fromRow);
  }

  async listAccountStates(connectionId: string): Promise<AccountSyncState[]> {
    return this.#ready().listAccountStates.all([connectionId]).map(codec.accountState.fromRow);
  }

  async findTransactions(
    connectionId: string,
    accountId: string,
    query: TransactionQuery = {},
  ): Promise<MirrorTransaction[]> {
    return this.#ready()
      .findTransactions(query)
      .all(transactionWindowParams(connectionId, accountId, query, (keys) => JSON.stringify(keys)))
      .map(codec.mirror.transaction.fromRow);
  }

  /**
   * Pages through the primary key (see `scanByKey`). Each page is one short query and no statement
   * stays open while the consumer runs: a better-sqlite3 iterator left open would make a write
   * between pages throw.
   */
  async *scanTransactions(connectionId: string, accountId?: string): AsyncIterable<MirrorTransaction> {
    yield* scanByKey((last) => {
      const s = this.#ready();
      return accountId === undefined
        ? last === undefined
          ? s.scanFirst.all([connectionId, SCAN_CHUNK])
          : s.scanNext.all([connectionId, last.accountId, last.key, SCAN_CHUNK])
        : last === undefined
          ? s.scanAccountFirst.all([connectionId, accountId, SCAN_CHUNK])
          : s.scanAccountNext.all([connectionId, accountId, last.key, SCAN_CHUNK]);
    }, codec.mirror.transaction.fromRow);
  }

  async countTransactions(connectionId: string, accountId?: string): Promise<number> {
    const s = this.#ready();
    return (
      (accountId === undefined
        ? s.countConnection.get([connectionId])
        : s.countAccount.get([connectionId, accountId])) ?? 0
    );
  }

  async listHoldings(connectionId: string, accountId: string): Promise<MirrorHolding[]> {
    return this.#ready().listHoldings.all([connectionId, accountId]).map(codec.mirror.holding.fromRow);
  }

  async listSuperseded(connectionId: string, accountId: string): Promise<SupersededTransaction[]> {
    return this.#ready().listSuperseded.all([connectionId, accountId]).map(codec.superseded.fromRow);
  }

  async readChanges(options: ReadChangesOptions): Promise<FeedEntry[]> {
    const { after, limit: bound } = feedReadBounds(options);
    const s = this.#ready();
    if (bound === 0) return [];
    // No limit is -1 to SQLite (its integers stop at 2^63).
    const limit = bound ?? -1;
    const rows =
      options.connectionId === undefined
        ? s.feedAfter.all([after, limit])
        : s.feedAfterOfConnection.all([options.connectionId, after, limit]);
    return rows.map(codec.feed.fromRow);
  }

  async lastSeq(): Promise<number> {
    return this.#ready().lastSeq.get([]) ?? 0;
  }

  /**
   * Statements for an open, migrated database. Migrating is synchronous, so a storage used before
   * `init()` (which the memory storage allows) initializes itself here instead of failing.
   */
  #prepare(): Prepared {
    this.#assertOpen();
    if (this.#prepared) return this.#prepared;
    if (this.#db.readonly) assertSchemaCurrent(this.#db);
    // A first use of a new file migrates it, a write: another process holding the lock past the
    // busy timeout is the same `DatabaseBusyError` any write gives, not the driver's own error.
    else whileNotBusy('migrate', this.#busyTimeoutMs, () => migrate(this.#db));
    const statements = new Statements(this.#db);
    this.#prepared = {
      statements,
      applyBatch: this.#db.transaction((batch: WriteBatch) => this.#writeBatch(statements, batch)),
      removeConnection: this.#db.transaction((connectionId: string) => {
        for (const statement of statements.removeConnection) statement.run([connectionId]);
      }),
    };
    return this.#prepared;
  }

  #ready(): Statements {
    return this.#prepare().statements;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('SqliteStorage is closed');
    if (!this.#db.open) throw new Error('the database of this SqliteStorage has been closed');
  }

  #assertWritable(): void {
    if (this.#db.readonly) throw new Error('SqliteStorage is read-only');
  }
}
