/**
 * An in-memory imitation of one family's data on the service: API keys, accounts, categories,
 * merchants, tags and transactions. Amounts are stored with the service's INTERNAL sign
 * (positive = expense, negative = income), exactly as the service's `entries.amount` column.
 */
import { toUnits, unitsToDecimal } from './money.js';

/** What an API key may do: `read` keys get 403 on every write endpoint; `read_write` keys may do all. */
export type ApiKeyScope = 'read' | 'read_write';
/** An account's lifecycle state on the service. */
export type AccountStatus = 'draft' | 'active' | 'disabled' | 'pending_deletion';
/** Who made a merchant: the family itself, or a provider sync. */
export type MerchantType = 'FamilyMerchant' | 'ProviderMerchant';

/** An API key the fake accepts, as kept in `FakeServiceStore.apiKeys`. */
export interface FakeApiKey {
  /** The key as sent in `X-Api-Key` (the service's keys are 64 lowercase hex characters). */
  key: string;
  /** What the key may do. */
  scope: ApiKeyScope;
  /** A label for the key. Default `'test key'`. */
  name: string;
  /** Revoked or expired keys answer 401. */
  revoked: boolean;
  /** A key of a deactivated user answers 401 "Account has been deactivated". */
  userDeactivated: boolean;
  /**
   * The accounts the key's user can access (owned or shared with them); default every account of
   * the family. Transactions elsewhere are someone else's: 404 on show/update/delete/restore, left
   * out of the lists, and not a place to create in.
   */
  accountIds?: readonly string[] | undefined;
}

/** An account of the fake family, as kept in `FakeServiceStore.accounts` and rendered by the accounts index. */
export interface FakeAccount {
  /** The account's UUID. Default: a random one. */
  id: string;
  /** The account's display name. */
  name: string;
  /** `depository`, `investment`, `crypto`, `property`, `vehicle`, `other_asset`, `credit_card`, `loan`, `other_liability`. */
  account_type: string;
  /** ISO code of the account; new transactions seeded without one take it. Default `USD`. */
  currency: string;
  /**
   * `pending_deletion` accounts are left out of the transactions index (show and update still find
   * them); the accounts index lists only `draft`/`active` ones unless `include_disabled`.
   */
  status: AccountStatus;
  /** Decimal string, the account's own sign (a loan's balance is positive). Default `"0"`. */
  balance: string;
  /** The cash part of the balance (investments); default the balance. */
  cash_balance: string | null;
  /** A finer kind within `account_type` (`checking`, `savings`, …). Default `null`. */
  subtype: string | null;
  /** The bank's name. Default `null`. */
  institution_name: string | null;
  /** The bank's web domain. Default `null`. */
  institution_domain: string | null;
  /** ISO 8601 creation time, whole seconds. Default: the store's clock when added. */
  created_at: string;
  /** ISO 8601 time of the last change, whole seconds. Default: the store's clock when added. */
  updated_at: string;
}

/** A category of the fake family, as kept in `FakeServiceStore.categories`. */
export interface FakeCategory {
  /** The category's UUID. Default: a random one. */
  id: string;
  /** The category's display name. */
  name: string;
  /** `#RRGGBB`. Default `#6172F3`. */
  color: string;
  /** A lucide icon name. Default `shapes`. */
  icon: string;
  /** The parent of a subcategory; `null` for a root category. */
  parent_id: string | null;
  /** ISO 8601 creation time, whole seconds. */
  created_at: string;
  /** ISO 8601 time of the last change, whole seconds. */
  updated_at: string;
}

/** A merchant, as kept in `FakeServiceStore.merchants`. */
export interface FakeMerchant {
  /** The merchant's UUID. Default: a random one. */
  id: string;
  /** The merchant's display name. */
  name: string;
  /**
   * A family's own merchant, or one a provider sync made: the merchants index lists the latter only
   * when a transaction in an account the key's user can access uses it.
   */
  type: MerchantType;
  /** ISO 8601 creation time, whole seconds. */
  created_at: string;
  /** ISO 8601 time of the last change, whole seconds. */
  updated_at: string;
}

