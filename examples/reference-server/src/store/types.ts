/**
 * The data-access seam for the app's own tables (users and keys, provider credentials, and the
 * service's view of accounts, categories, merchants, tags and transactions, plus the feed cursors).
 * Two implementations hold the SQL: `SqliteAppStore` (better-sqlite3) and `PostgresAppStore` (pg).
 * The business rules — PATCH semantics, applying the change feed, rendering — are written once on
 * top of these interfaces.
 *
 * Both stores keep money as TEXT decimal strings, timestamps as ISO TEXT and dates as `YYYY-MM-DD`
 * TEXT, and order and compare text by code point, so the two answer byte for byte alike.
 */
import type { Awaitable } from './steps.js';

export type Scope = 'read' | 'read_write';

/** Fields the user owns once edited; the feed never overwrites them afterwards. */
export type LockableField = 'name' | 'date' | 'notes' | 'amount' | 'category_id' | 'merchant_id' | 'tag_ids';

export interface User {
  id: string;
  name: string;
  created_at: string;
}

export interface NewApiKey {
  id: string;
  user_id: string;
  name: string;
  key_hash: Buffer;
  scope: Scope;
  created_at: string;
}

/** An API key as an operator lists it: never its hash. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  scope: Scope;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ActiveApiKey {
  id: string;
  user_id: string;
  key_hash: Buffer;
  scope: Scope;
}

export interface ProviderCredential {
  user_id: string;
  /** The provider key, encrypted (see crypto.ts); never the key itself. */
  sealed_key: string;
  base_url: string | null;
  updated_at: string;
}

export interface AccountRecord {
  id: string;
  user_id: string;
  provider_account_id: string;
  name: string;
  account_type: string;
  currency: string | null;
  balance: string | null;
  state: string;
  /** The bank's name, when the provider gives it. */
  institution_name: string | null;
}

/**
 * When a row of a lookup list (an account, a category, a merchant, a tag) was made and last changed:
 * ISO 8601 in UTC with milliseconds, as the store wrote them. Only accounts change (each sync that
 * finds their name, currency, balance or state moved); the others keep `updated_at = created_at`.
 */
export interface Dated {
  created_at: string;
  updated_at: string;
}

export interface Category {
  id: string;
  name: string;
  color: string;
  icon: string;
}

export interface Merchant {
  id: string;
  name: string;
}

export interface Tag {
  id: string;
  name: string;
  color: string;
}

