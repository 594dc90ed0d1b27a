/**
 * Reading and editing transactions with the service's semantics (the README's PATCH section), except where
 * the real service answers a client mistake with 500 or silently coerces: here those get 400/422 with
 * a clear message, and nothing changes.
 */
import { toDecimalString } from '@finsync/provider';
import { isoNow } from './clock.js';
import { TransactionUpdateMembers } from './http/schemas.js';
import {
  amountProblem,
  isBlank,
  isCalendarDate,
  isRecordId,
  storedIdOf,
  unreadableAmountProblem,
} from './input.js';
import { pageAsTheService, servicePage } from './pages.js';
import { ApiProblem, notFound } from './problem.js';
import { renderRows, renderSteps, renderTransactions, type RenderedTransaction } from './render.js';
import { storedFromWrite, type Nature } from './sign-convention.js';
import { runSteps, step, type Awaitable, type Steps } from './store/steps.js';
import type {
  AppStore,
  CommitDeadline,
  RelatedReads,
  TransactionRow,
  TransactionUpdate,
  UnitOfWork,
} from './store/types.js';

export { ApiProblem, notFound } from './problem.js';

const MEMBERS = [
  'date',
  'amount',
  'name',
  'description',
  'notes',
  'category_id',
  'merchant_id',
  'nature',
  'tag_ids',
] as const;
/**
 * The members, to walk a body's own keys against: reading each member from the body in turn was a
 * megamorphic load apiece (the same pattern cost a PATCH 12–18k instructions in the store's update).
 */
const MEMBER_NAMES: ReadonlySet<string> = new Set(MEMBERS);

export async function findRow(store: AppStore, userId: string, id: string) {
  return isRecordId(id) ? store.getTransaction(userId, storedIdOf(id)) : undefined;
}

export async function getTransaction(store: AppStore, userId: string, id: string): Promise<unknown> {
  const row = await findRow(store, userId, id);
  if (!row) throw notFound();
  return (await renderTransactions(store, [row]))[0];
}

export interface TransactionListInput {
  page?: number | undefined;
  per_page?: number | undefined;
  account_id?: string | undefined;
  account_ids?: string[] | undefined;
  category_id?: string | undefined;
  category_ids?: string[] | undefined;
  merchant_id?: string | undefined;
  merchant_ids?: string[] | undefined;
  tag_ids?: string[] | undefined;
  start_date?: string | undefined;
  end_date?: string | undefined;
  min_amount?: string | undefined;
  max_amount?: string | undefined;
  type?: 'income' | 'expense' | undefined;
  search?: string | undefined;
}

export async function listTransactions(
  store: AppStore,
  userId: string,
  params: TransactionListInput,
  options: { deadline?: CommitDeadline | undefined } = {},
) {
  const { page, perPage } = servicePage(params);
  for (const name of ['start_date', 'end_date'] as const) {
    const value = params[name];
    if (value !== undefined && !isCalendarDate(value))
      throw new ApiProblem(400, 'bad_request', `${name} must be a date (YYYY-MM-DD)`, [
        `${name} must be a date (YYYY-MM-DD)`,
      ]);
  }
  // As the service, which applies `account_id` and `account_ids[]` one after the other: a row must
  // match both, so the single id narrows the list (to nothing when the list does not hold it).
  const both = (one: string | undefined, many: string[] | undefined) => {
    const list = many && [...new Set(many.map(storedIdOf))];
    if (one === undefined) return list;
    const single = storedIdOf(one);
    return list === undefined || list.includes(single) ? [single] : [];
  };
  const { rows, pagination } = await pageAsTheService(page, perPage, (window) =>
    store.findTransactions(
      userId,
      {
        account_ids: both(params.account_id, params.account_ids),
        category_ids: both(params.category_id, params.category_ids),
        merchant_ids: both(params.merchant_id, params.merchant_ids),
        start_date: params.start_date,
        end_date: params.end_date,
        min_amount: params.min_amount === undefined ? undefined : toDecimalString(params.min_amount),
        max_amount: params.max_amount === undefined ? undefined : toDecimalString(params.max_amount),
        type: params.type,
        search: params.search,
        tag_ids: params.tag_ids?.map(storedIdOf),
      },
      window,
      options,
    ),
  );
  return { transactions: await renderTransactions(store, rows), pagination };
}

