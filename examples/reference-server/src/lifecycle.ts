/**
 * Creating, deleting and restoring transactions. Creates follow the service: an `external_id` (with
 * `source`, default "api") makes a POST idempotent per account. Deletes differ from the service in
 * one way that matters for a synced app: a synced transaction the user deleted is kept as a
 * tombstone, so no later sync brings it back (not through pending → posted, nor a re-issued id)
 * until the user restores it; a transaction created through the API is removed for good.
 */
import { randomUUID } from 'node:crypto';
import { toDecimalString } from '@finsync/provider';
import {
  DECIMAL_TEXT,
  amountProblem,
  calendarDateOf,
  isBlank,
  isRecordId,
  storedIdOf,
  unreadableAmountProblem,
} from './input.js';
import { pageAsTheService, servicePage } from './pages.js';
import { ApiProblem, notFound } from './problem.js';
import { renderTransactions } from './render.js';
import { isNature, storedFromWrite } from './sign-convention.js';
import {
  API_KEY_PREFIX,
  MAX_CREATED_TRANSACTIONS_PER_USER,
  type AppStore,
  type CommitDeadline,
  type LockableField,
} from './store/types.js';

const invalid = (...errors: string[]) =>
  new ApiProblem(422, 'validation_failed', 'Transaction could not be created', errors);

function members(body: unknown): Record<string, unknown> {
  const member =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).transaction
      : undefined;
  if (member === null || typeof member !== 'object' || Array.isArray(member))
    throw new ApiProblem(400, 'bad_request', 'Required parameter "transaction" is missing or empty');
  return member as Record<string, unknown>;
}