/** A transaction as the API renders it. */
export interface TransactionRow {
  id: string;
  account_id: string;
  external_id: string;
  source: string;
  date: string;
  amount: string;
  currency: string;
  name: string;
  notes: string | null;
  category_id: string | null;
  merchant_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface StoredTransaction extends TransactionRow {
  locked: LockableField[];
}

/**
 * The feed key of a transaction created through the API: the feed's keys are `id:…`, `idh:…` and `h:…`, so
 * no feed entry ever addresses it.
 */
export const API_KEY_PREFIX = 'api:';

export interface NewTransaction {
  id: string;
  user_id: string;
  account_id: string;
  /** The engine's key of the row (see `API_KEY_PREFIX` for rows created through the API). */
  feed_key: string;
  external_id: string;
  source: string;
  date: string;
  amount: string;
  currency: string;
  name: string;
  notes: string | null;
  merchant_id: string | null;
  is_pending: boolean;
  created_at: string;
  updated_at: string;
  category_id?: string | null;
  locked?: LockableField[];
}

/** A transaction as the feed finds it: deleted ones included (a deletion the feed must respect). */
export interface FeedTransaction extends StoredTransaction {
  deleted: boolean;
  /** The provider stopped listing the row's key; kept for the user's edits or deletion (feed.ts). */
  gone: boolean;
}

/** Columns of a transaction that may be written after it was inserted. */
export interface TransactionUpdate {
  feed_key?: string;
  external_id?: string;
  date?: string;
  amount?: string;
  currency?: string;
  name?: string;
  notes?: string | null;
  category_id?: string;
  merchant_id?: string | null;
  is_pending?: boolean;
  locked?: LockableField[];
  updated_at?: string;
  gone_at?: string | null;
}

/** The columns `TransactionUpdate` may name; each store builds its SET list from these only. */
export const UPDATABLE_COLUMNS: ReadonlySet<string> = new Set<keyof TransactionUpdate>([
  'feed_key',
  'external_id',
  'date',
  'amount',
  'currency',
  'name',
  'notes',
  'category_id',
  'merchant_id',
  'is_pending',
  'locked',
  'updated_at',
  'gone_at',
]);

export interface TransactionFilter {
  /** Any of these accounts (an empty list matches nothing). */
  account_ids?: string[] | undefined;
  category_ids?: string[] | undefined;
  merchant_ids?: string[] | undefined;
  /** Inclusive, `YYYY-MM-DD`. */
  start_date?: string | undefined;
  end_date?: string | undefined;
  /** Canonical decimals, compared with the stored amount: expenses positive (sign-convention.ts). */
  min_amount?: string | undefined;
  max_amount?: string | undefined;
  /** `income`: amount < 0; `expense`: amount > 0 (the stored sign, sign-convention.ts). */
  type?: 'income' | 'expense' | undefined;
  /**
   * Part of the name, the notes or the merchant's name; ASCII letters match case-insensitively
   * (SQLite's LIKE), in both stores.
   */
  search?: string | undefined;
  /** Any of these tags. */
  tag_ids?: string[] | undefined;
  /**
   * Not the API's, the page's balance chart's: leave out pending rows (a balance of posted rows does
   * not count them), and keep the rows the user deleted (the bank's balance still counts them).
   */
  posted_only?: boolean | undefined;
  with_deleted?: boolean | undefined;
}

export type OwnedKind = 'category' | 'merchant' | 'tag';

/**
 * What validating and rendering a transaction reads. Both the store and an open unit of work answer
 * them, so a write can check its references and render its answer inside the database transaction
 * it commits.
 */
export interface RelatedReads {
  /** Which of `ids` are the user's categories / merchants / tags. */
  ownedIds(kind: OwnedKind, userId: string, ids: string[]): Awaitable<Set<string>>;
  accountsByIds(ids: string[]): Awaitable<Array<{ id: string; name: string; account_type: string }>>;
  categoriesByIds(ids: string[]): Awaitable<Category[]>;
  merchantsByIds(ids: string[]): Awaitable<Merchant[]>;
  /** The tags of each transaction, in their assigned order. */
  tagsOfTransactions(transactionIds: string[]): Awaitable<Array<Tag & { transaction_id: string }>>;
}

/** What rendering transactions refers to, as `renderRows` takes it (the answers of `RelatedReads`). */
export interface RelatedRows {
  accounts: Array<{ id: string; name: string; account_type: string }>;
  categories: Category[];
  merchants: Merchant[];
  tags: Array<Tag & { transaction_id: string }>;
}

/** `UnitOfWork.lockForUpdate`'s answer. */
export interface LockedForUpdate {
  /** The scope of the key asked about, if it is still live; `undefined` if revoked or not asked about. */
  keyScope: Scope | undefined;
  /** The transaction, locked, if it is the user's and not deleted. */
  row: StoredTransaction | undefined;
  /** What `row` refers to (its account, category, merchant and tags), read with it; empty without it. */
  related: RelatedRows;
}

/**
 * A unit of work: the writes that must commit together, and the reads they depend on, run in one
 * database transaction by `AppStore.atomically` (named so, not "transaction", because this
 * codebase's transactions are the bank's). Inside it, use only these methods (the SQLite store runs
 * one unit at a time on its single connection, so calling the store itself from inside would wait
 * for ever).
 * The `lock…`/`find…` reads lock what they return until the commit (PostgreSQL: `FOR UPDATE`;
 * SQLite: the whole database is held), so a decision made on them cannot be overtaken.
 */
export interface UnitOfWork extends RelatedReads {
  insertUser(user: User): Promise<void>;
  insertCategory(userId: string, category: Category): Promise<void>;

