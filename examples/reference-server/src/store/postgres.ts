/**
 * The app store on PostgreSQL (pg). Its pool is shared with the engine's `PostgresStorage`, which
 * keeps its own tables in another schema. Every table name is `<quoted schema>.<table>`, never
 * resolved through `search_path`; every value is a bound parameter.
 *
 * Several server instances may use one database: a unit of work's `lock…`/`find…` reads take row
 * locks (`FOR UPDATE`), so a PATCH and a feed batch on the same row, or two feed batches of one
 * connection, run one after the other instead of overwriting each other.
 */
import { Pool, type QueryResultRow } from 'pg';
import { migrateAppSchema, quoteSchema } from './postgres-schema.js';
import { postgresRelatedReads } from './postgres-reads.js';
import { TX_COLUMNS } from './columns.js';
import {
  oneQueryAtATime,
  postgresUnitOfWork,
  rows,
  storedTransaction,
  type Queryable,
} from './postgres-unit-of-work.js';
import type {
  AccountRecord,
  ActiveApiKey,
  ApiKeyInfo,
  AppStore,
  AtomicallyOptions,
  CommitDeadline,
  UnitOfWork,
  Category,
  Dated,
  Merchant,
  NewApiKey,
  OwnedKind,
  ProviderCredential,
  RelatedReads,
  StoredTransaction,
  Tag,
  TransactionFilter,
  TransactionRow,
  User,
} from './types.js';
import { MAX_TAGS_PER_USER, ReadTimedOut, totalShownBy } from './types.js';

/** SQLite's LIKE ignores the case of ASCII letters only; `translate` with these does the same here. */
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

export interface PostgresAppStoreOptions {
  connectionString: string;
  /** Schema of the app's tables; default `finsync_app`. */
  schema?: string;
  /** Connections the pool opens at most; default 10 (node-postgres's). */
  poolSize?: number;
}

export class PostgresAppStore implements AppStore {
  readonly kind = 'postgres';
  /** Shared with the engine's storage; ended by `close()`. */
  readonly pool: Pool;
  readonly schema: string;
  /** `"<schema>"`, checked, for splicing into SQL. */
  readonly #s: string;
  readonly #reads: RelatedReads;
  #initialized: Promise<unknown> | undefined;
  #closed = false;

  constructor(options: PostgresAppStoreOptions) {
    this.schema = options.schema ?? 'finsync_app';
    this.#s = quoteSchema(this.schema);
    this.pool = new Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
    // An idle pooled connection that dies (server restart, network) is reported as an 'error'
    // event, which would crash the process without a listener. The pool has already dropped it,
    // and the next query reports any lasting problem to its caller.
    this.pool.on('error', () => undefined);
    this.#reads = postgresRelatedReads((sql, params) => this.#rows(sql, params), this.#s);
  }

