/**
 * The fast path for a transaction list: rows of the documented shape — the current docs' keys, a
 * JSON-number (or decimal string) amount, a `YYYY-MM-DD` date, a boolean `isPending` or none — are
 * read by hand, which is several times quicker than the full schema. Keys the schema does not read either (a member the provider
 * adds) are passed over, as the schema drops them. Every other row is read by the row schema, one row at
 * a time (`readTransactionRows`), so it gets the same lenient reading; a list with a row the schema
 * refuses is read again by the full list schema, which words the error as it always has.
 */
import { isValidCalendarDate } from '@finsync/internals/calendar';
import { numberHasDecimal, toDecimalString } from '@finsync/internals/money';
import { isStorableText } from '@finsync/internals/text';
import { TRANSACTION_WIRE_KEYS, type createTransactionSchema, type Transaction } from './schemas.js';
import { remadeRow, TransactionRow } from './transaction-row.js';

/** The keys of a documented row. */
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
/**
 * The other keys the schema reads (older names: `transaction_id`, `merchant_name`, `pending`, …): a
 * row holding one goes to the schema, which decides between the names.
 */
const OTHER_NAMES = new Set<string>(
  TRANSACTION_WIRE_KEYS.filter((key) => !(DOCUMENTED_FIELDS as readonly string[]).includes(key)),
);
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
  return isText(value);
}

/**
 * The row, when it is of the documented shape and the full schema would read it the same way; else
 * undefined. It only checks: a spilled answer needs its rows checked and dated, not built.
 */
function documented(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const wire = raw as Record<string, unknown>;
  for (const key in wire) if (OTHER_NAMES.has(key)) return undefined;
  const { id, accountId, amount, currency, date, isPending } = wire;
  // An amount without a decimal (NaN, Infinity, past the bounds) goes to the schema, which says why;
  // a decimal string (which clients of the provider tolerate) is read by the schema's function.
  if (typeof amount === 'number') {
    if (!numberHasDecimal(amount)) return undefined;
  } else if (typeof amount !== 'string' || toDecimalString(amount) === undefined) return undefined;
  if (typeof date !== 'string') return undefined;
  // Absent on older answers, and on answers without pending rows: not pending, as the schema reads it.
  if (typeof isPending !== 'boolean' && isPending !== undefined && isPending !== null) return undefined;
  // What the full schema refuses as an id: NaN, Infinity, anything but a string or a number.
  if (!isId(id) || !isId(accountId)) return undefined;
  if (
    currency !== undefined &&
    currency !== null &&
    (typeof currency !== 'string' || !CURRENCY.test(currency))
  )
    return undefined;
  if (!isText(wire.merchant) || !isText(wire.description)) return undefined;
  return isDocumentedDate(date) ? wire : undefined;
}

/** A `YYYY-MM-DD` date that is on the calendar, as the schema reads dates. */
export function isDocumentedDate(date: string): boolean {
  if (knownDates.has(date)) return true;
  if (!DATE.test(date) || !isValidCalendarDate(date)) return false;
  if (knownDates.size > 50_000) knownDates.clear();
  knownDates.add(date);
  return true;
}

/**
 * Text the schema reads (trimmed, empty as null): a string, `null` or nothing. A string with a NUL
 * or a lone surrogate goes to the schema, which rewrites it (`storableText`).
 */
function isText(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && isStorableText(value));
}

function row(raw: unknown): Transaction | undefined {
  const wire = documented(raw);
  if (wire === undefined) return undefined;
  const { accountId } = wire;
  return built(
    wire,
    typeof accountId === 'number' ? String(accountId) : typeof accountId === 'string' ? accountId.trim() : '',
  );
}

/** The transaction of a row `documented` has accepted. */
function built(wire: Record<string, unknown>, accountId: string): Transaction {
  const { id, amount, currency, date, isPending } = wire;
  return new TransactionRow(
    text(typeof id === 'number' ? String(id) : id)!,
    accountId,
    toDecimalString(amount)!,
    (currency as string | null | undefined) ?? null,
    date as string,
    text(wire.merchant)!,
    text(wire.description)!,
    isPending === true,
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
 * Each row read by hand when it is of the documented shape, else by `schema` on its own and made
 * again as the fast path's rows are; `documented` when every row was read by hand. `undefined` when
 * the schema refuses any row (the caller reads the list with the full list schema, for its error).
 *
 * One row at a time, not the list through `z.array`: a list with a few unusual rows keeps the fast
 * path for the rest, and the schema's objects for a row are garbage before the next row is read.
 */
export function readTransactionRows(
  raws: readonly unknown[],
  schema: ReturnType<typeof createTransactionSchema>,
): { rows: Transaction[]; documented: boolean } | undefined {
  const rows: Transaction[] = new Array(raws.length);
  let documented = true;
  for (let i = 0; i < raws.length; i += 1) {
    let read = row(raws[i]);
    if (read === undefined) {
      const result = schema.safeParse(raws[i]);
      if (!result.success) return undefined;
      read = remadeRow(result.data);
      documented = false;
    }
    rows[i] = read;
  }
  return { rows, documented };
}

/**
 * Rows `readDocumentedDates` has accepted already, built without checking them again, all with
 * `accountId` (the client's, from the request). For a spilled answer's rows read back from its file:
 * what was written there is each row's text exactly as it was checked.
 */
export function buildCheckedRows(raws: readonly unknown[], accountId: string): Transaction[] {
  const rows: Transaction[] = new Array(raws.length);
  for (let i = 0; i < raws.length; i += 1) rows[i] = built(raws[i] as Record<string, unknown>, accountId);
  return rows;
}

/** The object around a list, when it is the documented one: the rows still to read, `total`, `count`. */
function documentedEnvelope(
  body: unknown,
): { transactions: unknown[]; total?: number; count?: number } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { transactions, total, count } = body as Record<string, unknown>;
  if (!Array.isArray(transactions)) return undefined;
  // `null` is read as not sent, as the schema reads it.
  if (total != null && typeof total !== 'number') return undefined;
  if (count != null && typeof count !== 'number') return undefined;
  return {
    transactions,
    ...(total == null ? {} : { total }),
    ...(count == null ? {} : { count }),
  };
}

/**
 * `{ transactions, total }` read by hand when every row is of the documented shape, else
 * `undefined` (the caller uses the full schema).
 */
export function readDocumentedTransactionList(
  body: unknown,
): { transactions: Transaction[]; total?: number; count?: number } | undefined {
  const envelope = documentedEnvelope(body);
  if (!envelope) return undefined;
  const rows: Transaction[] = new Array(envelope.transactions.length);
  for (let i = 0; i < rows.length; i += 1) {
    const read = row(envelope.transactions[i]);
    if (read === undefined) return undefined;
    rows[i] = read;
  }
  return { ...envelope, transactions: rows };
}

/**
 * `{ transactions, total }` read row by row (`readTransactionRows`) when the object around the list
 * is the documented one, else `undefined` (the caller uses the full list schema, which reads it or
 * words the error).
 */
export function readTransactionList(
  body: unknown,
  schema: ReturnType<typeof createTransactionSchema>,
): { transactions: Transaction[]; total?: number; count?: number } | undefined {
  const envelope = documentedEnvelope(body);
  const read = envelope && readTransactionRows(envelope.transactions, schema);
  return read ? { ...envelope, transactions: read.rows } : undefined;
}