/** A tag of the fake family, as kept in `FakeServiceStore.tags`. */
export interface FakeTag {
  /** The tag's UUID. Default: a random one. */
  id: string;
  /** The tag's name, unique in the family. */
  name: string;
  /** `#RRGGBB`. Default `#e99537`, as the service. */
  color: string;
  /** ISO 8601 creation time, whole seconds. */
  created_at: string;
  /** ISO 8601 time of the last change, whole seconds. */
  updated_at: string;
}

/**
 * A transaction as the fake stores it (`FakeServiceStore.transactions`): the service's columns, with
 * ids for its category, merchant and tags. The handlers render it as the service's JSON.
 */
export interface FakeTransaction {
  /** The transaction's UUID. Default: a random one. */
  id: string;
  /** The UUID of the account it is in. */
  account_id: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** Decimal string with the INTERNAL sign: positive = expense, negative = income. */
  amount: string;
  /** ISO code. Default: the account's currency. */
  currency: string;
  /** The transaction's name. */
  name: string;
  /** Free-text notes. Default `null`. */
  notes: string | null;
  /** A provider's id or an idempotency key; with `source`, what an idempotent create matches. Default `null`. */
  external_id: string | null;
  /** Where the row came from (`lunchflow`, `api`, …). Default `null`. */
  source: string | null;
  /** The category's UUID. Default `null`. */
  category_id: string | null;
  /** The merchant's UUID. Default `null`. */
  merchant_id: string | null;
  /** The UUIDs of its tags. Default `[]`. */
  tag_ids: string[];
  /** Split parents refuse amount/date/nature edits; split children refuse every edit (422). */
  split: 'parent' | 'child' | null;
  /** ISO 8601 creation time, whole seconds. */
  created_at: string;
  /** ISO 8601 time of the last change, whole seconds; an update moves it. */
  updated_at: string;
  /** Attributes an API PATCH locked against later provider syncs (Sure's `locked_attributes`). */
  locked_attributes: string[];
}

/** A transfer between two transactions (money leaving one account and arriving in another). */
export interface FakeTransfer {
  /** The transfer's UUID. Default: a random one. */
  id: string;
  /** The transaction on the side where the money arrives. */
  inflow_transaction_id: string;
  /** The transaction on the side where the money leaves. */
  outflow_transaction_id: string;
}

/** `T` with the members `K` made optional (seed helpers fill them in). */
export type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** What `addApiKey` takes: `key` and `scope` are required. */
export type FakeApiKeySeed = Optional<FakeApiKey, 'name' | 'revoked' | 'userDeactivated'>;
type Stamped = 'created_at' | 'updated_at';
/** Only `name` and `account_type` are required; everything else has a default. */
export type FakeAccountSeed = Optional<FakeAccount, Exclude<keyof FakeAccount, 'name' | 'account_type'>>;
/** What `addCategory` takes: only `name` is required. */
export type FakeCategorySeed = Optional<
  FakeCategory,
  'id' | 'color' | 'icon' | 'parent_id' | 'created_at' | 'updated_at'
>;
/** What `addMerchant` takes: only `name` is required (`type` defaults to `FamilyMerchant`). */
export type FakeMerchantSeed = Optional<FakeMerchant, 'id' | 'type' | 'created_at' | 'updated_at'>;
/** What `addTag` takes: only `name` is required. */
export type FakeTagSeed = Optional<FakeTag, 'id' | 'color' | 'created_at' | 'updated_at'>;
/** `account_id`, `date`, `name` and `amount` are required; everything else has a default. */
export type FakeTransactionSeed = Optional<
  Omit<FakeTransaction, 'amount'>,
  Exclude<keyof FakeTransaction, 'account_id' | 'date' | 'name' | 'amount'>
> & {
  /** Internal sign: positive = expense, negative = income. A decimal string or a number. */
  amount: string | number;
};
/** What `addTransfer` takes: the two transactions; `id` is optional. */
export type FakeTransferSeed = Optional<FakeTransfer, 'id'>;

/**
 * The data a `FakeServiceStore` starts with. Each list is added in the order below, so transactions may
 * refer to the accounts, categories, merchants and tags given beside them.
 */