/** Reads `{ "transaction": { … } }` into the members to apply, or throws the 400/422 that says why. */
function readUpdate(body: unknown) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiProblem(400, 'bad_request', 'The request body must be a JSON object {"transaction": {…}}');
  }
  const member = (body as Record<string, unknown>).transaction;
  if (
    member === null ||
    typeof member !== 'object' ||
    Array.isArray(member) ||
    Object.keys(member).length === 0
  ) {
    throw new ApiProblem(400, 'bad_request', 'Required parameter "transaction" is missing or empty');
  }
  const raw = member as Record<string, unknown>;
  // As the service: `description` names the transaction only when `name` is not sent.
  const named = raw.name !== undefined && raw.name !== null;
  // As in the service: unknown members are ignored, and `null` leaves a member unchanged — except
  // `tag_ids: null`, which clears the tags. A blank category or merchant id is also "unchanged".
  const input: Record<string, unknown> = {};
  for (const name in raw) {
    if (!MEMBER_NAMES.has(name)) continue;
    const value = raw[name];
    if (value === undefined || (name === 'description' && named)) continue;
    if (value === null) {
      if (name === 'tag_ids') input.tag_ids = [];
      continue;
    }
    // Blank (Ruby's `blank?`: empty or only white space) is "not sent" for these, as in the service.
    if ((name === 'category_id' || name === 'merchant_id' || name === 'amount') && isBlank(value)) continue;
    input[name] = value;
  }
  const parsed = TransactionUpdateMembers.safeParse(input);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) =>
      issue.code === 'invalid_type'
        ? `${String(issue.path[0] ?? 'transaction')} has the wrong type (${issue.message})`
        : issue.message,
    );
    throw new ApiProblem(422, 'validation_failed', 'Transaction could not be updated', errors);
  }
  return parsed.data;
}

type EditableField = 'date' | 'amount' | 'name' | 'notes' | 'category_id' | 'merchant_id';

/**
 * Thrown by `updateTransaction` when the key named by `keyId` is no longer live or may not write.
 * Nothing has been written; the caller answers as for any refused key.
 */
export class KeyNoLongerLive extends Error {
  constructor() {
    super('the API key is no longer live');
    this.name = 'KeyNoLongerLive';
  }
}

/**
 * Applies a PATCH. Every check runs before anything is written; then one unit of work re-reads the row
 * under a lock, writes the fields that changed, locks them against the feed, and replaces the tags.
 * It asks for a grouped unit of work unless told `group: false`: on SQLite the PATCHes of one turn of
 * the event loop share one commit, each still all-or-nothing on its own (store/sqlite-group-commit.ts),
 * and the answer comes after that commit.
 *
 * With `keyId`, the unit of work first checks that this key is still live with the write scope, and
 * throws `KeyNoLongerLive` when it is not: for a caller that accepted the key earlier, this is the
 * key lookup done inside the write's own database transaction, where it costs least and sees a
 * revocation committed by any process before the write.
 */
export function updateTransaction(
  store: AppStore,
  userId: string,
  id: string,
  body: unknown,
  today: string,
  options: {
    keyId?: string | undefined;
    deadline?: CommitDeadline | undefined;
    /** `false` commits at once, alone: for a caller that knows no other PATCH is arriving beside it. */
    group?: boolean;
  } = {},
): Awaitable<RenderedTransaction> {
  if (!isRecordId(id)) throw notFound();
  const storedId = storedIdOf(id);
  // One unit of work (one database transaction) from the lock to the rendered answer: the checks judge the row they change, the
  // answer is what commits, and on SQLite the reads share the write's lock instead of each taking one.
  return store.atomically(
    (unit) => runSteps(updateSteps(unit, userId, storedId, body, today, options.keyId)),
    {
      group: options.group ?? true,
      deadline: options.deadline,
    },
  );
}

