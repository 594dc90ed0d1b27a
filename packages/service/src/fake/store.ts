/**
 * An in-memory imitation of one family's data on the service: API keys, accounts, categories,
 * merchants, tags and transactions. Amounts are stored with the service's INTERNAL sign
 * (positive = expense, negative = income), exactly as the service's `entries.amount` column.
 */
import { toUnits, unitsToDecimal } from './money.js';

export type ApiKeyScope = 'read' | 'read_write';
export type AccountStatus = 'draft' | 'active' | 'disabled' | 'pending_deletion';
export type MerchantType = 'FamilyMerchant' | 'ProviderMerchant';

export interface FakeApiKey {
  /** The key as sent in `X-Api-Key` (the service's keys are 64 lowercase hex characters). */
  key: string;
  scope: ApiKeyScope;
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

export interface FakeAccount {
  id: string;
  name: string;
  /** `depository`, `investment`, `crypto`, `property`, `vehicle`, `other_asset`, `credit_card`, `loan`, `other_liability`. */
  account_type: string;
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
  subtype: string | null;
  institution_name: string | null;
  institution_domain: string | null;
  created_at: string;
  updated_at: string;
}

export interface FakeCategory {
  id: string;
  name: string;
  color: string;
  icon: string;
  /** The parent of a subcategory; `null` for a root category. */
  parent_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface FakeMerchant {
  id: string;
  name: string;
  /**
   * A family's own merchant, or one a provider sync made: the merchants index lists the latter only
   * when a transaction in an account the key's user can access uses it.
   */
  type: MerchantType;
  created_at: string;
  updated_at: string;
}

export interface FakeTag {
  id: string;
  name: string;
  color: string;
  created_at: string;
  updated_at: string;
}

export interface FakeTransaction {
  id: string;
  account_id: string;
  date: string;
  /** Decimal string with the INTERNAL sign: positive = expense, negative = income. */
  amount: string;
  currency: string;
  name: string;
  notes: string | null;
  external_id: string | null;
  source: string | null;
  category_id: string | null;
  merchant_id: string | null;
  tag_ids: string[];
  /** Split parents refuse amount/date/nature edits; split children refuse every edit (422). */
  split: 'parent' | 'child' | null;
  created_at: string;
  updated_at: string;
  /** Attributes an API PATCH locked against later provider syncs (Sure's `locked_attributes`). */
  locked_attributes: string[];
}

export interface FakeTransfer {
  id: string;
  inflow_transaction_id: string;
  outflow_transaction_id: string;
}

/** `T` with the members `K` made optional (seed helpers fill them in). */
export type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export type FakeApiKeySeed = Optional<FakeApiKey, 'name' | 'revoked' | 'userDeactivated'>;
type Stamped = 'created_at' | 'updated_at';
/** Only `name` and `account_type` are required; everything else has a default. */
export type FakeAccountSeed = Optional<FakeAccount, Exclude<keyof FakeAccount, 'name' | 'account_type'>>;
export type FakeCategorySeed = Optional<
  FakeCategory,
  'id' | 'color' | 'icon' | 'parent_id' | 'created_at' | 'updated_at'
>;
export type FakeMerchantSeed = Optional<FakeMerchant, 'id' | 'type' | 'created_at' | 'updated_at'>;
export type FakeTagSeed = Optional<FakeTag, 'id' | 'color' | 'created_at' | 'updated_at'>;
/** `account_id`, `date`, `name` and `amount` are required; everything else has a default. */
export type FakeTransactionSeed = Optional<
  Omit<FakeTransaction, 'amount'>,
  Exclude<keyof FakeTransaction, 'account_id' | 'date' | 'name' | 'amount'>
> & {
  /** Internal sign: positive = expense, negative = income. A decimal string or a number. */
  amount: string | number;
};
export type FakeTransferSeed = Optional<FakeTransfer, 'id'>;

export interface FakeServiceSeed {
  apiKeys?: FakeApiKeySeed[];
  accounts?: FakeAccountSeed[];
  categories?: FakeCategorySeed[];
  merchants?: FakeMerchantSeed[];
  tags?: FakeTagSeed[];
  transactions?: FakeTransactionSeed[];
  transfers?: FakeTransferSeed[];
}

export interface FakeServiceStoreOptions {
  /** The clock for timestamps, "today" and rate-limit windows. Default `() => new Date()`. */
  now?: () => Date;
  /**
   * The family's currency: what a POST without `currency` stores (the service uses the family's
   * currency there, not the account's). Default `USD`.
   */
  familyCurrency?: string;
}

/** One request the fake answered. `body` is the parsed JSON body, when there was one. */
export interface FakeRequestRecord {
  method: string;
  path: string;
  status: number;
  body?: unknown;
}

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

export class FakeServiceStore {
  readonly apiKeys = new Map<string, FakeApiKey>();
  readonly accounts = new Map<string, FakeAccount>();
  readonly categories = new Map<string, FakeCategory>();
  readonly merchants = new Map<string, FakeMerchant>();
  readonly tags = new Map<string, FakeTag>();
  readonly transactions = new Map<string, FakeTransaction>();
  /**
   * Deleted transactions, kept aside (oldest deletion first) for finsync's restore and deleted-list
   * extensions. The service itself destroys the row.
   */
  readonly deletedTransactions = new Map<string, FakeTransaction>();
  readonly transfers = new Map<string, FakeTransfer>();
  /** Every request answered, oldest first (bodies included, headers never). */
  readonly requests: FakeRequestRecord[] = [];
  /** What a POST without `currency` stores. */
  readonly familyCurrency: string;
  readonly #now: () => Date;
  readonly #windows = new Map<string, { window: number; count: number }>();

  constructor(seed: FakeServiceSeed = {}, options: FakeServiceStoreOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.familyCurrency = options.familyCurrency ?? 'USD';
    this.seed(seed);
  }

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

  addApiKey(seed: FakeApiKeySeed): FakeApiKey {
    const key: FakeApiKey = { name: 'test key', revoked: false, userDeactivated: false, ...seed };
    this.apiKeys.set(key.key, key);
    return key;
  }

  #stamps(): Record<Stamped, string> {
    const now = isoSeconds(this.#now());
    return { created_at: now, updated_at: now };
  }

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

  addTag(seed: FakeTagSeed): FakeTag {
    const tag: FakeTag = { id: crypto.randomUUID(), color: '#e99537', ...this.#stamps(), ...seed };
    this.tags.set(tag.id, tag);
    return tag;
  }

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
    this.deletedTransactions.set(id, tx);
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
  rateWindow(key: string, windowSeconds: number, count: boolean): { used: number; resetSeconds: number } {
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
