import {
  type AccountSyncState,
  type ConnectionState,
  type FeedEntry,
  type LeaseInfo,
  type MirrorAccount,
  type MirrorHolding,
  type MirrorTransaction,
  type ReadChangesOptions,
  type Storage,
  type SupersededTransaction,
  type TransactionQuery,
  type WorkQueue,
  type WriteBatch,
  MAX_QUERY_KEYS,
} from '@finsync/sync';
import {
  SCAN_CHUNK,
  claimCount,
  feedReadBounds,
  leaseDate,
  leaseLength,
  leaseWorker,
  scanByKey,
  transactionWindowParams,
} from '@finsync/sync/sql';
import { Pool, type PoolConfig } from 'pg';
import { arrayLiteral } from './array-literal.js';
import { inTransaction, isRetryable } from './db.js';
import { assertSchemaCurrent, migrate } from './migrations.js';
import { codec, type Row } from './rows.js';
import { DEFAULT_SCHEMA, quoteSchema, schemaLockKey } from './schema.js';
import { buildStatements, type Statements } from './sql.js';
import { CountFellShort, groupChanges, hasWork, writeBatch } from './write.js';
import { oneStatement, writeOne } from './write-one.js';

/**
 * What `new PostgresStorage(...)` takes: a pool (yours, or one it makes from a connection string or
 * pg's environment variables), the schema to keep the tables in, and whether `init()` migrates.
 */
export interface PostgresStorageOptions {
  /**
   * A pool you own: the storage uses it and leaves it open on `close()`. Give it room for your
   * concurrency: each in-flight `apply` holds one connection for its transaction.
   */
  pool?: Pool | undefined;
  /**
   * For a pool the storage creates (and ends on `close()`), e.g. `process.env.DATABASE_URL`. With
   * neither `pool` nor `connectionString`, pg's `PG*` environment variables apply.
   */
  connectionString?: string | undefined;
  /** Extra settings for a pool the storage creates (`max`, `ssl`, timeouts…). */
  poolConfig?: Omit<PoolConfig, 'connectionString'> | undefined;
  /** Schema holding the tables; created by the first migration. Default `'finsync'`. */
  schema?: string | undefined;
  /**
   * `'auto'` (default): `init()` applies pending migrations. `'manual'`: `init()` only checks that
   * the schema is current (run `migrate()` from a deploy step instead).
   */
  migrate?: 'auto' | 'manual' | undefined;
  /**
   * How long a write's transaction may wait on this process between two statements before
   * PostgreSQL ends it (`idle_in_transaction_session_timeout`, set for the storage's own
   * transactions only). A writer that freezes mid-transaction (a paused VM, a partition) would
   * otherwise hold the feed's lock, and so stall every writer of the schema, until TCP gives up on
   * it, hours later. Default 60 000 ms; the engine's writes never pause that long.
   */
  idleInTransactionTimeoutMs?: number | undefined;
}

/** `idleInTransactionTimeoutMs` when not given. */
export const DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** Attempts of one `apply` when Postgres aborts it for a deadlock or serialization failure. */
const APPLY_ATTEMPTS = 3;

/** SQL LIMIT for a claim's count (`claimCount`); null: no limit (a bigint parameter stops at 2^63). */
function sqlLimit(count: number): number | null {
  return count > Number.MAX_SAFE_INTEGER ? null : count;
}

/** How long the pool the storage creates waits for a connection before the call fails. */
const DEFAULT_CONNECTION_TIMEOUT_MS = 30_000;

/** Whether `value` is text PostgreSQL cannot store (it holds U+0000). */
function unstorable(value: unknown): boolean {
  return typeof value === 'string' && value.includes('\u0000');
}

/**
 * Storage on PostgreSQL, for many engine processes sharing one database: besides `Storage` it is
 * a `WorkQueue` that hands each due connection to one worker at a time under a lease.
 *
 * Every `apply` is one transaction of a few set-based statements (not one per row), optionally
 * fenced by a lease; feed seqs become visible strictly in seq order across all writers.
 */
