/**
 * Applies the engine's change feed to the app's own tables. The feed's amounts point the provider's
 * way and are stored the service's (see sign-convention.ts). Fields a user edited through the API
 * are locked and keep the user's value on every later sync.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { currencyScale, decimalToMinorUnits, minorUnitsToDecimal } from '@finsync/provider';
import type { FeedEntry, MirrorAccount, MirrorTransaction, SyncEngine } from '@finsync/sync';
import { isoNow } from './clock.js';
import { storedFromProvider } from './sign-convention.js';
import {
  API_KEY_PREFIX,
  type AppStore,
  type UnitOfWork,
  type FeedTransaction,
  type TransactionUpdate,
} from './store/types.js';

export type { LockableField } from './store/types.js';

const INVESTMENT_PROVIDERS = new Set(['snaptrade', 'mx', 'finicity', 'pluggy', 'quiltt']);

/**
 * The words that name a kind of account, phrases before the words in them (a debit card is cash, a
 * credit union no credit). A name says its kind last: the bank comes first ("Crédit Agricole Compte
 * Courant", "American Express High Yield Savings", "Navy Federal Credit Union Visa"), so the last of
 * these words decides.
 */
const KIND_WORDS: Array<[pattern: string, type: string | null]> = [
  [String.raw`credit union`, null],
  [String.raw`(?:debit|prepaid) cards?\b`, 'depository'],
  [String.raw`line of credit|\bheloc\b|mortgage|loans?\b|kredit(?:vertrag)?\b|\bpr[eê]t\b`, 'loan'],
  [String.raw`\bcash isa\b`, 'depository'],
  [
    String.raw`\b(?:checking|chequing|current|savings?|deposit|debit|prepaid|giro\w*|girokonto|tagesgeld\w*|livret|courant|compte|cuenta|conto)\b`,
    'depository',
  ],
  [
    String.raw`cards?\b|karte\b|tarjeta|carte de cr[ée]dit|\bcr[ée]dit[oa]?\b|\bvisa\b|mastercard|\bamex\b|american express`,
    'credit_card',
  ],
  [String.raw`\bisa\b|invest\w*|brokerage|pension|\b401k\b|\bstocks?\b|\bira\b`, 'investment'],
];
const KIND = new RegExp(KIND_WORDS.map(([pattern]) => `(${pattern})`).join('|'), 'g');

/**
 * The provider has no account type, so one is inferred: brokerage aggregators → investment; else the
 * last kind word of the name (see KIND_WORDS); else depository. The type decides the balance's sign
 * in the API (a liability is shown as what is owed), so a bank's own name ("Cardinal Bank", "Crédit
 * Mutuel") must not make its savings account a debt.
 */
export function inferAccountType(account: MirrorAccount): string {
  if (account.provider && INVESTMENT_PROVIDERS.has(account.provider)) return 'investment';
  let type = 'depository';
  for (const match of account.name.toLowerCase().matchAll(KIND)) {
    const group = match.slice(1).findIndex((text) => text !== undefined);
    const kind = KIND_WORDS[group]?.[1];
    if (kind) type = kind;
  }
  return type;
}

/** What the app keeps of a mirrored account, beside its ids. */
function accountFields(account: MirrorAccount) {
  return {
    name: account.name,
    currency: account.currency,
    balance: account.balance?.amount ?? null,
    state: account.state,
    institution_name: account.institutionName,
    // Inferred again at every change, so a better guess of a later release reaches old accounts.
    account_type: inferAccountType(account),
  };
}

function externalId(record: MirrorTransaction): string {
  if (record.providerId !== null) return `lunchflow_${record.providerId}`;
  return `lunchflow_pending_${createHash('md5').update(record.key).digest('hex')}`;
}

/**
 * One batch's unit of work, and what it has looked up so far: a batch touches few accounts and
 * merchants many times, and nothing else writes them while the batch holds the user's cursor.
 */
interface Batch {
  unit: UnitOfWork;
  userId: string;
  accounts: Map<string, { id: string; currency: string | null } | undefined>;
  merchants: Map<string, string>;
}