  /** The transaction if it is `userId`'s and not deleted (or, with `deleted: true`, deleted), locked. */
  lockTransaction(
    userId: string,
    id: string,
    options?: { deleted?: boolean },
  ): Awaitable<StoredTransaction | undefined>;
  /**
   * What a PATCH reads before it writes: the transaction as `lockTransaction` finds it, locked, the
   * scope of the key `keyId` (when given), and what the answer refers to, read once the lock is held.
   * PostgreSQL needs two round trips for it where separate reads took four or more.
   */
  lockForUpdate(userId: string, id: string, keyId: string | undefined): Awaitable<LockedForUpdate>;
  /** Marks a transaction deleted (`at`) or restores it (`null`). */
  setDeleted(id: string, at: string | null): Promise<void>;
  /** Removes a transaction and its tags for good. */
  removeTransaction(id: string): Promise<void>;
  /**
   * Counts one more transaction created through the API for `userId`, unless the user has
   * `MAX_CREATED_TRANSACTIONS_PER_USER` already (then `false`, and nothing changes). It locks the
   * user's row, so two creates at once count one after the other.
   */
  countCreatedTransaction(userId: string): Promise<boolean>;
  /** Counts one transaction created through the API fewer, as it is removed. */
  uncountCreatedTransaction(userId: string): Promise<void>;
  /** The tag ids of a transaction, in their assigned order. */
  transactionTagIds(transactionId: string): Promise<string[]>;
  /**
   * A live transaction of the account with this idempotency key, locked; the key is locked too, so
   * that a unit that finds no holder and then writes one (a create, a restore) is not raced by another.
   */
  findByExternalId(
    accountId: string,
    source: string,
    externalId: string,
  ): Promise<StoredTransaction | undefined>;
  /**
   * The id of a live transaction created through the API with this idempotency key (by the partial
   * unique index: the feed asks for every new row, and a scan of the account's rows made a first sync
   * quadratic).
   */
  findCreatedThroughApi(accountId: string, source: string, externalId: string): Promise<string | undefined>;
  updateTransaction(id: string, update: TransactionUpdate): Awaitable<void>;
  /** Replaces the tags exactly, in this order. */
  replaceTransactionTags(transactionId: string, tagIds: string[]): Awaitable<void>;

  /** The feed cursor of a connection (0 when none), locked: feed batches of one connection run one at a time. */
  lockFeedCursor(connectionId: string): Promise<number>;
  setFeedCursor(connectionId: string, seq: number): Promise<void>;
  findAccount(
    userId: string,
    providerAccountId: string,
  ): Promise<{ id: string; currency: string | null } | undefined>;
  insertAccount(account: AccountRecord): Promise<void>;
  updateAccount(
    id: string,
    fields: Pick<
      AccountRecord,
      'name' | 'account_type' | 'currency' | 'balance' | 'state' | 'institution_name'
    >,
  ): Promise<void>;
  /** The row with feed key `key` (deleted ones included), locked. */
  findFeedTransaction(accountId: string, key: string): Promise<FeedTransaction | undefined>;
  /** The id of the user's merchant with this name, created with `newId` when there is none. */
  ensureMerchant(userId: string, name: string, newId: string): Promise<string>;
  insertTransaction(transaction: NewTransaction): Promise<void>;
}

/**
 * A request's time limit, as a unit of work sees it (http/deadline.ts). Once a request has been
 * answered as timed out, its unit must not commit: the client was told to try again.
 */
/** A read a store bounded by its request's remaining time (`CommitDeadline.remainingMs`) ran out of it. */
export class ReadTimedOut extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the read ran past the time its request had left', options);
    this.name = 'ReadTimedOut';
  }
}

export interface CommitDeadline {
  /** Throws when the request has already been answered as timed out: a unit about to start skips its work. */
  ensureOpen(): void;
  /**
   * Called just before the unit commits. Throws when the request has already been answered as
   * timed out (the unit then rolls back); otherwise the request's answer now waits for the commit.
   */
  beginCommit(): void;
  /**
   * Milliseconds left before the request is answered as timed out (Infinity when not known): a store
   * that cannot stop a statement between steps bounds the statement by it (PostgreSQL's search).
   */
  remainingMs?(): number;
}

export interface AtomicallyOptions {
  /**
   * Lets the store commit `work` together with other grouped units asked for in the same turn of
   * the event loop, each still all-or-nothing on its own and answered after the shared commit
   * (SQLite: store/sqlite-group-commit.ts). For short units that many requests run at once. A
   * store without group commit (PostgreSQL) runs `work` alone, as without it.
   */
  group?: boolean;
  /** The request's deadline: past it, the unit rolls back instead of committing. */
  deadline?: CommitDeadline | undefined;
}

