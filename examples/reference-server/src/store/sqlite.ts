/**
 * The app store on SQLite (better-sqlite3), sharing one connection with the engine's `SqliteStorage`.
 *
 * better-sqlite3 is synchronous, so every method does its work in one go. `atomically()` is the
 * exception: its work is async, so while its database transaction is open a gate makes every other call — this store's
 * and the engine storage's (see `guard`) — wait for the commit. Otherwise a statement from elsewhere
 * would run on the same connection inside the open transaction, and be rolled back with it.
 */
import type { Storage } from '@finsync/sync';
import { atLeast, atMost } from './sqlite-decimal.js';
import { openDatabase, prepareCached, prepareCachedRows, type Db } from './sqlite-schema.js';
import { marks, sqliteRelatedReads } from './sqlite-reads.js';
import { TX_COLUMNS } from './columns.js';
import { CommitGroups } from './sqlite-group-commit.js';
import { Gate } from './sqlite-gate.js';
import { searchInSlices } from './sqlite-search.js';
import { readTransaction, sqliteUnitOfWork } from './sqlite-unit-of-work.js';
import type { Awaitable } from './steps.js';
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
import { MAX_TAGS_PER_USER, totalShownBy } from './types.js';

export class SqliteAppStore implements AppStore {
  readonly kind = 'sqlite';
  /** The better-sqlite3 handle, shared with the engine's storage. */
  readonly database: Db;
  readonly #gate = new Gate();
  readonly #filename: string;
  readonly #unit: UnitOfWork;
  readonly #reads: RelatedReads;
  readonly #groups: CommitGroups;

  constructor(filename: string) {
    this.#filename = filename;
    this.database = openDatabase(filename);
    this.#unit = sqliteUnitOfWork(this.database);
    this.#groups = new CommitGroups(this.database, (work, options) => this.atomically(work, options));
    this.#reads = sqliteRelatedReads(this.database, (read) => this.#gate.run(read));
  }

  /** The engine's storage on this connection, made to wait while a unit of work is open. */
  guard(storage: Storage): Storage {
    const gate = this.#gate;
    return {
      init: () => gate.run(() => storage.init()),
      close: () => gate.run(() => storage.close()),
      apply: (batch) => gate.run(() => storage.apply(batch)),
      getConnection: (id) => gate.run(() => storage.getConnection(id)),
      listConnections: () => gate.run(() => storage.listConnections()),
      removeConnection: (id) => gate.run(() => storage.removeConnection(id)),
      listAccounts: (id) => gate.run(() => storage.listAccounts(id)),
      listAccountStates: (id) => gate.run(() => storage.listAccountStates(id)),
      findTransactions: (id, account, query) => gate.run(() => storage.findTransactions(id, account, query)),
      // Reads of the engine's own tables only, never written by a unit of work.
      scanTransactions: (id, account) => storage.scanTransactions(id, account),
      countTransactions: (id, account) => gate.run(() => storage.countTransactions(id, account)),
      listHoldings: (id, account) => gate.run(() => storage.listHoldings(id, account)),
      listSuperseded: (id, account) => gate.run(() => storage.listSuperseded(id, account)),
      readChanges: (options) => gate.run(() => storage.readChanges(options)),
      lastSeq: () => gate.run(() => storage.lastSeq()),
    };
  }