export interface FakeServiceSeed {
  /** Keys the fake accepts; without any, every request answers 401. */
  apiKeys?: FakeApiKeySeed[];
  /** The family's accounts. */
  accounts?: FakeAccountSeed[];
  /** The family's categories (a parent before its subcategories). */
  categories?: FakeCategorySeed[];
  /** Merchants. */
  merchants?: FakeMerchantSeed[];
  /** The family's tags. */
  tags?: FakeTagSeed[];
  /** Transactions, in accounts given above (or added before). */
  transactions?: FakeTransactionSeed[];
  /** Transfers between transactions given above. */
  transfers?: FakeTransferSeed[];
}

/** How a `FakeServiceStore` behaves: its clock and the family's currency. */
export interface FakeServiceStoreOptions {
  /** The clock for timestamps, "today" and rate-limit windows. Default `() => new Date()`. */
  now?: (() => Date) | undefined;
  /**
   * The family's currency: what a POST without `currency` stores (the service uses the family's
   * currency there, not the account's). Default `USD`.
   */
  familyCurrency?: string | undefined;
}

/** One request the fake answered. `body` is the parsed JSON body, when there was one. */
export interface FakeRequestRecord {
  /** HTTP method as received, e.g. `'PATCH'`. */
  method: string;
  /** The request's path and query, e.g. `/api/v1/transactions?page=2`. */
  path: string;
  /** The status the fake answered with. */
  status: number;
  /** The parsed JSON body, for requests that had one. */
  body?: unknown;
}

/** Matches a UUID (8-4-4-4-12 hex digits, any case), the shape of every id the service hands out. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `2026-05-04T19:01:55Z`: whole seconds in UTC, as the service renders timestamps. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function need<T>(map: Map<string, T>, id: string, what: string): T {
  const found = map.get(id);
  if (!found) throw new Error(`FakeServiceStore: unknown ${what} ${id}`);
  return found;
}

/**
 * An in-memory imitation of one family's data on the service, for `createServiceHandlers` to serve.
 * Seed it in the constructor or with the `add…` methods, then read its maps in assertions; amounts use
 * the service's internal sign (positive = expense, negative = income).
 */
export class FakeServiceStore {
  /** The accepted API keys, by key. */
  readonly apiKeys = new Map<string, FakeApiKey>();
  /** The family's accounts, by id. */
  readonly accounts = new Map<string, FakeAccount>();
  /** The family's categories, by id. */
  readonly categories = new Map<string, FakeCategory>();
  /** Merchants, by id. */
  readonly merchants = new Map<string, FakeMerchant>();
  /** The family's tags, by id. */
  readonly tags = new Map<string, FakeTag>();
  /** Live (not deleted) transactions, by id. */
  readonly transactions = new Map<string, FakeTransaction>();
  /**
   * Deleted transactions, kept aside (oldest deletion first) for finsync's restore and deleted-list
   * extensions. The service itself destroys the row.
   */
  readonly deletedTransactions = new Map<string, FakeTransaction>();
  /**
   * Ids of the transactions `POST /api/v1/transactions` created. Deleted, such a row is destroyed, as
   * the reference server destroys it (it keeps aside only rows a sync brought, which a later sync
   * would otherwise bring back): it is not in the deleted list and cannot be restored.
   */
  readonly createdByApi = new Set<string>();
  /** Transfers, by id. */
  readonly transfers = new Map<string, FakeTransfer>();
  /** Every request answered, oldest first (bodies included, headers never). */
  readonly requests: FakeRequestRecord[] = [];
  /** What a POST without `currency` stores. */
  readonly familyCurrency: string;
  readonly #now: () => Date;
  readonly #windows = new Map<string, { window: number; count: number }>();

  constructor(seed: FakeServiceSeed = {}, options: FakeServiceStoreOptions = {}) {
    // Checked here: a clock that is not a function failed at the first request, far from its cause.
    if (options.now !== undefined && typeof options.now !== 'function')
      throw new TypeError(`now must be a function returning a Date, got ${typeof options.now}`);
    if (options.familyCurrency !== undefined && !/^[A-Z]{3}$/.test(String(options.familyCurrency)))
      throw new RangeError(
        `familyCurrency must be an ISO 4217 code such as USD, got ${String(options.familyCurrency).slice(0, 20)}`,
      );
    this.#now = options.now ?? (() => new Date());
    this.familyCurrency = options.familyCurrency ?? 'USD';
    this.seed(seed);
  }

