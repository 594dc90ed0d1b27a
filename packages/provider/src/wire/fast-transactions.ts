/**
 * The fast path for a transaction list: rows of exactly the documented shape — the current docs'
 * keys, a JSON-number amount, a `YYYY-MM-DD` date, a boolean `isPending` — are read by hand, which is
 * several times quicker than the full schema. A list holding any other row is read by the full
 * schema instead, so every unusual row gets the same lenient reading and the same errors as before.
 */
import { isValidCalendarDate } from '@finsync/internals/calendar';
import { toDecimalString } from '@finsync/internals/money';
import type { Transaction } from './schemas.js';
import { TransactionRow } from './transaction-row.js';

/** The keys of a documented row; a row with any other key goes to the full schema. */
export const DOCUMENTED_FIELDS = [
  'id',
  'accountId',
  'amount',
  'currency',
  'date',
  'merchant',
  'description',
  'isPending',
] as const;
const DOCUMENTED = new Set<string>(DOCUMENTED_FIELDS);
const CURRENCY = /^[A-Z]{3}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Dates already checked against the calendar: a window holds few distinct ones. */
const knownDates = new Set<string>();

function text(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** An id the full schema reads: a finite number, a string, `null` or nothing. */
function isId(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return value === null || value === undefined || typeof value === 'string';
}

/**
 * The row, when it is of the documented shape and the full schema would read it the same way; else
 * undefined. It only checks: a spilled answer needs its rows checked and dated, not built.
 */
function documented(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const wire = raw as Record<string, unknown>;
  for (const key in wire) if (!DOCUMENTED.has(key)) return undefined;
  const { id, accountId, amount, currency, date, isPending } = wire;
  // A finite amount always has a decimal (toDecimalString); NaN and Infinity go to the schema.
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return undefined;
  if (typeof date !== 'string' || typeof isPending !== 'boolean') return undefined;
  // What the full schema refuses as an id: NaN, Infinity, anything but a string or a number.
  if (!isId(id) || !isId(accountId)) return undefined;
  if (
    currency !== undefined &&
    currency !== null &&
    (typeof currency !== 'string' || !CURRENCY.test(currency))
  )
    return undefined;
  if (!isText(wire.merchant) || !isText(wire.description)) return undefined;
  if (!knownDates.has(date)) {
    if (!DATE.test(date) || !isValidCalendarDate(date)) return undefined;
    if (knownDates.size > 50_000) knownDates.clear();
    knownDates.add(date);
  }
  return wire;
}

/** Text the schema reads (trimmed, empty as null): a string, `null` or nothing. */
function isText(value: unknown): boolean {
  return value === null || value === undefined || typeof value === 'string';
}

function row(raw: unknown): Transaction | undefined {
  const wire = documented(raw);
  if (wire === undefined) return undefined;
  const { id, accountId, amount, currency, date, isPending } = wire;
  return new TransactionRow(
    text(typeof id === 'number' ? String(id) : id)!,
    typeof accountId === 'number' ? String(accountId) : typeof accountId === 'string' ? accountId.trim() : '',
    toDecimalString(amount)!,
    (currency as string | null | undefined) ?? null,
    date as string,
    text(wire.merchant)!,
    text(wire.description)!,
    isPending as boolean,
  );
}

/**
 * The dates of a batch of rows when every one is of the documented shape (the rows it would read),
 * else `undefined` (the caller reads the batch with the full schema). For rows that are only checked
 * now and read later: a whole history going to disk.
 */
export function readDocumentedDates(rows: readonly unknown[]): string[] | undefined {
  const dates: string[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i += 1) {
    const wire = documented(rows[i]);
    if (wire === undefined) return undefined;
    dates[i] = wire['date'] as string;
  }
  return dates;
}

/**
 * `{ transactions, total }` read by hand when every row is of the documented shape, else
 * `undefined` (the caller uses the full schema).
 */
export function readDocumentedTransactionList(
  body: unknown,
): { transactions: Transaction[]; total?: number; count?: number } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { transactions, total, count } = body as Record<string, unknown>;
  if (!Array.isArray(transactions)) return undefined;
  if (total !== undefined && typeof total !== 'number') return undefined;
  if (count !== undefined && typeof count !== 'number') return undefined;
  const rows: Transaction[] = new Array(transactions.length);
  for (let i = 0; i < transactions.length; i += 1) {
    const read = row(transactions[i]);
    if (read === undefined) return undefined;
    rows[i] = read;
  }
  return {
    transactions: rows,
    ...(total === undefined ? {} : { total }),
    ...(count === undefined ? {} : { count }),
  };
}
