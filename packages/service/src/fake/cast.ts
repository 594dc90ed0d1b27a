/**
 * How the service's Rails stack reads request values: Ruby's `blank?`, the column casts (uuid, date,
 * string), `to_f` on amounts with `nature`, JSON params wrapping, and the shared error bodies. Used
 * by the fake's update and create.
 */
import { MAX_ABS_UNITS, rubyToF, toUnits, unitsToDecimal } from './money.js';
import type { FakeServiceStore } from './store.js';

export interface FakeResult {
  status: number;
  body: unknown;
}

export const INTERNAL_ERROR: FakeResult = {
  status: 500,
  body: { error: 'internal_server_error', message: 'An unexpected error occurred' },
};

/** Columns of the Transaction model: the only keys Rails' JSON params wrapper moves under `transaction`. */
export const TRANSACTION_COLUMNS = [
  'id',
  'category_id',
  'merchant_id',
  'kind',
  'extra',
  'locked_attributes',
  'created_at',
  'updated_at',
];

export type Scalar = string | number | boolean | null;
export const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
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
export function castString(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

export function validDate(y: number, m: number, d: number): string | null {
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
export function transactionParams(body: unknown): Record<string, unknown> | undefined {
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

export function validationFailed(message: string, errors?: string[]): FakeResult {
  return {
    status: 422,
    body: errors ? { error: 'validation_failed', message, errors } : { error: 'validation_failed', message },
  };
}

/** `Entry.min_supported_date`: dates on or before (today − 30 years) are refused. */
export function minSupportedDate(store: FakeServiceStore): string {
  const today = store.today();
  const year = Number(today.slice(0, 4)) - 30;
  return validDate(year, Number(today.slice(5, 7)), Number(today.slice(8, 10))) ?? `${year}-02-28`;
}

/**
 * `signed_amount_for(amount, nature)`: `to_f` on the amount (`nil` → 0, `"abc"` → 0, `"1,234.56"` → 1),
 * then `income`/`inflow` → `-|a|`, `expense`/`outflow` → `+|a|`, anything else as sent. The stored
 * decimal, or `undefined` where the service raises (a boolean has no `to_f`; `decimal(19,4)` overflow).
 */
export function signedAmount(amount: Scalar | undefined, nature: Scalar | undefined): string | undefined {
  if (typeof amount === 'boolean') return undefined;
  let value = typeof amount === 'number' ? amount : rubyToF(amount ?? '');
  const kind = nature === null || nature === undefined ? '' : String(nature).toLowerCase();
  if (kind === 'income' || kind === 'inflow') value = -Math.abs(value);
  else if (kind === 'expense' || kind === 'outflow') value = Math.abs(value);
  const units = toUnits(value);
  if (units === undefined || (units < 0n ? -units : units) >= MAX_ABS_UNITS) return undefined;
  return unitsToDecimal(units);
}