  /** The store's clock (the `now` option), as used for timestamps and rate-limit windows. */
  now(): Date {
    return this.#now();
  }

  /** Today's date in UTC, `YYYY-MM-DD`. */
  today(): string {
    return this.#now().toISOString().slice(0, 10);
  }

  /** Adds everything in `seed` (accounts before the transactions that use them). */
  seed(seed: FakeServiceSeed): this {
    for (const key of seed.apiKeys ?? []) this.addApiKey(key);
    for (const account of seed.accounts ?? []) this.addAccount(account);
    for (const category of seed.categories ?? []) this.addCategory(category);
    for (const merchant of seed.merchants ?? []) this.addMerchant(merchant);
    for (const tag of seed.tags ?? []) this.addTag(tag);
    for (const transaction of seed.transactions ?? []) this.addTransaction(transaction);
    for (const transfer of seed.transfers ?? []) this.addTransfer(transfer);
    return this;
  }

  /** Adds an accepted key; `name` defaults to `'test key'`, and it is neither revoked nor deactivated. */
  addApiKey(seed: FakeApiKeySeed): FakeApiKey {
    const key: FakeApiKey = { name: 'test key', revoked: false, userDeactivated: false, ...seed };
    this.apiKeys.set(key.key, key);
    return key;
  }

  #stamps(): Record<Stamped, string> {
    const now = isoSeconds(this.#now());
    return { created_at: now, updated_at: now };
  }

  /** Adds an account, filling in the defaults (a random id, `USD`, `active`, a `"0"` balance). */
  addAccount(seed: FakeAccountSeed): FakeAccount {
    const balance = seed.balance ?? '0';
    const account: FakeAccount = {
      id: crypto.randomUUID(),
      currency: 'USD',
      status: 'active',
      subtype: null,
      institution_name: null,
      institution_domain: null,
      ...this.#stamps(),
      ...seed,
      balance,
      cash_balance: seed.cash_balance === undefined ? balance : seed.cash_balance,
    };
    this.accounts.set(account.id, account);
    return account;
  }

  /** Adds a category; throws for a `parent_id` the store does not have. */
  addCategory(seed: FakeCategorySeed): FakeCategory {
    if (seed.parent_id) need(this.categories, seed.parent_id, 'parent category');
    const category: FakeCategory = {
      id: crypto.randomUUID(),
      color: '#6172F3',
      icon: 'shapes',
      parent_id: null,
      ...this.#stamps(),
      ...seed,
    };
    this.categories.set(category.id, category);
    return category;
  }

  /** Adds a merchant, a `FamilyMerchant` unless `type` says otherwise. */
  addMerchant(seed: FakeMerchantSeed): FakeMerchant {
    const merchant: FakeMerchant = {
      id: crypto.randomUUID(),
      type: 'FamilyMerchant',
      ...this.#stamps(),
      ...seed,
    };
    this.merchants.set(merchant.id, merchant);
    return merchant;
  }

