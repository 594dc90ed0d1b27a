/**
 * PATCH/PUT /api/v1/transactions/{id} with the service's exact semantics (service-api.md §2),
 * quirks included: it is a test double for the real thing, not a better server.
 */
import { MAX_ABS_UNITS, rubyToF, toUnits, unitsToDecimal } from './money.js';
import { renderTransaction } from './render.js';
import type { FakeServiceStore, FakeTransaction } from './store.js';

export interface FakeResult {
  status: number;
  body: unknown;
}

export const INTERNAL_ERROR: FakeResult = {
  status: 500,
  body: { error: 'internal_server_error', message: 'An unexpected error occurred' },
};

/** Columns of the Transaction model: the only keys Rails' JSON params wrapper moves under `transaction`. */
const TRANSACTION_COLUMNS = [
  'id',
  'category_id',
  'merchant_id',
  'kind',
  'extra',
  'locked_attributes',
  'created_at',
  'updated_at',
];

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Ruby's `blank?`: nil, false, whitespace-only strings, empty arrays and hashes. */
export function isBlank(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.keys(value).length === 0;
  return false;
}

/** The uuid column's cast: braces and missing dashes allowed, anything else is nil. */
export function castUuid(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^(\{)?((?:[0-9a-f]{4}-?){8})(\})?$/i.exec(value);
  if (!match || Boolean(match[1]) !== Boolean(match[3])) return null;
  const hex = match[2]!.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A string column's cast of a JSON scalar. */
function castString(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

function validDate(y: number, m: number, d: number): string | null {
  const probe = new Date(Date.UTC(y, m - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The date column's cast: ISO dates (and timestamps), `YYYY/MM/DD`, then a loose parse; else nil. */
export function castDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const iso = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:$|[T ])/.exec(text);
  if (iso) return validDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  if (!/[a-z]/i.test(text)) return null;
  const parsed = new Date(text);
  return Number.isNaN(parsed.getTime())
    ? null
    : validDate(parsed.getFullYear(), parsed.getMonth() + 1, parsed.getDate());
}

/** `params.require(:transaction)`, with JSON params wrapping; `undefined` → the service's 500. */
function transactionParams(body: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(body)) return undefined;
  if ('transaction' in body) {
    const member = body.transaction;
    return isPlainObject(member) && !isBlank(member) ? member : undefined;
  }
  const wrapped = Object.fromEntries(
    Object.entries(body).filter(([key]) => TRANSACTION_COLUMNS.includes(key)),
  );
  return isBlank(wrapped) ? undefined : wrapped;
}

function validationFailed(message: string, errors?: string[]): FakeResult {
  return {
    status: 422,
    body: errors ? { error: 'validation_failed', message, errors } : { error: 'validation_failed', message },
  };
}

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
    if (rawAmount === true) return INTERNAL_ERROR; // true.to_f raises NoMethodError
    let value = typeof rawAmount === 'number' ? rawAmount : rubyToF(String(rawAmount));
    const nature = scalar('nature');
    const kind = nature === null || nature === undefined ? '' : String(nature).toLowerCase();
    if (kind === 'income' || kind === 'inflow') value = -Math.abs(value);
    else if (kind === 'expense' || kind === 'outflow') value = Math.abs(value);
    const units = toUnits(value);
    if (units === undefined || (units < 0n ? -units : units) >= MAX_ABS_UNITS) return INTERNAL_ERROR;
    amount = unitsToDecimal(units);
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
    const today = store.today();
    const minimum =
      validDate(Number(today.slice(0, 4)) - 30, Number(today.slice(5, 7)), Number(today.slice(8, 10))) ??
      `${Number(today.slice(0, 4)) - 30}-02-28`;
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

  // Everything checked: write, and lock what changed (service-api.md §5).
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
    // Quirk: with non-empty tag_ids in the same PATCH, the extra save resets saved_changes first.
    if (!tagsLocked) locks.add(member);
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
