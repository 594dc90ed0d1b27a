/**
 * PATCH/PUT /api/v1/transactions/{id} with the service's exact semantics (Sure's `TransactionsController#update`; the README's member table),
 * quirks included: it is a test double for the real thing, not a better server.
 */
import {
  INTERNAL_ERROR,
  castDate,
  castString,
  castUuid,
  isBlank,
  isPlainObject,
  isScalar,
  minSupportedDate,
  signedAmount,
  transactionParams,
  validationFailed,
  type FakeResult,
  type Scalar,
} from './cast.js';
import { renderTransaction } from './render.js';
import type { FakeServiceStore, FakeTransaction } from './store.js';

/** Applies an update the way the service does and returns the status and body it would send. */
export function applyUpdate(
  store: FakeServiceStore,
  tx: FakeTransaction,
  body: unknown,
  locale: string,
): FakeResult {
  const raw = isPlainObject(body) && isPlainObject(body.transaction) ? body.transaction : {};
  if (tx.split === 'child') {
    return validationFailed('Split child transactions cannot be edited directly. Use the split editor.');
  }
  if (tx.split === 'parent' && (!isBlank(raw.amount) || !isBlank(raw.date) || !isBlank(raw.nature))) {
    return validationFailed(
      'Split parent amount, date, and type cannot be changed directly. Use the split editor.',
    );
  }
  const params = transactionParams(body);
  if (!params) return INTERNAL_ERROR; // ParameterMissing, caught by update's own `rescue => e`
  // Strong params: a scalar member holding an array or object is dropped, as if absent.
  const scalar = (name: string): Scalar | undefined => {
    const value = params[name];
    return isScalar(value) ? value : undefined;
  };

  // amount (+ nature): applied when present; converted with to_f; the sign comes from nature if given.
  let amount: string | undefined;
  const rawAmount = scalar('amount');
  if (!isBlank(rawAmount)) {
    // true.to_f raises NoMethodError; an amount beyond decimal(19,4) overflows the column.
    amount = signedAmount(rawAmount, scalar('nature'));
    if (amount === undefined) return INTERNAL_ERROR;
  }

  // name, or description when name is null or absent; notes: any string, "" included. null = unchanged.
  const rawName = scalar('name') ?? scalar('description');
  const name = rawName === null || rawName === undefined ? undefined : castString(rawName);
  const rawNotes = scalar('notes');
  const notes = rawNotes === null || rawNotes === undefined ? undefined : castString(rawNotes);
  const rawDate = scalar('date');
  const date = rawDate === null || rawDate === undefined ? undefined : castDate(rawDate);

  const errors: string[] = [];
  if (date === null) errors.push("Date can't be blank");
  else if (date !== undefined) {
    const minimum = minSupportedDate(store);
    if (date <= minimum) errors.push(`Date must be greater than ${minimum}`);
  }
  if (name !== undefined && name.trim() === '') errors.push("Name can't be blank");
  if (errors.length > 0) return validationFailed('Transaction could not be updated', errors);

  // category_id / merchant_id: blank is dropped (cannot clear); a non-UUID casts to nil and CLEARS
  // the column (an accident of the service); an unknown UUID breaks the foreign key (500).
  const refs: Partial<Record<'category_id' | 'merchant_id', string | null>> = {};
  for (const [member, table] of [
    ['category_id', store.categories],
    ['merchant_id', store.merchants],
  ] as const) {
    const value = scalar(member);
    if (isBlank(value)) continue;
    const id = castUuid(value);
    if (id !== null && !table.has(id)) return INTERNAL_ERROR;
    refs[member] = id;
  }

  // tag_ids: key present → replace; [], null, [null] or a non-list → no tags; unknown id → 500.
  let tagIds: string[] | undefined;
  if ('tag_ids' in params) {
    const value = params.tag_ids;
    const list = Array.isArray(value) && value.every(isScalar) ? value : [];
    tagIds = [];
    for (const item of list) {
      if (isBlank(item)) continue;
      const id = castUuid(typeof item === 'string' ? item : String(item));
      if (id === null || !store.tags.has(id)) return INTERNAL_ERROR; // RecordNotFound, rolled back
      if (!tagIds.includes(id)) tagIds.push(id);
    }
  }

  // Everything checked: write, and lock what changed (Sure's `Enrichable#lock_saved_attributes!`).
  const locks = new Set(tx.locked_attributes);
  const entryChanges = { name, date: date ?? undefined, notes, amount };
  for (const [field, value] of Object.entries(entryChanges) as Array<
    [keyof typeof entryChanges, string | undefined]
  >) {
    if (value === undefined || tx[field] === value) continue;
    tx[field] = value;
    locks.add(field);
  }
  let touched = false;
  const tagsLocked = tagIds !== undefined && tagIds.length > 0;
  for (const member of ['category_id', 'merchant_id'] as const) {
    const value = refs[member];
    if (value === undefined || tx[member] === value) continue;
    tx[member] = value;
    touched = true;
    // Quirk: with tag_ids in the same PATCH (`[]` too: the service saves the tags whenever the key is
    // sent), the extra save resets saved_changes first.
    if (tagIds === undefined) locks.add(member);
  }
  if (tagIds !== undefined) {
    tx.tag_ids = tagIds;
    if (tagsLocked) {
      locks.add('tag_ids');
      touched = true;
    }
  }
  tx.locked_attributes = [...locks];
  // The rendered updated_at is the Transaction row's: entry-only edits leave it alone.
  if (touched) tx.updated_at = `${store.now().toISOString().slice(0, 19)}Z`;
  return { status: 200, body: renderTransaction(store, tx, locale) };
}
