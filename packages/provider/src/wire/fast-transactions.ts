/**
 * The fast path for a transaction list: rows of exactly the documented shape — the current docs'
 * keys, a JSON-number amount, a `YYYY-MM-DD` date, a boolean `isPending` — are read by hand, which is
 * several times quicker than the full schema. A list holding any other row is read by the full
 * schema instead, so every unusual row gets the same lenient reading and the same errors as before.
 */
import { isValidCalendarDate } from '@finsync/internals/calendar';
import { toDecimalString } from '@finsync/internals/money';
import type { Transaction } from './schemas.js';

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

/**
 * A documented row, made by `new` and not by an object literal, yet a plain object all the same: its
 * prototype is `Object.prototype`. V8 follows where the objects of each object literal go (its
 * "allocation site"). When a young-generation collection finds all of a site's objects alive, V8
 * allocates that site's later objects straight in the old generation ("pretenuring"). A held answer's
 * rows are all alive while it arrives, so the row literal was pretenured. Every row read back from a
 * spilled answer then went to the old generation, with what it refers to: a 1M-row first sync promoted
 * some 200 MiB instead of 50-90, and its heap peaked some 25 MiB higher (docs/benchmarks.md, eighteenth
 * session; the engine's records and changes are made the same way). Objects made by `new` have no
 * such site.
 */
function documentedRow(
  this: Transaction,
  id: string,
  accountId: string,
  amount: string,
  currency: string | null,
  date: string,
  merchant: string | null,
  description: string | null,
  isPending: boolean,
): void {
  this.id = id;
  this.accountId = accountId;
  this.amount = amount;
  this.currency = currency;
  this.date = date;
  this.merchant = merchant;
  this.description = description;
  this.isPending = isPending;
}
const DocumentedRow = documentedRow as unknown as {
  new (...fields: Parameters<typeof documentedRow>): Transaction;
  prototype: object;
};
DocumentedRow.prototype = Object.prototype;

function row(raw: unknown): Transaction | undefined {
  const wire = documented(raw);
  if (wire === undefined) return undefined;
  const { id, accountId, amount, currency, date, isPending } = wire;
  return new DocumentedRow(
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