/**
 * The total a page of a list proves without counting: a page short of its limit is the last, unless
 * it is empty past the first (a page beyond the end says nothing of where the end is). A filtered
 * list (a search) reads every row of the user to count them, so a search with a page of hits, or
 * none, is answered in one read instead of two.
 */
export function totalShownBy(
  rowsOnPage: number,
  page: { limit: number; offset: number },
): number | undefined {
  if (rowsOnPage < page.limit && (rowsOnPage > 0 || page.offset === 0)) return page.offset + rowsOnPage;
  return undefined;
}

/** The most tags a user may have: `GET /api/v1/tags` lists them all in one answer. */
export const MAX_TAGS_PER_USER = 1_000;

/**
 * The most transactions a user may create through the API (the synced ones are bounded by the bank's
 * history): without a bound, one write key could fill the server's disk.
 */
export const MAX_CREATED_TRANSACTIONS_PER_USER = 100_000;

export interface AppStore extends RelatedReads {
  readonly kind: 'sqlite' | 'postgres';

  findUser(idOrName: string): Promise<User | undefined>;
  listUsers(): Promise<User[]>;

  insertApiKey(key: NewApiKey): Promise<void>;
  /** Revokes the user's live keys whose name starts with `namePrefix`; returns how many. */
  revokeApiKeys(userId: string, namePrefix: string, at: string): Promise<number>;
  /** The user's keys, oldest first, revoked ones included. */
  listApiKeys(userId: string): Promise<ApiKeyInfo[]>;
  /** Revokes one live key of the user; how many it revoked (0 or 1). */
  revokeApiKey(userId: string, id: string, at: string): Promise<number>;
  findActiveApiKey(keyHash: Buffer): Awaitable<ActiveApiKey | undefined>;
  touchApiKey(id: string, at: string): Promise<void>;

  upsertProviderCredential(credential: ProviderCredential): Promise<void>;
  getProviderCredential(userId: string): Promise<ProviderCredential | undefined>;
  listProviderCredentials(): Promise<ProviderCredential[]>;

  /** Ordered by name (then id). */
  listAccounts(userId: string): Promise<Array<AccountRecord & Dated>>;
  listCategories(userId: string): Promise<Array<Category & Dated>>;
  listMerchants(userId: string): Promise<Array<Merchant & Dated>>;
  listTags(userId: string): Promise<Array<Tag & Dated>>;
  /**
   * `created`, or `taken` (the user has a tag of that name), or `full`: the user has `MAX_TAGS_PER_USER`
   * tags already (every tag is listed in one answer, so their number is bounded).
   */
  insertTag(
    userId: string,
    tag: Tag & { created_at: string },
    options?: { deadline?: CommitDeadline | undefined },
  ): Promise<'created' | 'taken' | 'full'>;
  /** The user's live (not deleted) transaction. */
  getTransaction(userId: string, id: string): Promise<StoredTransaction | undefined>;
  /** Deleted transactions, most recently deleted first, one page, and the total count. */
  findDeletedTransactions(
    userId: string,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; rows: TransactionRow[] }>;
  /**
   * Live transactions, newest first (date, then created_at, descending; then id), one page, and the
   * total count. A long read (a search on SQLite) stops once `deadline` has been answered as timed out.
   */
  findTransactions(
    userId: string,
    filter: TransactionFilter,
    page: { limit: number; offset: number },
    options?: { deadline?: CommitDeadline | undefined },
  ): Promise<{ total: number; rows: TransactionRow[] }>;
  /** Which of these transactions of the user the bank lists as pending (a hold), for the page. */
  pendingAmong(userId: string, ids: readonly string[]): Promise<Set<string>>;
  feedCursor(connectionId: string): Promise<number>;

  /** Stores the summary (JSON) of the user's last sync run, replacing the one before. */
  saveLastSync(userId: string, summary: string): Promise<void>;
  lastSync(userId: string): Promise<string | undefined>;

  /**
   * Runs `work` in one database transaction: it commits when `work` returns or resolves, rolls back
   * when it throws. Without `group`, SQLite answers at once (no promise) when `work` does and no
   * other unit is open; with it, always later (after the group's commit).
   */
  atomically<T>(work: (unit: UnitOfWork) => Awaitable<T>, options?: AtomicallyOptions): Awaitable<T>;
  close(): Promise<void>;
}