export class PostgresStorage implements Storage, WorkQueue {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #schema: string;
  readonly #idleTimeoutMs: number;
  readonly #schemaKey: number;
  readonly #migrate: 'auto' | 'manual';
  readonly #sql: Statements;
  #initialized: Promise<void> | undefined;
  #closed = false;

  constructor(options: PostgresStorageOptions = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError('PostgresStorage needs options');
    if (options.pool && (options.connectionString !== undefined || options.poolConfig !== undefined)) {
      throw new TypeError('pass either pool or connectionString/poolConfig, not both');
    }
    // pg would fail later, on the first query, with "str.charAt is not a function".
    if (options.connectionString !== undefined && typeof options.connectionString !== 'string')
      throw new TypeError(`connectionString must be a string, got ${typeof options.connectionString}`);
    const idle = options.idleInTransactionTimeoutMs ?? DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS;
    if (!(Number.isSafeInteger(idle) && idle >= 1 && idle <= 2_147_483_647))
      throw new RangeError(
        `idleInTransactionTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${String(idle)}`,
      );
    this.#idleTimeoutMs = idle;
    const mode = options.migrate ?? 'auto';
    if (mode !== 'auto' && mode !== 'manual') throw new TypeError(`migrate must be 'auto' or 'manual'`);
    this.#schema = options.schema ?? DEFAULT_SCHEMA;
    quoteSchema(this.#schema);
    this.#schemaKey = schemaLockKey(this.#schema);
    this.#migrate = mode;
    this.#sql = buildStatements(this.#schema);
    if (options.pool) {
      this.#pool = options.pool;
      this.#ownsPool = false;
    } else {
      // pg waits for a connection and for a silent peer without limit by default: a server that stops
      // answering would hold a sync, and a worker's `stop()`, until TCP gives up. Both can be overridden.
      this.#pool = new Pool({
        connectionTimeoutMillis: DEFAULT_CONNECTION_TIMEOUT_MS,
        keepAlive: true,
        // The first probe after 30 s of silence, not the system's default two hours.
        keepAliveInitialDelayMillis: 30_000,
        ...options.poolConfig,
        connectionString: options.connectionString,
      });
      this.#ownsPool = true;
      // An idle pooled connection that dies (server restart, network) is reported as an 'error'
      // event, which would crash the process without a listener. The pool has already dropped that
      // connection, and the next query reports any lasting problem to its caller.
      this.#pool.on('error', () => undefined);
    }
  }

  /** The pool this storage queries, e.g. for ad-hoc reads or health checks. */
  get pool(): Pool {
    return this.#pool;
  }

  /** The schema holding the tables. */
  get schema(): string {
    return this.#schema;
  }

  /** Migrates (or, with `migrate: 'manual'`, checks) the schema. Idempotent; other methods call it first. */
  async init(): Promise<void> {
    await this.#ready();
  }

  /** Idempotent. Ends the pool only if the storage created it; calls after it reject. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Let an init in flight settle first, so ending the pool does not fail it halfway.
    await this.#initialized?.catch(() => undefined);
    if (this.#ownsPool) await this.#pool.end();
  }

  async apply(batch: WriteBatch): Promise<void> {
    await this.#ready();
    if (!hasWork(batch)) return;
    // Checked before any round trip: a malformed batch costs nothing and writes nothing.
    const groups = groupChanges(batch.changes);
    const one = oneStatement(this.#sql, batch);
    // Written by row counts first; a batch whose count falls short left no trace and is written
    // again with RETURNING, which names the change that collided (or succeeds, if it no longer does).
    let counted = true;
    for (let attempt = 1; ;) {
      try {
        if (one) await writeOne(this.#pool, one);
        else
          await inTransaction(
            this.#pool,
            (client) => writeBatch(client, this.#sql, this.#schemaKey, batch, groups, counted),
            { idleTimeoutMs: this.#idleTimeoutMs },
          );
        return;
      } catch (error) {
        if (error instanceof CountFellShort && counted) {
          counted = false;
          continue;
        }
        // Concurrent batches touching the same rows in different orders can deadlock; Postgres
        // aborts one, which then left no trace and can simply run again.
        if (attempt >= APPLY_ATTEMPTS || !isRetryable(error)) throw error;
        attempt += 1;
      }
    }
  }

  async getConnection(connectionId: string): Promise<ConnectionState | undefined> {
    const row = (await this.#read<Row['connection']>(this.#sql.getConnection, [connectionId]))[0];
    return row && codec.connection.fromRow(row);
  }

  async listConnections(): Promise<ConnectionState[]> {
    return (await this.#read<Row['connection']>(this.#sql.listConnections)).map(codec.connection.fromRow);
  }

  async removeConnection(connectionId: string): Promise<void> {
    if (unstorable(connectionId)) return; // no such connection can be stored
    await this.#ready();
    await inTransaction(
      this.#pool,
      async (client) => {
        await client.query(this.#sql.removeConnectionRow, [connectionId]);
        await client.query(this.#sql.removeConnectionData, [connectionId]);
      },
      { idleTimeoutMs: this.#idleTimeoutMs },
    );
  }

  async listAccounts(connectionId: string): Promise<MirrorAccount[]> {
    return (await this.#read<Row['account']>(this.#sql.listAccounts, [connectionId])).map(
      codec.mirror.account.fromRow,
    );
  }

  async listAccountStates(connectionId: string): Promise<AccountSyncState[]> {
    return (await this.#read<Row['accountState']>(this.#sql.listAccountStates, [connectionId])).map(
      codec.accountState.fromRow,
    );
  }

  async findTransactions(
    connectionId: string,
    accountId: string,
    query: TransactionQuery = {},
  ): Promise<MirrorTransaction[]> {
    // A key with U+0000 cannot be stored, so it finds nothing; the others are still looked up (a
    // list over the bound is left whole, for transactionWindowParams to refuse).
    const storable =
      query.keys?.some(unstorable) && query.keys.length <= MAX_QUERY_KEYS
        ? { ...query, keys: query.keys.filter((key) => !unstorable(key)) }
        : query;
    const params = transactionWindowParams(connectionId, accountId, storable, arrayLiteral);
    return (await this.#read<Row['transaction']>(this.#sql.findTransactions(query), params)).map(
      codec.mirror.transaction.fromRow,
    );
  }

  /**
   * Pages through the primary key (see `scanByKey`), one short query per page, holding no
   * connection or cursor while the consumer runs.
   */
  async *scanTransactions(connectionId: string, accountId?: string): AsyncIterable<MirrorTransaction> {
    const sql = this.#sql;
    yield* scanByKey(
      (last) =>
        accountId === undefined
          ? last === undefined
            ? this.#read<Row['transaction']>(sql.scanFirst, [connectionId, SCAN_CHUNK])
            : this.#read<Row['transaction']>(sql.scanNext, [
                connectionId,
                last.accountId,
                last.key,
                SCAN_CHUNK,
              ])
          : last === undefined
            ? this.#read<Row['transaction']>(sql.scanAccountFirst, [connectionId, accountId, SCAN_CHUNK])
            : this.#read<Row['transaction']>(sql.scanAccountNext, [
                connectionId,
                accountId,
                last.key,
                SCAN_CHUNK,
              ]),
      codec.mirror.transaction.fromRow,
    );
  }

  async countTransactions(connectionId: string, accountId?: string): Promise<number> {
    const rows =
      accountId === undefined
        ? await this.#read<{ n: string }>(this.#sql.countConnection, [connectionId])
        : await this.#read<{ n: string }>(this.#sql.countAccount, [connectionId, accountId]);
    return Number(rows[0]?.n ?? 0);
  }

  async listSuperseded(connectionId: string, accountId: string): Promise<SupersededTransaction[]> {
    return (await this.#read<Row['superseded']>(this.#sql.listSuperseded, [connectionId, accountId])).map(
      codec.superseded.fromRow,
    );
  }

  async listHoldings(connectionId: string, accountId: string): Promise<MirrorHolding[]> {
    return (await this.#read<Row['holding']>(this.#sql.listHoldings, [connectionId, accountId])).map(
      codec.mirror.holding.fromRow,
    );
  }

  async readChanges(options: ReadChangesOptions): Promise<FeedEntry[]> {
    const { after, limit } = feedReadBounds(options);
    await this.#ready();
    if (limit === 0) return [];
    // No limit is NULL to PostgreSQL (a bigint parameter stops at 2^63).
    const params: (number | string | null)[] = [after, limit ?? null];
    const rows =
      options.connectionId === undefined
        ? await this.#read<Row['feed']>(this.#sql.feedAfter, params)
        : await this.#read<Row['feed']>(this.#sql.feedAfterOfConnection, [...params, options.connectionId]);
    return rows.map(codec.feed.fromRow);
  }

  async lastSeq(): Promise<number> {
    const rows = await this.#query<{ last_seq: string }>(this.#sql.lastSeq);
    return Number(rows[0]?.last_seq ?? 0);
  }

  async claimDue(
    workerId: string,
    options: { limit: number; leaseMs: number; now: Date },
  ): Promise<string[]> {
    leaseWorker(workerId, 'claimDue');
    const now = leaseDate(options.now, 'now');
    const leaseMs = leaseLength(options.leaseMs);
    await this.#ready();
    const count = claimCount(options.limit);
    if (count === 0) return [];
    const rows = await this.#query<{ id: string }>(this.#sql.claimDue, [
      workerId,
      now,
      leaseMs,
      sqlLimit(count),
    ]);
    return rows.map((row) => row.id);
  }

  async renewLease(
    connectionId: string,
    workerId: string,
    options: { leaseMs: number; now: Date },
  ): Promise<boolean> {
    const now = leaseDate(options.now, 'now');
    const leaseMs = leaseLength(options.leaseMs);
    // Ids no connection or worker can have here: no lease to renew (PostgreSQL would refuse the text).
    if (unstorable(connectionId) || unstorable(workerId)) return false;
    await this.#ready();
    const result = await this.#pool.query(this.#sql.renewLease, [connectionId, workerId, now, leaseMs]);
    return result.rowCount === 1;
  }

  async releaseLease(connectionId: string, workerId: string, nextRunAt: Date): Promise<void> {
    const next = leaseDate(nextRunAt, 'nextRunAt');
    if (unstorable(connectionId) || unstorable(workerId)) return; // no such lease
    await this.#query(this.#sql.releaseLease, [connectionId, workerId, next]);
  }

  async revokeLease(connectionId: string, now: Date): Promise<void> {
    const at = leaseDate(now, 'now');
    if (unstorable(connectionId)) return; // no such lease
    await this.#query(this.#sql.revokeLease, [connectionId, at]);
  }

  async listLeases(): Promise<LeaseInfo[]> {
    const rows = await this.#query<{
      id: string;
      lease_owner: string | null;
      lease_expires_at: string | null;
      next_run_at: string | null;
    }>(this.#sql.listLeases);
    return rows.map((row) => ({
      connectionId: row.id,
      workerId: row.lease_owner,
      leaseExpiresAt: row.lease_expires_at,
      nextRunAt: row.next_run_at,
    }));
  }

  /**
   * A read. No stored text holds U+0000 (PostgreSQL's text cannot), so a parameter with one matches
   * no row: the answer is empty, where PostgreSQL would refuse the parameter with a driver error.
   */
  async #read<R extends object>(text: string, values: unknown[] = []): Promise<R[]> {
    if (values.some(unstorable)) return [];
    return this.#query<R>(text, values);
  }

  async #query<R extends object>(text: string, values?: unknown[]): Promise<R[]> {
    await this.#ready();
    return (await this.#pool.query<R & Record<string, unknown>>(text, values)).rows;
  }

  /**
   * Initializes on first use, once: a storage used before `init()` (which the memory storage
   * allows) migrates itself instead of failing. A failed init is retried by the next call.
   */
  #ready(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('PostgresStorage is closed'));
    this.#initialized ??= (
      this.#migrate === 'auto'
        ? migrate(this.#pool, { schema: this.#schema }).then(() => undefined)
        : assertSchemaCurrent(this.#pool, this.#schema)
    ).catch((error: unknown) => {
      this.#initialized = undefined;
      throw error;
    });
    return this.#initialized;
  }
}
