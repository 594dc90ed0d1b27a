/**
 * POST /api/v1/transactions with the service's semantics (Sure's
 * `TransactionsController#create`), quirks included. One deliberate difference: an unknown account
 * is a 422 here, where the service's catch-all rescue answers 500.
 */
import {
  INTERNAL_ERROR,
  TRANSACTION_COLUMNS,
  castDate,
  castString,
  castUuid,
  isBlank,
  isPlainObject,
  isScalar,
  minSupportedDate,
  signedAmount,
  validationFailed,
  type FakeResult,
  type Scalar,
} from './cast.js';
import { renderTransaction } from './render.js';
import type { FakeApiKey, FakeServiceStore, FakeTransaction } from './store.js';

const ACCOUNT_REQUIRED = validationFailed('Account ID is required', ['Account ID is required']);
const SOURCE_NEEDS_KEY = validationFailed('Source requires external_id', ['Source requires external_id']);
/** The service answers 500 here (RecordNotFound, caught by create's `rescue => e`); the fake says why. */
const UNKNOWN_ACCOUNT = validationFailed('Account not found', ['Account not found']);

/** Ruby's `a || b`: only nil and false fall through. */
const rubyOr = (a: Scalar | undefined, b: Scalar | undefined): Scalar | undefined =>
  a === null || a === undefined || a === false ? b : a;

/** `params[:transaction]`; `undefined` when `params.dig(:transaction, …)` raises (a 500). */
function createParams(body: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(body)) return {}; // no JSON object: nothing under `transaction`
  if (!('transaction' in body)) {
    // JSON params wrapping moves only Transaction columns, so an unwrapped account_id never arrives.
    return Object.fromEntries(Object.entries(body).filter(([key]) => TRANSACTION_COLUMNS.includes(key)));
  }
  const member = body.transaction;
  if (member === null) return {};
  return isPlainObject(member) ? member : undefined; // a string or a list has no #dig
}

/** `idempotency_param_value`: a string or number, `to_s`, unless blank. */
function idempotencyValue(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value);
  return text.trim() === '' ? undefined : text;
}

/**
 * Creates a transaction the way the service does and returns the status and body it would send.
 * With `key`, the account must be one its user can access.
 */
export function applyCreate(
  store: FakeServiceStore,
  body: unknown,
  locale: string,
  key?: FakeApiKey,
): FakeResult {
  const params = createParams(body);
  if (!params) return INTERNAL_ERROR;
  const rawAccount = params.account_id;
  if (isBlank(rawAccount)) return ACCOUNT_REQUIRED;
  const externalId = idempotencyValue(params.external_id);
  const sourceParam = idempotencyValue(params.source);
  if (sourceParam !== undefined && externalId === undefined) return SOURCE_NEEDS_KEY;
  if (!isScalar(rawAccount)) return INTERNAL_ERROR;
  const accountId = castUuid(String(rawAccount));
  const account = accountId === null ? undefined : store.accounts.get(accountId);
  if (!account || (key && !store.canAccess(key, account.id))) return UNKNOWN_ACCOUNT;

  // The idempotency key is (account, external_id, source): a repeat answers 200 with the original row,
  // whatever else it carries.
  const source = externalId === undefined ? undefined : (sourceParam ?? 'api');
  if (externalId !== undefined) {
    const existing = store.findByExternalId(account.id, externalId, source!);
    if (existing) return { status: 200, body: renderTransaction(store, existing, locale) };
  }

  // Strong params: a scalar member holding an array or object is dropped, as if absent.
  const scalar = (name: string): Scalar | undefined => {
    const value = params[name];
    return isScalar(value) ? value : undefined;
  };
  const amount = signedAmount(scalar('amount'), scalar('nature')); // a missing amount is 0.0
  if (amount === undefined) return INTERNAL_ERROR;
  const rawName = rubyOr(scalar('name'), scalar('description'));
  const name = rawName === null || rawName === undefined ? '' : castString(rawName);
  const rawDate = scalar('date');
  const date = rawDate === null || rawDate === undefined ? null : castDate(rawDate);
  const currency = castString(rubyOr(scalar('currency'), store.familyCurrency) ?? store.familyCurrency);
  const rawNotes = scalar('notes');
  const notes = rawNotes === null || rawNotes === undefined ? null : castString(rawNotes);

  // tag_ids are looked up when assigned, before validation: an unknown id is RecordNotFound → 500.
  const rawTags = Array.isArray(params.tag_ids) && params.tag_ids.every(isScalar) ? params.tag_ids : [];
  const tagIds: string[] = [];
  for (const item of rawTags) {
    if (isBlank(item)) continue;
    const id = castUuid(String(item));
    if (id === null || !store.tags.has(id)) return INTERNAL_ERROR;
    if (!tagIds.includes(id)) tagIds.push(id);
  }

  const errors: string[] = [];
  if (date === null) errors.push("Date can't be blank");
  if (name.trim() === '') errors.push("Name can't be blank");
  if (currency.trim() === '') errors.push("Currency can't be blank");
  if (date !== null && date <= minSupportedDate(store)) {
    errors.push(`Date must be greater than ${minSupportedDate(store)}`);
  }
  if (errors.length > 0) return validationFailed('Transaction could not be created', errors);

  // category/merchant: a non-UUID casts to nil; an unknown UUID breaks the foreign key on INSERT (500).
  const refs = { category_id: null as string | null, merchant_id: null as string | null };
  for (const [member, table] of [
    ['category_id', store.categories],
    ['merchant_id', store.merchants],
  ] as const) {
    const value = scalar(member);
    const id = isBlank(value) ? null : castUuid(value);
    if (id !== null && !table.has(id)) return INTERNAL_ERROR;
    refs[member] = id;
  }

  const now = `${store.now().toISOString().slice(0, 19)}Z`;
  const tx: FakeTransaction = {
    id: crypto.randomUUID(),
    account_id: account.id,
    date: date!,
    amount,
    currency,
    name,
    notes,
    external_id: externalId ?? null,
    source: source ?? null,
    ...refs,
    tag_ids: tagIds,
    split: null,
    created_at: now,
    updated_at: now,
    locked_attributes: [],
  };
  // POST locks everything it saved, tag_ids when there are tags.
  const saved = ['name', 'date', 'amount', 'currency', 'notes', 'external_id', 'source'] as const;
  tx.locked_attributes = [
    ...saved.filter((field) => tx[field] !== null),
    ...(['category_id', 'merchant_id'] as const).filter((field) => tx[field] !== null),
    ...(tagIds.length > 0 ? ['tag_ids'] : []),
  ];
  store.transactions.set(tx.id, tx);
  store.createdByApi.add(tx.id);
  return { status: 201, body: renderTransaction(store, tx, locale) };
}
