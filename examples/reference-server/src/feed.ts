/**
 * Applies the engine's change feed to the app's own tables. The feed speaks the provider's language
 * (negative = money out); the app stores the service's (positive = expense). Fields a user edited
 * through the API are locked and keep the user's value on every later sync.
 */
import { createHash, randomUUID } from 'node:crypto';
import { negateDecimal } from '@finsync/provider';
import type { FeedEntry, MirrorAccount, MirrorTransaction, SyncEngine } from '@finsync/sync';
import type { Db } from './db.js';

/** Fields the user owns once edited; the feed never overwrites them afterwards. */
export type LockableField = 'name' | 'date' | 'notes' | 'amount' | 'category_id' | 'merchant_id' | 'tag_ids';

const INVESTMENT_PROVIDERS = new Set(['snaptrade', 'mx', 'finicity', 'pluggy', 'quiltt']);

/**
 * The provider has no account type, so one is inferred: brokerage aggregators → investment, names
 * that say card/loan → credit_card/loan, else depository.
 */
export function inferAccountType(account: MirrorAccount): string {
  if (account.provider && INVESTMENT_PROVIDERS.has(account.provider)) return 'investment';
  const name = account.name.toLowerCase();
  if (/credit|card/.test(name)) return 'credit_card';
  if (/loan|mortgage/.test(name)) return 'loan';
  if (/isa|invest|brokerage|pension|401k|stocks?/.test(name)) return 'investment';
  return 'depository';
}

function externalId(record: MirrorTransaction): string {
  if (record.providerId !== null) return `lunchflow_${record.providerId}`;
  return `lunchflow_pending_${createHash('md5').update(record.key).digest('hex')}`;
}

interface AppTransactionRow {
  id: string;
  locked: string;
}

export class FeedApplier {
  readonly #db: Db;
  readonly #engine: SyncEngine;