  /** Creates or migrates the app schema (once; other methods call it first; retried after a failure). */
  async init(): Promise<void> {
    if (this.#closed) throw new Error('the app store is closed');
    this.#initialized ??= migrateAppSchema(this.pool, this.schema).catch((error: unknown) => {
      this.#initialized = undefined;
      throw error;
    });
    await this.#initialized;
  }

  async #rows<T extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    await this.init();
    return rows<T>(this.pool, sql, params);
  }

  async #run(sql: string, params: unknown[]): Promise<number> {
    await this.init();
    return (await this.pool.query(sql, params)).rowCount ?? 0;
  }

  async findUser(idOrName: string): Promise<User | undefined> {
    const [user] = await this.#rows<User>(
      // An id wins over a name (names shaped like an id are refused, but older databases may hold one).
      `SELECT id, name, created_at FROM ${this.#s}.app_users WHERE id = $1 OR name = $1 ORDER BY id = $1 DESC LIMIT 1`,
      [idOrName],
    );
    return user;
  }

  listUsers(): Promise<User[]> {
    return this.#rows(`SELECT id, name, created_at FROM ${this.#s}.app_users ORDER BY created_at, id`);
  }

  async insertApiKey(k: NewApiKey): Promise<void> {
    await this.#run(
      `INSERT INTO ${this.#s}.app_api_keys (id, user_id, name, key_hash, scope, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [k.id, k.user_id, k.name, k.key_hash, k.scope, k.created_at],
    );
  }

  revokeApiKeys(userId: string, namePrefix: string, at: string): Promise<number> {
    return this.#run(
      `UPDATE ${this.#s}.app_api_keys SET revoked_at = $1
       WHERE user_id = $2 AND revoked_at IS NULL AND left(name, length($3)) = $3`,
      [at, userId, namePrefix],
    );
  }

  listApiKeys(userId: string): Promise<ApiKeyInfo[]> {
    return this.#rows(
      `SELECT id, name, scope, created_at, last_used_at, revoked_at FROM ${this.#s}.app_api_keys
       WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  revokeApiKey(userId: string, id: string, at: string): Promise<number> {
    return this.#run(
      `UPDATE ${this.#s}.app_api_keys SET revoked_at = $1 WHERE user_id = $2 AND id = $3 AND revoked_at IS NULL`,
      [at, userId, id],
    );
  }

  async findActiveApiKey(keyHash: Buffer): Promise<ActiveApiKey | undefined> {
    const [key] = await this.#rows<ActiveApiKey>(
      `SELECT id, user_id, key_hash, scope FROM ${this.#s}.app_api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
      [keyHash],
    );
    return key;
  }

  async touchApiKey(id: string, at: string): Promise<void> {
    await this.#run(`UPDATE ${this.#s}.app_api_keys SET last_used_at = $1 WHERE id = $2`, [at, id]);
  }

  async upsertProviderCredential(c: ProviderCredential): Promise<void> {
    await this.#run(
      `INSERT INTO ${this.#s}.app_provider_credentials (user_id, sealed_key, base_url, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id) DO UPDATE SET sealed_key = excluded.sealed_key, base_url = excluded.base_url, updated_at = excluded.updated_at`,
      [c.user_id, c.sealed_key, c.base_url, c.updated_at],
    );
  }

  async getProviderCredential(userId: string): Promise<ProviderCredential | undefined> {
    const [credential] = await this.#rows<ProviderCredential>(
      `SELECT user_id, sealed_key, base_url, updated_at FROM ${this.#s}.app_provider_credentials WHERE user_id = $1`,
      [userId],
    );
    return credential;
  }

  listProviderCredentials(): Promise<ProviderCredential[]> {
    return this.#rows(
      `SELECT user_id, sealed_key, base_url, updated_at FROM ${this.#s}.app_provider_credentials ORDER BY user_id`,
    );
  }

  listAccounts(userId: string): Promise<Array<AccountRecord & Dated>> {
    return this.#rows(
      `SELECT id, user_id, provider_account_id, name, account_type, currency, balance, state, institution_name,
              created_at, updated_at
       FROM ${this.#s}.app_accounts WHERE user_id = $1 ORDER BY name, id`,
      [userId],
    );
  }

  listCategories(userId: string): Promise<Array<Category & Dated>> {
    return this.#rows(
      `SELECT id, name, color, icon, created_at, created_at AS updated_at
       FROM ${this.#s}.app_categories WHERE user_id = $1 ORDER BY name, id`,
      [userId],
    );
  }

  listMerchants(userId: string): Promise<Array<Merchant & Dated>> {
    return this.#rows(
      `SELECT id, name, created_at, created_at AS updated_at
       FROM ${this.#s}.app_merchants WHERE user_id = $1 ORDER BY name, id`,
      [userId],
    );
  }

  listTags(userId: string): Promise<Array<Tag & Dated>> {
    return this.#rows(
      `SELECT id, name, color, created_at, created_at AS updated_at
       FROM ${this.#s}.app_tags WHERE user_id = $1 ORDER BY name, id`,
      [userId],
    );
  }

  async insertTag(
    userId: string,
    tag: Tag & { created_at: string },
    options?: { deadline?: CommitDeadline | undefined },
  ): Promise<'created' | 'taken' | 'full'> {
    // In a transaction of its own, so that a request answered 503 while it waits (for a connection,
    // for a lock) rolls it back instead of committing it. The user's row is locked first, so two
    // creates at once count one after the other; NO KEY, so the key-share locks other writes of the
    // user take (a feed batch's rows reference the user) do not wait for it, nor it for them.
    return this.#transaction(async (client) => {
      await client.query(`SELECT 1 FROM ${this.#s}.app_users WHERE id = $1 FOR NO KEY UPDATE`, [userId]);
      const inserted = await client.query(
        `INSERT INTO ${this.#s}.app_tags (id, user_id, name, color, created_at)
         SELECT $1, $2, $3, $4, $6 WHERE (SELECT count(*) FROM ${this.#s}.app_tags WHERE user_id = $2) < $5
         ON CONFLICT (user_id, name) DO NOTHING`,
        [tag.id, userId, tag.name, tag.color, MAX_TAGS_PER_USER, tag.created_at],
      );
      if (inserted.rowCount === 1) return 'created';
      const taken = await client.query(`SELECT 1 FROM ${this.#s}.app_tags WHERE user_id = $1 AND name = $2`, [
        userId,
        tag.name,
      ]);
      return (taken.rowCount ?? 0) > 0 ? 'taken' : 'full';
    }, options?.deadline);
  }

  ownedIds(kind: OwnedKind, userId: string, ids: string[]) {
    return this.#reads.ownedIds(kind, userId, ids);
  }

  accountsByIds(ids: string[]) {
    return this.#reads.accountsByIds(ids);
  }

  categoriesByIds(ids: string[]) {
    return this.#reads.categoriesByIds(ids);
  }

  merchantsByIds(ids: string[]) {
    return this.#reads.merchantsByIds(ids);
  }

  tagsOfTransactions(transactionIds: string[]) {
    return this.#reads.tagsOfTransactions(transactionIds);
  }

  async getTransaction(userId: string, id: string): Promise<StoredTransaction | undefined> {
    const [row] = await this.#rows<TransactionRow & { locked: string }>(
      `SELECT ${TX_COLUMNS}, locked FROM ${this.#s}.app_transactions WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL AND gone_at IS NULL`,
      [id, userId],
    );
    return row && storedTransaction(row);
  }

  async findTransactions(
    userId: string,
    filter: TransactionFilter,
    page: { limit: number; offset: number },
    options?: { deadline?: CommitDeadline | undefined },
  ): Promise<{ total: number; rows: TransactionRow[] }> {
    const args: unknown[] = [userId];
    const param = (value: unknown) => `$${args.push(value)}`;
    const where = ['t.user_id = $1', 't.gone_at IS NULL'];
    if (!filter.with_deleted) where.push('t.deleted_at IS NULL');
    if (filter.posted_only) where.push('NOT t.is_pending');
    const anyOf = (column: string, ids: string[] | undefined) => {
      if (ids !== undefined) where.push(`${column} = ANY(${param(ids)}::text[])`);
    };
    anyOf('t.account_id', filter.account_ids);
    anyOf('t.category_id', filter.category_ids);
    anyOf('t.merchant_id', filter.merchant_ids);
    if (filter.start_date) where.push(`t.date >= ${param(filter.start_date)}`);
    if (filter.end_date) where.push(`t.date <= ${param(filter.end_date)}`);
    if (filter.min_amount) where.push(`t.amount::numeric >= ${param(filter.min_amount)}::numeric`);
    if (filter.max_amount) where.push(`t.amount::numeric <= ${param(filter.max_amount)}::numeric`);
    if (filter.type === 'income') where.push('t.amount::numeric < 0');
    if (filter.type === 'expense') where.push('t.amount::numeric > 0');
    if (filter.search) {
      const pattern = param(`%${filter.search.replace(/[\\%_]/g, '\\$&')}%`);
      const like = (column: string) =>
        `translate(${column}, '${UPPER}', '${LOWER}') LIKE translate(${pattern}, '${UPPER}', '${LOWER}') ESCAPE '\\'`;
      where.push(
        `(${like('t.name')} OR ${like('t.notes')} OR EXISTS (SELECT 1 FROM ${this.#s}.app_merchants m WHERE m.id = t.merchant_id AND ${like('m.name')}))`,
      );
    }
    if (filter.tag_ids && filter.tag_ids.length > 0) {
      where.push(
        `EXISTS (SELECT 1 FROM ${this.#s}.app_transaction_tags tt WHERE tt.transaction_id = t.id AND tt.tag_id = ANY(${param(filter.tag_ids)}::text[]))`,
      );
    }
    const sql = where.join(' AND ');
    return this.#readWithin(options?.deadline, async (read) => {
      const rows = await read<TransactionRow>(
        `SELECT ${TX_COLUMNS} FROM ${this.#s}.app_transactions t WHERE ${sql}
         ORDER BY t.date DESC, t.created_at DESC, t.id LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
        [...args, page.limit, page.offset],
      );
      const shown = totalShownBy(rows.length, page);
      if (shown !== undefined) return { total: shown, rows };
      const [count] = await read<{ n: string }>(
        `SELECT count(*) AS n FROM ${this.#s}.app_transactions t WHERE ${sql}`,
        args,
      );
      return { total: Number(count?.n ?? 0), rows };
    });
  }

  /**
   * `work`'s reads, stopped by the server once the request's time is up: a search is one statement
   * PostgreSQL runs to its end, and a client that gave up at the 503 and asked again would otherwise
   * leave it holding a pooled connection and a backend's CPU. Each statement is bounded by
   * `statement_timeout` set to the time the request has left when it starts (the wait for a pooled
   * connection and the statements before it counted), in a read-only transaction of its own (SET
   * LOCAL ends with it); its cancellation is `ReadTimedOut`, answered as the timeout's 503
   * (http/error-answer.ts). Without a known deadline, plain pooled reads.
   */
  async #readWithin<T>(
    deadline: CommitDeadline | undefined,
    work: (read: <R extends QueryResultRow>(sql: string, params: unknown[]) => Promise<R[]>) => Promise<T>,
  ): Promise<T> {
    const remainingMs = deadline?.remainingMs?.() ?? Infinity;
    if (!Number.isFinite(remainingMs)) return work((sql, params) => this.#rows(sql, params));
    return this.#transaction(
      (client) =>
        work(async <R extends QueryResultRow>(sql: string, params: unknown[]) => {
          // A whole number of milliseconds, spliced (SET takes no bound parameter); never 0, which
          // means no limit.
          const ms = Math.max(1, Math.ceil(deadline!.remainingMs!()));
          await client.query(`SET LOCAL statement_timeout = ${ms}`);
          try {
            return await rows<R>(client, sql, params);
          } catch (error) {
            // Only this bound's cancellation is the request's timeout; any other 57014 (an operator's
            // pg_cancel_backend, a role's own statement_timeout) stays an error of its own.
            if ((error as { code?: unknown }).code === '57014') throw new ReadTimedOut({ cause: error });
            throw error;
          }
        }),
      deadline,
      { readOnly: true },
    );
  }

  async findDeletedTransactions(
    userId: string,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; rows: TransactionRow[] }> {
    const [count] = await this.#rows<{ n: string }>(
      `SELECT count(*) AS n FROM ${this.#s}.app_transactions WHERE user_id = $1 AND deleted_at IS NOT NULL AND gone_at IS NULL`,
      [userId],
    );
    const found = await this.#rows<TransactionRow>(
      `SELECT ${TX_COLUMNS} FROM ${this.#s}.app_transactions WHERE user_id = $1 AND deleted_at IS NOT NULL AND gone_at IS NULL
       ORDER BY deleted_at DESC, id LIMIT $2 OFFSET $3`,
      [userId, page.limit, page.offset],
    );
    return { total: Number(count?.n ?? 0), rows: found };
  }

  async feedCursor(connectionId: string): Promise<number> {
    const [row] = await this.#rows<{ seq: string }>(
      `SELECT seq FROM ${this.#s}.app_feed_cursors WHERE connection_id = $1`,
      [connectionId],
    );
    return row ? Number(row.seq) : 0;
  }

  async saveLastSync(userId: string, summary: string): Promise<void> {
    await this.#rows(
      `INSERT INTO ${this.#s}.app_last_syncs (user_id, summary) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET summary = excluded.summary`,
      [userId, summary],
    );
  }

  async pendingAmong(userId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.#rows<{ id: string }>(
      `SELECT id FROM ${this.#s}.app_transactions WHERE user_id = $1 AND is_pending AND id = ANY($2::text[])`,
      [userId, [...ids]],
    );
    return new Set(rows.map((r) => r.id));
  }

  async lastSync(userId: string): Promise<string | undefined> {
    const [row] = await this.#rows<{ summary: string }>(
      `SELECT summary FROM ${this.#s}.app_last_syncs WHERE user_id = $1`,
      [userId],
    );
    return row?.summary;
  }

  atomically<T>(work: (unit: UnitOfWork) => Promise<T>, options?: AtomicallyOptions): Promise<T> {
    return this.#transaction((client) => work(postgresUnitOfWork(client, this.#s)), options?.deadline);
  }

  /**
   * `work` in one database transaction on one client; past `deadline` it rolls back instead of
   * committing. `readOnly`: a read-only transaction, which commits nothing, so its end does not hold
   * off the request's timeout (no `beginCommit`).
   */
  async #transaction<T>(
    work: (client: Queryable) => Promise<T>,
    deadline?: CommitDeadline,
    options: { readOnly?: boolean } = {},
  ): Promise<T> {
    await this.init();
    const pooled = await this.pool.connect();
    // Every statement, the transaction's own included, in the order sent: a query the work sent
    // without waiting for it still runs before the ROLLBACK or COMMIT that follows it.
    const client = oneQueryAtATime(pooled);
    let broken: Error | undefined;
    try {
      // Also answered as timed out while it waited for a connection: nothing to do.
      deadline?.ensureOpen();
      await client.query(options.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
      try {
        const result = await work(client);
        if (!options.readOnly) deadline?.beginCommit();
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          // A connection whose ROLLBACK failed is in an unknown state: destroy it, don't reuse it.
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      }
    } finally {
      pooled.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#initialized?.catch(() => undefined);
    await this.pool.end();
  }
}