function* updateSteps(
  unit: UnitOfWork,
  userId: string,
  id: string,
  body: unknown,
  today: string,
  keyId: string | undefined,
): Steps<RenderedTransaction> {
  const { keyScope, row, related } = yield* step(unit.lockForUpdate(userId, id, keyId));
  if (keyId !== undefined && keyScope !== 'read_write') throw new KeyNoLongerLive();
  if (!row) throw notFound();
  const { changes, tagIds } = yield* checkUpdate(unit, userId, row.currency, readUpdate(body), today);
  const locked = new Set(row.locked);
  const write: TransactionUpdate = {};
  for (const [field, value] of Object.entries(changes) as Array<[EditableField, string]>) {
    if (row[field] === value) continue;
    write[field] = value;
    locked.add(field);
  }
  // As the service: tags sent are locked when the result has any; a list the row has already (the
  // same tags in the same order) is no change, so nothing is written and `updated_at` stays.
  const tagsBefore = related.tags.filter((tag) => tag.transaction_id === id).map((tag) => tag.id);
  const retagged = tagIds !== undefined && !sameList(tagIds, tagsBefore);
  if (retagged) yield* step(unit.replaceTransactionTags(id, tagIds));
  if (tagIds !== undefined && tagIds.length > 0) locked.add('tag_ids');
  let updated: TransactionRow = row;
  if (Object.keys(write).length > 0 || retagged || locked.size > row.locked.length) {
    const updatedAt = isoNow();
    // Not `{ ...write, locked, updated_at }`: an object cloned from `write` got a map of its own on
    // every PATCH, so defining its properties took V8's slow paths each time; built this way it saved
    // about 9,000 of a lone connection's 263,000 instructions a PATCH (docs/benchmarks.md).
    const stored: TransactionUpdate = Object.assign(
      { locked: [...locked].sort(), updated_at: updatedAt },
      write,
    );
    yield* step(unit.updateTransaction(id, stored));
    updated = { ...row, ...write };
    updated.updated_at = updatedAt;
  }
  // The answer refers to what was read with the row, unless this update changed it: then it is read again.
  if (!('category_id' in write || 'merchant_id' in write || retagged))
    return renderRows([updated], related)[0]!;
  return (yield* renderSteps(unit, [updated]))[0]!;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** The update's values as stored, or a 422 listing every problem; references must be the user's. */
function* checkUpdate(
  reads: RelatedReads,
  userId: string,
  currency: string,
  update: ReturnType<typeof readUpdate>,
  today: string,
): Steps<{ changes: Partial<Record<EditableField, string>>; tagIds: string[] | undefined }> {
  const errors: string[] = [];
  const changes: Partial<Record<EditableField, string>> = {};
  if (update.date !== undefined) {
    const minimum = `${Number(today.slice(0, 4)) - 30}${today.slice(4)}`;
    if (update.date <= minimum) errors.push(`Date must be greater than ${minimum}`);
    else changes.date = update.date;
  }
  if (update.amount !== undefined) {
    const decimal = toDecimalString(update.amount);
    const problem = decimal === undefined ? undefined : amountProblem(decimal, currency);
    if (decimal === undefined) errors.push(unreadableAmountProblem(update.amount));
    else if (problem) errors.push(problem);
    // The members' schema has checked `nature` already.
    else changes.amount = storedFromWrite(decimal, update.nature?.toLowerCase() as Nature | undefined);
  }
  const name = update.name ?? update.description;
  if (name !== undefined) changes.name = name.trim();
  if (update.notes !== undefined) changes.notes = update.notes;
  if (update.category_id !== undefined) {
    const categoryId = storedIdOf(update.category_id);
    if (!(yield* step(reads.ownedIds('category', userId, [categoryId]))).size)
      errors.push(`Category ${update.category_id} not found`);
    else changes.category_id = categoryId;
  }
  if (update.merchant_id !== undefined) {
    const merchantId = storedIdOf(update.merchant_id);
    if (!(yield* step(reads.ownedIds('merchant', userId, [merchantId]))).size)
      errors.push(`Merchant ${update.merchant_id} not found`);
    else changes.merchant_id = merchantId;
  }
  const tagIds = update.tag_ids === undefined ? undefined : [...new Set(update.tag_ids.map(storedIdOf))];
  if (tagIds) {
    const owned = yield* step(reads.ownedIds('tag', userId, tagIds));
    for (const tag of tagIds) if (!owned.has(tag)) errors.push(`Tag ${tag} not found`);
  }
  if (errors.length > 0)
    throw new ApiProblem(422, 'validation_failed', 'Transaction could not be updated', errors);
  return { changes, tagIds };
}