/** What the provider says about a transaction, in the app's terms. */
interface ProviderFields {
  feed_key: string;
  external_id: string;
  date: string;
  amount: string;
  currency: string;
  name: string;
  notes: string | null;
  merchant_id: string | null;
  is_pending: boolean;
}

/** The server is shutting down: the feed was applied as far as its cursor says, and the next start applies the rest. */
export class FeedApplyStopped extends Error {
  override readonly name = 'FeedApplyStopped';
  constructor() {
    super("stopped by the server's shutdown: the next start applies the rest");
  }
}

export class FeedApplier {
  readonly #store: AppStore;
  readonly #engine: SyncEngine;
  #stopped = false;

  constructor(store: AppStore, engine: SyncEngine) {
    this.#store = store;
    this.#engine = engine;
  }

  readonly #running = new Map<string, Promise<number>>();

  /** Applies everything new in `userId`'s feed; returns how many entries were applied. Calls for one user run one at a time. */
  apply(userId: string): Promise<number> {
    const previous = this.#running.get(userId) ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.#applyAll(userId));
    this.#running.set(userId, next);
    void next
      .finally(() => {
        if (this.#running.get(userId) === next) this.#running.delete(userId);
      })
      .catch(() => undefined);
    return next;
  }

  /**
   * Stops every application between two batches, now and later (a shutdown that has waited long
   * enough): each ends with `FeedApplyStopped`, its cursor where the next start goes on from.
   */
  stop(): void {
    this.#stopped = true;
  }

  /** Resolves when no application is in flight (for a clean shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  /**
   * Writes each of the user's accounts as the mirror holds it now, where the app has a row for it and
   * it differs: a row made by an older release gets what it did not keep (the bank's name, migration
   * 8) and a better guess of its type, without waiting for the account to change. One read of each
   * side, and no write at all when they agree (every start after the first). As a feed batch, it
   * writes only if the user's feed cursor is where it was before the mirror was read: another server
   * that applied this user's feed meanwhile (one PostgreSQL database) wrote rows as new or newer.
   */
  async refreshAccounts(userId: string): Promise<void> {
    const cursor = await this.#store.feedCursor(userId);
    const [mirrored, kept] = await Promise.all([
      this.#engine.storage.listAccounts(userId),
      this.#store.listAccounts(userId),
    ]);
    const byProviderId = new Map(kept.map((row) => [row.provider_account_id, row]));
    const differing = mirrored.filter((account) => {
      const row = byProviderId.get(account.id);
      if (!row) return false; // the feed adds it, in its order
      const fields = accountFields(account);
      return (Object.keys(fields) as Array<keyof typeof fields>).some((name) => fields[name] !== row[name]);
    });
    if (differing.length === 0) return;
    await this.#store.atomically(async (unit) => {
      if ((await unit.lockFeedCursor(userId)) !== cursor) return;
      const batch: Batch = { unit, userId, accounts: new Map(), merchants: new Map() };
      for (const account of differing) await this.#upsertAccount(batch, account);
    });
  }

  async #applyAll(userId: string): Promise<number> {
    let applied = 0;
    for (;;) {
      if (this.#stopped) throw new FeedApplyStopped();
      const cursor = await this.#store.feedCursor(userId);
      // Small batches: on SQLite each holds the one connection, and requests wait for it.
      const batch = await this.#engine.readChanges({ after: cursor, limit: 250, connectionId: userId });
      if (batch.length === 0) return applied;
      // One unit of work per batch, cursor included: a crash replays the batch, never half of it.
      // Another applier of this user (another server on the same database) may have moved the
      // cursor meanwhile: then nothing is written, and the loop reads on from where it got to.
      const done = await this.#store.atomically(async (unit) => {
        if ((await unit.lockFeedCursor(userId)) !== cursor) return false;
        const context: Batch = { unit, userId, accounts: new Map(), merchants: new Map() };
        for (const entry of batch) await this.#applyEntry(context, entry);
        await unit.setFeedCursor(userId, batch.at(-1)!.seq);
        return true;
      });
      if (done) applied += batch.length;
      // On SQLite every statement runs on this thread: without a turn of the event loop between
      // batches, a feed of 445,000 rows kept every request (and a shutdown's signals) waiting 84 s.
      await nextTurn();
    }
  }

  async #account(batch: Batch, providerAccountId: string) {
    if (!batch.accounts.has(providerAccountId))
      batch.accounts.set(providerAccountId, await batch.unit.findAccount(batch.userId, providerAccountId));
    return batch.accounts.get(providerAccountId);
  }

  async #applyEntry(batch: Batch, entry: FeedEntry): Promise<void> {
    const { unit, userId } = batch;
    if (entry.entity === 'account' && entry.record) await this.#upsertAccount(batch, entry.record);
    if (entry.entity !== 'transaction') return;
    const account = await this.#account(batch, entry.accountId);
    if (!account) return;
    if (entry.op === 'removed') return this.#remove(unit, account.id, entry.key, entry.replacedBy ?? null);
    const record = entry.record!;
    // A row that takes the place of another (its posted twin, a re-issued id, a revert) takes over
    // the app's row: same id, the user's edits, and a deletion the user made stays made.
    let existing = await unit.findFeedTransaction(account.id, entry.key);
    if (!existing && entry.op === 'added' && entry.replaces)
      existing = await unit.findFeedTransaction(account.id, entry.replaces);
    if (entry.op === 'added') {
      const created = await this.#createdWithItsKey(unit, account.id, record);
      if (created) {
        // Taken over, it is the sync's row (its feed key is the provider's from here on): it no
        // longer counts against the user's bound on rows created through the API, and a delete keeps
        // it as a tombstone, as any synced row.
        await unit.uncountCreatedTransaction(userId);
        // A row of the app is this purchase too (kept out of sight while the provider did not list
        // it, or the hold this posting replaces): one key, one row. The row created with the key stays,
        // as the user made it, with the other's edits where it has none of its own.
        if (existing) {
          await this.#mergeEdits(unit, existing, created);
          await unit.removeTransaction(existing.id);
        }
        existing = await this.#createdWithItsKey(unit, account.id, record);
      }
    }
    const fields = await this.#providerFields(batch, account.currency, record);
    if (existing) await this.#updateTransaction(unit, existing, fields);
    else {
      const now = isoNow();
      await unit.insertTransaction({
        id: randomUUID(),
        user_id: userId,
        account_id: account.id,
        source: 'lunchflow',
        ...fields,
        created_at: now,
        updated_at: now,
      });
    }
  }

  /**
   * A row created through the API with the key the sync gives this one (`external_id` `lunchflow_…`,
   * `source` `lunchflow`): the service's importer finds an entry by account, external id and source
   * and updates it, so the sync takes this row over (its locked fields kept) instead of adding the
   * same purchase beside it.
   */
  async #createdWithItsKey(unit: UnitOfWork, accountId: string, record: MirrorTransaction) {
    const id = await unit.findCreatedThroughApi(accountId, 'lunchflow', externalId(record));
    return id === undefined ? undefined : unit.findFeedTransaction(accountId, `${API_KEY_PREFIX}${id}`);
  }

  /**
   * A removal. When another row takes this one's place and the app has a row for it already (it
   * arrived before this one left), the user's edits move there and this row goes; if the user had
   * deleted that other row and kept this one, the other comes back in its place. A plain removal
   * deletes the row, except one the user deleted or edited: that is kept, marked gone and shown
   * nowhere, so that the provider listing the key again (a bank that drops a row for one read, an
   * aggregator's glitch) brings back the user's edits with it, or cannot bring back what the user
   * deleted. A deleted row that is gone leaves the deleted list too: it cannot be restored into a
   * row the provider no longer lists.
   */
  async #remove(unit: UnitOfWork, accountId: string, key: string, replacedBy: string | null) {
    const row = await unit.findFeedTransaction(accountId, key);
    if (!row) return;
    const successor = replacedBy === null ? undefined : await unit.findFeedTransaction(accountId, replacedBy);
    if (successor) {
      await this.#mergeEdits(unit, row, successor);
      // Both were shown, and the user deleted the successor as the duplicate while keeping this
      // one: the purchase the user kept stays shown, now under the successor's row.
      if (successor.deleted && !row.deleted) await unit.setDeleted(successor.id, null);
      await unit.removeTransaction(row.id);
      return;
    }
    if (!row.deleted && row.locked.length === 0) await unit.removeTransaction(row.id);
    else if (!row.gone) await unit.updateTransaction(row.id, { gone_at: new Date().toISOString() });
  }

  /** Copies the fields the user edited on `from` to `to`, where `to` has no edit of its own. */
  async #mergeEdits(unit: UnitOfWork, from: FeedTransaction, to: FeedTransaction): Promise<void> {
    const locked = new Set(to.locked);
    const update: TransactionUpdate = {};
    for (const field of from.locked) {
      if (locked.has(field)) continue;
      locked.add(field);
      if (field === 'tag_ids')
        await unit.replaceTransactionTags(to.id, await unit.transactionTagIds(from.id));
      else if (field === 'category_id') update.category_id = from.category_id ?? undefined;
      else if (field === 'amount') update.amount = amountIn(from.amount, to.currency);
      else Object.assign(update, { [field]: from[field] });
    }
    if (locked.size === to.locked.length) return;
    await unit.updateTransaction(to.id, {
      ...update,
      locked: [...locked].sort(),
      updated_at: new Date().toISOString(),
    });
  }

  async #upsertAccount(batch: Batch, account: MirrorAccount): Promise<void> {
    const { unit, userId } = batch;
    const fields = accountFields(account);
    const existing = await this.#account(batch, account.id);
    const id = existing?.id ?? randomUUID();
    batch.accounts.set(account.id, { id, currency: account.currency });
    if (existing) return unit.updateAccount(id, fields);
    await unit.insertAccount({
      id,
      user_id: userId,
      provider_account_id: account.id,
      ...fields,
    });
  }

  async #merchantId(batch: Batch, name: string | null): Promise<string | null> {
    if (!name) return null;
    let id = batch.merchants.get(name);
    if (id === undefined) {
      id = await batch.unit.ensureMerchant(batch.userId, name, randomUUID());
      batch.merchants.set(name, id);
    }
    return id;
  }

  async #providerFields(
    batch: Batch,
    accountCurrency: string | null,
    record: MirrorTransaction,
  ): Promise<ProviderFields> {
    return {
      feed_key: record.key,
      external_id: externalId(record),
      date: record.date,
      amount: storedFromProvider(record.amount),
      currency: record.currency ?? accountCurrency ?? 'XXX',
      name: record.merchant ?? record.description ?? 'Unknown transaction',
      notes: record.description,
      merchant_id: await this.#merchantId(batch, record.merchant),
      is_pending: record.isPending,
    };
  }

  async #updateTransaction(unit: UnitOfWork, row: FeedTransaction, fields: ProviderFields): Promise<void> {
    const locked = new Set(row.locked);
    const update: TransactionUpdate = {
      feed_key: fields.feed_key,
      external_id: fields.external_id,
      currency: fields.currency,
      is_pending: fields.is_pending,
      updated_at: isoNow(),
      // Listed again: shown again, as the user left it (or still deleted).
      ...(row.gone ? { gone_at: null } : {}),
    };
    for (const field of ['date', 'amount', 'name', 'notes', 'merchant_id'] as const) {
      if (!locked.has(field)) Object.assign(update, { [field]: fields[field] });
    }
    // The user's amount stays, in the currency the row now has: no more decimals than it takes.
    if (locked.has('amount') && fields.currency !== row.currency) {
      const kept = amountIn(row.amount, fields.currency);
      if (kept !== row.amount) update.amount = kept;
    }
    await unit.updateTransaction(row.id, update);
  }
}

/**
 * `amount` with no more decimals than `currency` takes (half away from zero, as `amount_cents`
 * rounds): a user's amount set while the row's currency was not known (shown as XXX, two decimals)
 * stays the user's when the row learns it is in JPY, and reads back as stored.
 */
function amountIn(amount: string, currency: string): string {
  const scale = currencyScale(currency);
  return minorUnitsToDecimal(decimalToMinorUnits(amount, scale), scale);
}