  #get<T>(sql: string, ...params: unknown[]): Promise<T | undefined> {
    return this.#gate.run(() => prepareCached(this.database, sql).get(...params) as T | undefined);
  }

  #all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    return this.#gate.run(() => prepareCached(this.database, sql).all(...params) as T[]);
  }

  #run(sql: string, ...params: unknown[]): Promise<number> {
    return this.#gate.run(() => prepareCached(this.database, sql).run(...params).changes);
  }

  findUser(idOrName: string): Promise<User | undefined> {
    return this.#get(
      // An id wins over a name (names shaped like an id are refused, but older databases may hold one).
      'SELECT id, name, created_at FROM app_users WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1',
      idOrName,
      idOrName,
      idOrName,
    );
  }

  listUsers(): Promise<User[]> {
    return this.#all('SELECT id, name, created_at FROM app_users ORDER BY created_at, id');
  }

  async insertApiKey(key: NewApiKey): Promise<void> {
    await this.#run(
      'INSERT INTO app_api_keys (id, user_id, name, key_hash, scope, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      key.id,
      key.user_id,
      key.name,
      key.key_hash,
      key.scope,
      key.created_at,
    );
  }

  revokeApiKeys(userId: string, namePrefix: string, at: string): Promise<number> {
    return this.#run(
      'UPDATE app_api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND substr(name, 1, length(?)) = ?',
      at,
      userId,
      namePrefix,
      namePrefix,
    );
  }

  listApiKeys(userId: string): Promise<ApiKeyInfo[]> {
    return this.#all(
      'SELECT id, name, scope, created_at, last_used_at, revoked_at FROM app_api_keys WHERE user_id = ? ORDER BY created_at, id',
      userId,
    );
  }

  revokeApiKey(userId: string, id: string, at: string): Promise<number> {
    return this.#run(
      'UPDATE app_api_keys SET revoked_at = ? WHERE user_id = ? AND id = ? AND revoked_at IS NULL',
      at,
      userId,
      id,
    );
  }

  /** At once when no unit of work is open: every API request starts with it. */
  findActiveApiKey(keyHash: Buffer): Awaitable<ActiveApiKey | undefined> {
    const read = () =>
      prepareCached(
        this.database,
        'SELECT id, user_id, key_hash, scope FROM app_api_keys WHERE key_hash = ? AND revoked_at IS NULL',
      ).get(keyHash) as ActiveApiKey | undefined;
    return this.#gate.busy ? this.#gate.run(read) : read();
  }

  /**
   * Best effort and never waiting: a read must not queue behind another process's write lock just to
   * record when a key was used (the next use, a minute on, records it instead).
   */
  async touchApiKey(id: string, at: string): Promise<void> {
    await this.#gate.run(() => {
      const previous = this.database.pragma('busy_timeout', { simple: true }) as number;
      this.database.pragma('busy_timeout = 0');
      try {
        prepareCached(this.database, 'UPDATE app_api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      } finally {
        this.database.pragma(`busy_timeout = ${previous}`);
      }
    });
  }

  async upsertProviderCredential(c: ProviderCredential): Promise<void> {
    await this.#run(
      `INSERT INTO app_provider_credentials (user_id, sealed_key, base_url, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET sealed_key = excluded.sealed_key, base_url = excluded.base_url, updated_at = excluded.updated_at`,
      c.user_id,
      c.sealed_key,
      c.base_url,
      c.updated_at,
    );
  }

  getProviderCredential(userId: string): Promise<ProviderCredential | undefined> {
    return this.#get(
      'SELECT user_id, sealed_key, base_url, updated_at FROM app_provider_credentials WHERE user_id = ?',
      userId,
    );
  }

  listProviderCredentials(): Promise<ProviderCredential[]> {
    return this.#all(
      'SELECT user_id, sealed_key, base_url, updated_at FROM app_provider_credentials ORDER BY user_id',
    );
  }

  listAccounts(userId: string): Promise<Array<AccountRecord & Dated>> {
    return this.#all(
      'SELECT id, user_id, provider_account_id, name, account_type, currency, balance, state, institution_name, created_at, updated_at FROM app_accounts WHERE user_id = ? ORDER BY name, id',
      userId,
    );
  }

  listCategories(userId: string): Promise<Array<Category & Dated>> {
    return this.#all(
      'SELECT id, name, color, icon, created_at, created_at AS updated_at FROM app_categories WHERE user_id = ? ORDER BY name, id',
      userId,
    );
  }

  listMerchants(userId: string): Promise<Array<Merchant & Dated>> {
    return this.#all(
      'SELECT id, name, created_at, created_at AS updated_at FROM app_merchants WHERE user_id = ? ORDER BY name, id',
      userId,
    );
  }

  listTags(userId: string): Promise<Array<Tag & Dated>> {
    return this.#all(
      'SELECT id, name, color, created_at, created_at AS updated_at FROM app_tags WHERE user_id = ? ORDER BY name, id',
      userId,
    );
  }

  async insertTag(
    userId: string,
    tag: Tag & { created_at: string },
    options?: { deadline?: CommitDeadline | undefined },
  ): Promise<'created' | 'taken' | 'full'> {
    return this.#gate.run(() => {
      // Checked once the connection is free: the wait for it may outlast the request.
      options?.deadline?.beginCommit();
      // One statement: the count and the insert see the same rows, whoever else writes the file.
      const changes = prepareCached(
        this.database,
        `INSERT INTO app_tags (id, user_id, name, color, created_at)
         SELECT ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM app_tags WHERE user_id = ?) < ?
         ON CONFLICT (user_id, name) DO NOTHING`,
      ).run(tag.id, userId, tag.name, tag.color, tag.created_at, userId, MAX_TAGS_PER_USER).changes;
      if (changes === 1) return 'created';
      const taken = prepareCached(this.database, 'SELECT 1 FROM app_tags WHERE user_id = ? AND name = ?').get(
        userId,
        tag.name,
      );
      return taken ? 'taken' : 'full';
    });
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
    return this.#gate.run(() => readTransaction(this.database, userId, id));
  }

  findTransactions(
    userId: string,
    filter: TransactionFilter,
    page: { limit: number; offset: number },
    options?: { deadline?: CommitDeadline | undefined },
  ): Promise<{ total: number; rows: TransactionRow[] }> {
    const where = ['t.user_id = ?', 't.gone_at IS NULL'];
    if (!filter.with_deleted) where.push('t.deleted_at IS NULL');
    if (filter.posted_only) where.push('t.is_pending = 0');
    const args: unknown[] = [userId];
    const anyOf = (column: string, ids: string[] | undefined) => {
      if (ids === undefined) return;
      where.push(ids.length === 0 ? '0' : `${column} IN (${marks(ids)})`);
      args.push(...ids);
    };
    anyOf('t.account_id', filter.account_ids);
    anyOf('t.category_id', filter.category_ids);
    anyOf('t.merchant_id', filter.merchant_ids);
    if (filter.start_date) (where.push('t.date >= ?'), args.push(filter.start_date));
    if (filter.end_date) (where.push('t.date <= ?'), args.push(filter.end_date));
    // Amounts are exact decimal text, compared exactly (sqlite-decimal.ts).
    for (const bound of [
      filter.min_amount && atLeast('t.amount', filter.min_amount),
      filter.max_amount && atMost('t.amount', filter.max_amount),
    ])
      if (bound) (where.push(bound.sql), args.push(...bound.args));
    if (filter.type === 'income') where.push('CAST(t.amount AS REAL) < 0');
    if (filter.type === 'expense') where.push('CAST(t.amount AS REAL) > 0');
    if (filter.search) {
      where.push(
        "(t.name LIKE ? ESCAPE '\\' OR t.notes LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM app_merchants m WHERE m.id = t.merchant_id AND m.name LIKE ? ESCAPE '\\'))",
      );
      const pattern = `%${filter.search.replace(/[\\%_]/g, '\\$&')}%`;
      args.push(pattern, pattern, pattern);
    }
    if (filter.tag_ids && filter.tag_ids.length > 0) {
      where.push(
        `EXISTS (SELECT 1 FROM app_transaction_tags tt WHERE tt.transaction_id = t.id AND tt.tag_id IN (${marks(filter.tag_ids)}))`,
      );
      args.push(...filter.tag_ids);
    }
    const sql = where.join(' AND ');
    // A search reads notes, whose cost has no useful bound: in slices, on a snapshot of its own.
    if (filter.search && this.#filename !== ':memory:' && this.#filename !== '')
      return searchInSlices(this.#filename, userId, sql, args, page, options?.deadline);
    return this.#gate.run(() => {
      const rows = prepareCachedRows<TransactionRow>(
        this.database,
        `SELECT ${TX_COLUMNS} FROM app_transactions t WHERE ${sql} ORDER BY t.date DESC, t.created_at DESC, t.id LIMIT ? OFFSET ?`,
      ).all(...args, page.limit, page.offset);
      const total =
        totalShownBy(rows.length, page) ??
        (
          prepareCached(this.database, `SELECT count(*) AS n FROM app_transactions t WHERE ${sql}`).get(
            ...args,
          ) as { n: number }
        ).n;
      return { total, rows };
    });
  }

  findDeletedTransactions(
    userId: string,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; rows: TransactionRow[] }> {
    return this.#gate.run(() => {
      const { n } = prepareCached(
        this.database,
        'SELECT count(*) AS n FROM app_transactions WHERE user_id = ? AND deleted_at IS NOT NULL AND gone_at IS NULL',
      ).get(userId) as { n: number };
      const rows = prepareCachedRows<TransactionRow>(
        this.database,
        `SELECT ${TX_COLUMNS} FROM app_transactions WHERE user_id = ? AND deleted_at IS NOT NULL AND gone_at IS NULL
         ORDER BY deleted_at DESC, id LIMIT ? OFFSET ?`,
      ).all(userId, page.limit, page.offset);
      return { total: n, rows };
    });
  }

  async feedCursor(connectionId: string): Promise<number> {
    const row = await this.#get<{ seq: number }>(
      'SELECT seq FROM app_feed_cursors WHERE connection_id = ?',
      connectionId,
    );
    return row?.seq ?? 0;
  }

  async saveLastSync(userId: string, summary: string): Promise<void> {
    await this.#run(
      'INSERT INTO app_last_syncs (user_id, summary) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET summary = excluded.summary',
      userId,
      summary,
    );
  }

  async pendingAmong(userId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.#all<{ id: string }>(
      `SELECT id FROM app_transactions WHERE user_id = ? AND is_pending = 1 AND id IN (${ids.map(() => '?').join(', ')})`,
      userId,
      ...ids,
    );
    return new Set(rows.map((r) => r.id));
  }

  async lastSync(userId: string): Promise<string | undefined> {
    return (
      await this.#get<{ summary: string }>('SELECT summary FROM app_last_syncs WHERE user_id = ?', userId)
    )?.summary;
  }

  atomically<T>(work: (unit: UnitOfWork) => Awaitable<T>, options?: AtomicallyOptions): Awaitable<T> {
    if (options?.group) return this.#groups.join(work, options.deadline);
    const deadline = options?.deadline;
    if (this.#gate.busy) return this.#gate.hold(() => this.#commitWhenDone(work, deadline));
    // Nothing else holds the connection: begin now, and answer at once if `work` does.
    const release = this.#gate.close();
    let result: Awaitable<T>;
    try {
      result = this.#commitWhenDone(work, deadline);
    } catch (error) {
      release();
      throw error;
    }
    if (!(result instanceof Promise)) {
      release();
      return result;
    }
    return result.finally(release);
  }

  #commitWhenDone<T>(work: (unit: UnitOfWork) => Awaitable<T>, deadline?: CommitDeadline): Awaitable<T> {
    const db = this.database;
    const rollBack = (error: unknown): never => {
      if (db.inTransaction) prepareCached(db, 'ROLLBACK').run();
      throw error;
    };
    // Answered as timed out while it waited for the connection: nothing to do.
    deadline?.ensureOpen();
    // IMMEDIATE takes the write lock up front: another process (the CLI) waits for the commit.
    prepareCached(db, 'BEGIN IMMEDIATE').run();
    const commit = (result: T) => {
      deadline?.beginCommit();
      prepareCached(db, 'COMMIT').run();
      return result;
    };
    let pending: Promise<T>;
    try {
      const result = work(this.#unit);
      if (!(result instanceof Promise)) return commit(result);
      pending = result;
    } catch (error) {
      return rollBack(error);
    }
    return pending.then(commit).catch(rollBack);
  }

  async close(): Promise<void> {
    // A grouped unit asked for before close() still runs (its group starts on the next turn).
    await this.#groups.drained();
    await this.#gate.run(() => this.database.close());
  }
}