  constructor(db: Db, engine: SyncEngine) {
    this.#db = db;
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

  async #applyAll(userId: string): Promise<number> {
    let applied = 0;
    for (;;) {
      const cursor =
        (
          this.#db.prepare('SELECT seq FROM app_feed_cursors WHERE connection_id = ?').get(userId) as
            { seq: number } | undefined
        )?.seq ?? 0;
      const batch = await this.#engine.readChanges({ after: cursor, limit: 1_000, connectionId: userId });
      if (batch.length === 0) return applied;
      // One transaction per batch, cursor included: a crash replays the batch, never half of it.
      this.#db.transaction(() => {
        for (const entry of batch) this.#applyEntry(userId, entry);
        this.#db
          .prepare(
            'INSERT INTO app_feed_cursors (connection_id, seq) VALUES (?, ?) ON CONFLICT (connection_id) DO UPDATE SET seq = excluded.seq',
          )
          .run(userId, batch.at(-1)!.seq);
      })();
      applied += batch.length;
    }
  }

  #applyEntry(userId: string, entry: FeedEntry): void {
    if (entry.entity === 'account' && entry.record) this.#upsertAccount(userId, entry.record);
    if (entry.entity !== 'transaction') return;
    const accountId = this.#accountId(userId, entry.accountId);
    if (!accountId) return;
    if (entry.op === 'removed') {
      this.#db
        .prepare('DELETE FROM app_transactions WHERE account_id = ? AND feed_key = ?')
        .run(accountId, entry.key);
      return;
    }
    const record = entry.record!;
    // A posted row that replaces its pending twin takes over the pending row (same id, same edits).
    const previousKey =
      entry.op === 'added' && 'replaces' in entry && entry.replaces ? entry.replaces : entry.key;
    const existing = this.#db
      .prepare(
        'SELECT id, locked FROM app_transactions WHERE account_id = ? AND feed_key IN (?, ?) ORDER BY feed_key = ? DESC LIMIT 1',
      )
      .get(accountId, entry.key, previousKey, entry.key) as AppTransactionRow | undefined;
    if (existing) this.#updateTransaction(userId, existing, record);
    else this.#insertTransaction(userId, accountId, record);
  }

  #upsertAccount(userId: string, account: MirrorAccount): void {
    const existing = this.#accountId(userId, account.id);
    if (existing) {
      this.#db
        .prepare('UPDATE app_accounts SET name = ?, currency = ?, balance = ?, state = ? WHERE id = ?')
        .run(account.name, account.currency, account.balance?.amount ?? null, account.state, existing);
      return;
    }
    this.#db
      .prepare(
        'INSERT INTO app_accounts (id, user_id, provider_account_id, name, account_type, currency, balance, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        randomUUID(),
        userId,
        account.id,
        account.name,
        inferAccountType(account),
        account.currency,
        account.balance?.amount ?? null,
        account.state,
      );
  }

  #accountId(userId: string, providerAccountId: string): string | undefined {
    return (
      this.#db
        .prepare('SELECT id FROM app_accounts WHERE user_id = ? AND provider_account_id = ?')
        .get(userId, providerAccountId) as { id: string } | undefined
    )?.id;
  }

  #merchantId(userId: string, name: string | null): string | null {
    if (!name) return null;
    this.#db
      .prepare(
        'INSERT INTO app_merchants (id, user_id, name) VALUES (?, ?, ?) ON CONFLICT (user_id, name) DO NOTHING',
      )
      .run(randomUUID(), userId, name);
    return (
      this.#db.prepare('SELECT id FROM app_merchants WHERE user_id = ? AND name = ?').get(userId, name) as {
        id: string;
      }
    ).id;
  }

  #currency(userId: string, record: MirrorTransaction): string {
    if (record.currency) return record.currency;
    const account = this.#db
      .prepare('SELECT currency FROM app_accounts WHERE user_id = ? AND provider_account_id = ?')
      .get(userId, record.accountId) as { currency: string | null } | undefined;
    return account?.currency ?? 'XXX';
  }

  #providerFields(userId: string, record: MirrorTransaction) {
    return {
      feed_key: record.key,
      external_id: externalId(record),
      date: record.date,
      amount: negateDecimal(record.amount),
      currency: this.#currency(userId, record),
      name: record.merchant ?? record.description ?? 'Unknown transaction',
      notes: record.description,
      merchant_id: this.#merchantId(userId, record.merchant),
      is_pending: record.isPending ? 1 : 0,
    };
  }

  #insertTransaction(userId: string, accountId: string, record: MirrorTransaction): void {
    const fields = this.#providerFields(userId, record);
    const now = new Date().toISOString();
    this.#db
      .prepare(
        `INSERT INTO app_transactions (id, user_id, account_id, feed_key, external_id, source, date, amount, currency, name, notes,
           merchant_id, is_pending, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'lunchflow', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        randomUUID(),
        userId,
        accountId,
        fields.feed_key,
        fields.external_id,
        fields.date,
        fields.amount,
        fields.currency,
        fields.name,
        fields.notes,
        fields.merchant_id,
        fields.is_pending,
        now,
        now,
      );
  }

  #updateTransaction(userId: string, row: AppTransactionRow, record: MirrorTransaction): void {
    const locked = new Set(JSON.parse(row.locked) as LockableField[]);
    const fields = this.#providerFields(userId, record);
    const assignments: string[] = [
      'feed_key = @feed_key',
      'external_id = @external_id',
      'currency = @currency',
      'is_pending = @is_pending',
    ];
    for (const field of ['date', 'amount', 'name', 'notes', 'merchant_id'] as const) {
      if (!locked.has(field)) assignments.push(`${field} = @${field}`);
    }
    this.#db
      .prepare(
        `UPDATE app_transactions SET ${assignments.join(', ')}, updated_at = @updated_at WHERE id = @id`,
      )
      .run({ ...fields, id: row.id, updated_at: new Date().toISOString() });
  }
}