function optionalText(raw: Record<string, unknown>, name: string, errors: string[]): string | undefined {
  const value = raw[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  errors.push(`${name} must be a string`);
  return undefined;
}

export interface CreateResult {
  created: boolean;
  transaction: unknown;
}

/** How a request's write may run: past `deadline` (the request timeout's), it rolls back. */
export interface WriteOptions {
  deadline?: CommitDeadline | undefined;
}

/** `POST /api/v1/transactions`: 201 with the new row, or 200 with the row an idempotency key names. */
export async function createTransaction(
  store: AppStore,
  userId: string,
  body: unknown,
  today: string,
  options: WriteOptions = {},
): Promise<CreateResult> {
  const raw = members(body);
  const typeErrors: string[] = [];
  const accountId = optionalText(raw, 'account_id', typeErrors);
  if (!accountId) {
    throw new ApiProblem(422, 'validation_failed', 'Account ID is required', ['Account ID is required']);
  }
  const externalId = optionalText(raw, 'external_id', typeErrors) || undefined;
  const sourceGiven = optionalText(raw, 'source', typeErrors) || undefined;
  if (sourceGiven && !externalId) {
    throw new ApiProblem(422, 'validation_failed', 'Source requires external_id', [
      'Source requires external_id',
    ]);
  }
  const source = externalId ? (sourceGiven ?? 'api') : undefined;
  const account = isRecordId(accountId)
    ? (await store.listAccounts(userId)).find((a) => a.id === storedIdOf(accountId))
    : undefined;
  if (!account) throw invalid(`Account ${accountId} not found`);
  const original = externalId ? await findByKey(store, account.id, source!, externalId) : undefined;
  if (original) return { created: false, transaction: await render(store, userId, original) };

  const errors = [...typeErrors];
  const name = (optionalText(raw, 'name', errors) ?? optionalText(raw, 'description', errors))?.trim();
  if (!name) errors.push("Name can't be blank");
  const sentDate = optionalText(raw, 'date', errors);
  const date = sentDate === undefined ? undefined : calendarDateOf(sentDate);
  const minimum = `${Number(today.slice(0, 4)) - 30}${today.slice(4)}`;
  if (!date) errors.push("Date can't be blank");
  else if (date <= minimum) errors.push(`Date must be greater than ${minimum}`);
  // Any case, stored upper-case (the service stores it as sent, and Money reads it in any case).
  // Without one, the account's; an account whose currency is not known yet (no balance has said it)
  // needs one sent: a guess would stay, since an update cannot change a currency.
  const sent = optionalText(raw, 'currency', errors)?.trim().toUpperCase();
  const currency = sent ?? account.currency ?? '';
  if (sent === undefined && currency === '')
    errors.push("Currency can't be blank: the account's currency is not known yet, so send one such as USD");
  else if (!/^[A-Z]{3}$/.test(currency)) errors.push('Currency must be a three-letter code such as USD');
  const amount = signedAmount(raw, currency, errors);
  const notes = optionalText(raw, 'notes', errors) ?? null;
  // Blank (empty or only white space) is "none", as the service's `compact_blank`.
  const reference = (name: string) => {
    const value = optionalText(raw, name, errors);
    return value === undefined || isBlank(value) ? undefined : storedIdOf(value);
  };
  const categoryId = reference('category_id');
  const merchantId = reference('merchant_id');
  const tagIds = raw.tag_ids === undefined || raw.tag_ids === null ? [] : raw.tag_ids;
  if (!Array.isArray(tagIds) || tagIds.some((t) => typeof t !== 'string'))
    errors.push('tag_ids must be a list of tag ids');
  const tags = Array.isArray(tagIds) ? [...new Set((tagIds as string[]).map(storedIdOf))] : [];
  if (categoryId && !(await store.ownedIds('category', userId, [categoryId])).size)
    errors.push(`Category ${categoryId} not found`);
  if (merchantId && !(await store.ownedIds('merchant', userId, [merchantId])).size)
    errors.push(`Merchant ${merchantId} not found`);
  const ownedTags = await store.ownedIds('tag', userId, tags);
  for (const tag of tags) if (!ownedTags.has(tag)) errors.push(`Tag ${tag} not found`);
  if (errors.length > 0) throw invalid(...errors);

  const now = new Date().toISOString();
  const id = randomUUID();
  // As the service, what the create saved: notes left out stay open for a sync to fill (a row
  // created with a provider's idempotency key is taken over by the sync, description and all).
  const locked: LockableField[] = ['amount', 'date', 'name'];
  if (notes !== null) locked.push('notes');
  if (categoryId) locked.push('category_id');
  if (merchantId) locked.push('merchant_id');
  if (tags.length > 0) locked.push('tag_ids');
  try {
    await store.atomically(async (unit) => {
      // Under the write lock (SQLite) or the unique index (PostgreSQL), a concurrent twin loses.
      if (externalId && (await unit.findByExternalId(account.id, source!, externalId))) throw new Repeat();
      if (!(await unit.countCreatedTransaction(userId)))
        throw invalid(
          `A user creates at most ${MAX_CREATED_TRANSACTIONS_PER_USER.toLocaleString('en')} transactions through the API; delete some first`,
        );
      await unit.insertTransaction({
        id,
        user_id: userId,
        account_id: account.id,
        feed_key: `${API_KEY_PREFIX}${id}`,
        // The service renders null for both on a plain manual entry; the columns keep ''.
        external_id: externalId ?? '',
        source: source ?? '',
        date: date!,
        amount: amount!,
        currency,
        name: name!,
        notes,
        category_id: categoryId ?? null,
        merchant_id: merchantId ?? null,
        is_pending: false,
        locked: locked.sort(),
        created_at: now,
        updated_at: now,
      });
      if (tags.length > 0) await unit.replaceTransactionTags(id, tags);
    }, options);
  } catch (error) {
    if (!(error instanceof Repeat) && !isUniqueViolation(error)) throw error;
    const winner = await findByKey(store, account.id, source!, externalId!);
    if (!winner) throw error;
    return { created: false, transaction: await render(store, userId, winner) };
  }
  return { created: true, transaction: await render(store, userId, id) };
}

/** Thrown inside the create's unit of work when a row with the idempotency key appeared meanwhile. */
class Repeat extends Error {}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

async function findByKey(store: AppStore, accountId: string, source: string, externalId: string) {
  return store.atomically(async (unit) => (await unit.findByExternalId(accountId, source, externalId))?.id);
}

/** The amount to store (see sign-convention.ts), as `nature` and the sign say. */
function signedAmount(raw: Record<string, unknown>, currency: string, errors: string[]) {
  const value = raw.amount;
  if (value === undefined || value === null || value === '') {
    errors.push("Amount can't be blank");
    return undefined;
  }
  // Text as a PATCH takes it: `1e3`, `+5` or ` 12 ` are refused alike on both.
  if (typeof value === 'string' && !DECIMAL_TEXT.test(value)) {
    errors.push('Amount must be a decimal number like 12.34');
    return undefined;
  }
  const decimal = typeof value === 'number' || typeof value === 'string' ? toDecimalString(value) : undefined;
  if (decimal === undefined) {
    errors.push(unreadableAmountProblem(value));
    return undefined;
  }
  const problem = /^[A-Z]{3}$/.test(currency) ? amountProblem(decimal, currency) : undefined;
  if (problem) errors.push(problem);
  const nature =
    raw.nature === undefined || raw.nature === null ? undefined : String(raw.nature).toLowerCase();
  if (nature === undefined) return decimal;
  if (!isNature(nature)) {
    errors.push('Nature must be one of income, inflow, expense, outflow');
    return undefined;
  }
  return storedFromWrite(decimal, nature);
}

async function render(store: AppStore, userId: string, id: string): Promise<unknown> {
  const row = await store.getTransaction(userId, id);
  if (!row) throw notFound();
  return (await renderTransactions(store, [row]))[0];
}

/** `DELETE /api/v1/transactions/{id}`. */
export async function deleteTransaction(
  store: AppStore,
  userId: string,
  id: string,
  options: WriteOptions = {},
) {
  if (!isRecordId(id)) throw notFound();
  id = storedIdOf(id);
  if (!(await store.getTransaction(userId, id))) throw notFound();
  await store.atomically(async (unit) => {
    const row = await unit.lockTransaction(userId, id);
    if (!row) throw notFound();
    // A synced row stays as a tombstone the feed keeps following; one created here just goes.
    const createdHere = await unit.findFeedTransaction(row.account_id, `${API_KEY_PREFIX}${row.id}`);
    if (createdHere) {
      await unit.removeTransaction(row.id);
      await unit.uncountCreatedTransaction(userId);
    } else await unit.setDeleted(row.id, new Date().toISOString());
  }, options);
  return { message: 'Transaction deleted successfully' };
}

/** `POST /api/v1/transactions/{id}/restore` (a finsync extension): a deleted transaction comes back. */
export async function restoreTransaction(
  store: AppStore,
  userId: string,
  id: string,
  options: WriteOptions = {},
) {
  if (!isRecordId(id)) throw notFound();
  id = storedIdOf(id);
  await store.atomically(async (unit) => {
    const row = await unit.lockTransaction(userId, id, { deleted: true });
    if (!row) throw notFound();
    // A deleted row no longer holds its key, so a create may have given it to a new row since: restored
    // beside that one, one bank transaction would be shown twice, where the service finds an entry by
    // (account, external_id, source) and can never hold two.
    if (row.external_id !== '') {
      const holder = await unit.findByExternalId(row.account_id, row.source, row.external_id);
      if (holder && holder.id !== row.id)
        throw new ApiProblem(
          409,
          'conflict',
          `Transaction ${holder.id} has this transaction's external_id and source; delete it first`,
          [`External ID has already been taken by transaction ${holder.id}`],
        );
    }
    await unit.setDeleted(row.id, null);
    await unit.updateTransaction(row.id, { updated_at: new Date().toISOString() });
  }, options);
  return render(store, userId, id);
}

/** `GET /api/v1/transactions/deleted` (a finsync extension): the deleted ones, last deleted first. */
export async function listDeletedTransactions(
  store: AppStore,
  userId: string,
  params: { page?: number | undefined; per_page?: number | undefined },
) {
  const { page, perPage } = servicePage(params);
  const { rows, pagination } = await pageAsTheService(page, perPage, (window) =>
    store.findDeletedTransactions(userId, window),
  );
  return { transactions: await renderTransactions(store, rows), pagination };
}