  /** Adds a tag, colored `#e99537` unless `color` is given. */
  addTag(seed: FakeTagSeed): FakeTag {
    const tag: FakeTag = { id: crypto.randomUUID(), color: '#e99537', ...this.#stamps(), ...seed };
    this.tags.set(tag.id, tag);
    return tag;
  }

  /**
   * Adds a transaction, its amount stored as a decimal string with the internal sign. Throws for an
   * unknown account, category, merchant or tag, or an amount that is not a decimal.
   */
  addTransaction(seed: FakeTransactionSeed): FakeTransaction {
    const account = need(this.accounts, seed.account_id, 'account');
    const units = toUnits(seed.amount);
    if (units === undefined)
      throw new Error(`FakeServiceStore: amount ${String(seed.amount)} is not a decimal`);
    if (seed.category_id) need(this.categories, seed.category_id, 'category');
    if (seed.merchant_id) need(this.merchants, seed.merchant_id, 'merchant');
    for (const tag of seed.tag_ids ?? []) need(this.tags, tag, 'tag');
    const now = isoSeconds(this.#now());
    const transaction: FakeTransaction = {
      id: crypto.randomUUID(),
      notes: null,
      external_id: null,
      source: null,
      category_id: null,
      merchant_id: null,
      split: null,
      created_at: now,
      updated_at: now,
      ...seed,
      currency: seed.currency ?? account.currency,
      amount: unitsToDecimal(units),
      tag_ids: [...(seed.tag_ids ?? [])],
      locked_attributes: [...(seed.locked_attributes ?? [])],
    };
    this.transactions.set(transaction.id, transaction);
    return transaction;
  }

  /** Whether the user of `key` can access (read and write) the account `accountId`. */
  canAccess(key: FakeApiKey, accountId: string): boolean {
    return key.accountIds === undefined || key.accountIds.includes(accountId);
  }

  /** The live transaction of `accountId` with this `external_id` and `source` (the idempotency key). */
  findByExternalId(accountId: string, externalId: string, source: string): FakeTransaction | undefined {
    for (const tx of this.transactions.values()) {
      if (tx.account_id === accountId && tx.external_id === externalId && tx.source === source) return tx;
    }
    return undefined;
  }

  /**
   * Deletes a transaction: the row moves to `deletedTransactions`, and a transfer it was a side of
   * is destroyed with it (a restore does not bring the transfer back). Returns the row, if it existed.
   */
  deleteTransaction(id: string): FakeTransaction | undefined {
    const tx = this.transactions.get(id);
    if (!tx) return undefined;
    this.transactions.delete(id);
    this.deletedTransactions.delete(id);
    if (this.createdByApi.has(id)) this.createdByApi.delete(id);
    else this.deletedTransactions.set(id, tx);
    for (const [transferId, transfer] of this.transfers) {
      if (transfer.inflow_transaction_id === id || transfer.outflow_transaction_id === id) {
        this.transfers.delete(transferId);
      }
    }
    return tx;
  }

  /** Moves a deleted transaction back among the live ones. Returns it, if it was deleted. */
  restoreTransaction(id: string): FakeTransaction | undefined {
    const tx = this.deletedTransactions.get(id);
    if (!tx) return undefined;
    this.deletedTransactions.delete(id);
    this.transactions.set(id, tx);
    return tx;
  }

  /** Links two transactions as the two sides of a transfer (both render `transfer`). */
  addTransfer(seed: FakeTransferSeed): FakeTransfer {
    need(this.transactions, seed.inflow_transaction_id, 'transaction');
    need(this.transactions, seed.outflow_transaction_id, 'transaction');
    const transfer: FakeTransfer = { id: crypto.randomUUID(), ...seed };
    this.transfers.set(transfer.id, transfer);
    return transfer;
  }

  /** The transfer the transaction is a side of, if any. */
  transferOf(transactionId: string): FakeTransfer | undefined {
    for (const transfer of this.transfers.values()) {
      if (
        transfer.inflow_transaction_id === transactionId ||
        transfer.outflow_transaction_id === transactionId
      ) {
        return transfer;
      }
    }
    return undefined;
  }

  /**
   * Counts one request of `key` in its fixed window (aligned to the epoch, like the service's hourly
   * buckets). Returns the count before this request and the seconds until the window resets.
   * `count: false` only reads.
   */
  rateWindow(
    key: string,
    windowSeconds: number,
    count: boolean,
  ): {
    /** Requests of the key already counted in this window, this one not included. */
    used: number;
    /** Whole seconds until the window resets, at least 1. */
    resetSeconds: number;
  } {
    const nowMs = this.#now().getTime();
    const windowMs = windowSeconds * 1000;
    const window = Math.floor(nowMs / windowMs);
    let entry = this.#windows.get(key);
    if (!entry || entry.window !== window) {
      entry = { window, count: 0 };
      this.#windows.set(key, entry);
    }
    const used = entry.count;
    if (count) entry.count += 1;
    return { used, resetSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000)) };
  }

  /** Forgets every rate-limit count. */
  resetRateLimits(): void {
    this.#windows.clear();
  }
}
