/**
 * Reading and editing transactions with the service's semantics (see service-api.md §2), except where
 * the real service answers a client mistake with 500 or silently coerces: here those get 400/422 with
 * a clear message, and nothing changes.
 */
import { toDecimalString } from '@finsync/provider';
import { TransactionUpdateSchema, isCalendarDate, type TransactionListParams } from '@finsync/service';
import type { Db } from './db.js';
import type { LockableField } from './feed.js';
import { renderTransactions, type TransactionRow } from './render.js';

export class ApiProblem extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 422 | 500 | 503,
    readonly code: string,
    message: string,
    readonly errors?: string[],
  ) {
    super(message);
  }
}

export const notFound = () => new ApiProblem(404, 'not_found', 'Transaction not found');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COLUMNS =
  'id, account_id, external_id, source, date, amount, currency, name, notes, category_id, merchant_id, created_at, updated_at';
const MEMBERS = [
  'date',
  'amount',
  'name',
  'description',
  'notes',
  'currency',
  'category_id',
  'merchant_id',
  'nature',
  'tag_ids',
] as const;

function findRow(db: Db, userId: string, id: string): (TransactionRow & { locked: string }) | undefined {
  if (!UUID.test(id)) return undefined;
  return db
    .prepare(`SELECT ${COLUMNS}, locked FROM app_transactions WHERE id = ? AND user_id = ?`)
    .get(id, userId) as (TransactionRow & { locked: string }) | undefined;
}

export function getTransaction(db: Db, userId: string, id: string): unknown {
  const row = findRow(db, userId, id);
  if (!row) throw notFound();
  return renderTransactions(db, [row])[0];
}

export function listTransactions(
  db: Db,
  userId: string,
  params: TransactionListParams & { tag_ids?: string[]; category_id?: string },
) {
  const page = params.page ?? 1;
  const perPage = params.per_page ?? 25;
  if (!Number.isInteger(page) || page < 1)
    throw new ApiProblem(400, 'bad_request', 'page must be a positive integer');
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
    throw new ApiProblem(400, 'bad_request', 'per_page must be an integer from 1 to 100');
  }
  for (const name of ['start_date', 'end_date'] as const) {
    const value = params[name];
    if (value !== undefined && !isCalendarDate(value))
      throw new ApiProblem(400, 'bad_request', `${name} must be a date (YYYY-MM-DD)`);
  }
  const where = ['t.user_id = @user'];
  const args: Record<string, unknown> = { user: userId };
  if (params.account_id) (where.push('t.account_id = @account'), (args.account = params.account_id));
  if (params.start_date) (where.push('t.date >= @start'), (args.start = params.start_date));
  if (params.end_date) (where.push('t.date <= @end'), (args.end = params.end_date));
  if (params.category_id) (where.push('t.category_id = @category'), (args.category = params.category_id));
  if (params.search)
    (where.push("t.name LIKE @search ESCAPE '\\'"),
      (args.search = `%${params.search.replace(/[\\%_]/g, '\\$&')}%`));
  if (params.tag_ids && params.tag_ids.length > 0) {
    const names = params.tag_ids.map((_, i) => `@tag${i}`);
    params.tag_ids.forEach((tag, i) => (args[`tag${i}`] = tag));
    where.push(
      `EXISTS (SELECT 1 FROM app_transaction_tags tt WHERE tt.transaction_id = t.id AND tt.tag_id IN (${names.join(',')}))`,
    );
  }
  const filter = where.join(' AND ');
  const total = (
    db.prepare(`SELECT count(*) AS n FROM app_transactions t WHERE ${filter}`).get(args) as { n: number }
  ).n;
  const rows = db
    .prepare(
      `SELECT ${COLUMNS} FROM app_transactions t WHERE ${filter} ORDER BY t.date DESC, t.created_at DESC, t.id LIMIT @limit OFFSET @offset`,
    )
    .all({ ...args, limit: perPage, offset: (page - 1) * perPage }) as TransactionRow[];
  return {
    transactions: renderTransactions(db, rows),
    pagination: { page, per_page: perPage, total_count: total, total_pages: Math.ceil(total / perPage) },
  };
}

function ownedIds(
  db: Db,
  table: 'app_categories' | 'app_merchants' | 'app_tags',
  userId: string,
  ids: string[],
): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = db
    .prepare(`SELECT id FROM ${table} WHERE user_id = ? AND id IN (${ids.map(() => '?').join(',')})`)
    .all(userId, ...ids) as Array<{ id: string }>;
  return new Set(rows.map((r) => r.id));
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
  // As in the service: unknown members are ignored, and `null` leaves a member unchanged — except
  // `tag_ids: null`, which clears the tags. A blank category or merchant id is also "unchanged".
  const input: Record<string, unknown> = {};
  for (const name of MEMBERS) {
    const value = raw[name];
    if (value === undefined) continue;
    if (value === null) {
      if (name === 'tag_ids') input.tag_ids = [];
      continue;
    }
    if ((name === 'category_id' || name === 'merchant_id' || name === 'amount') && value === '') continue;
    input[name] = value;
  }
  const parsed = TransactionUpdateSchema.safeParse(input);
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

/** Applies a PATCH; all checks run before anything is written, and the write is one transaction. */
export function updateTransaction(db: Db, userId: string, id: string, body: unknown, today: string): unknown {
  const row = findRow(db, userId, id);
  if (!row) throw notFound();
  const update = readUpdate(body);

  const errors: string[] = [];
  const changes: Partial<
    Record<'date' | 'amount' | 'name' | 'notes' | 'category_id' | 'merchant_id', string>
  > = {};
  if (update.date !== undefined) {
    const minimum = `${Number(today.slice(0, 4)) - 30}${today.slice(4)}`;
    if (update.date <= minimum) errors.push(`Date must be greater than ${minimum}`);
    else changes.date = update.date;
  }
  if (update.amount !== undefined) {
    const decimal = toDecimalString(update.amount);
    if (decimal === undefined) errors.push('Amount must be a decimal number like 12.34');
    else {
      const nature = update.nature?.toLowerCase();
      const magnitude = decimal.replace(/^-/, '');
      changes.amount =
        nature === 'income' || nature === 'inflow'
          ? magnitude === '0'
            ? '0'
            : `-${magnitude}`
          : nature
            ? magnitude
            : decimal;
    }
  }
  const name = update.name ?? update.description;
  if (name !== undefined) changes.name = name.trim();
  if (update.notes !== undefined) changes.notes = update.notes;
  if (update.category_id !== undefined) {
    if (!ownedIds(db, 'app_categories', userId, [update.category_id]).size)
      errors.push(`Category ${update.category_id} not found`);
    else changes.category_id = update.category_id;
  }
  if (update.merchant_id !== undefined) {
    if (!ownedIds(db, 'app_merchants', userId, [update.merchant_id]).size)
      errors.push(`Merchant ${update.merchant_id} not found`);
    else changes.merchant_id = update.merchant_id;
  }
  const tagIds = update.tag_ids === undefined ? undefined : [...new Set(update.tag_ids)];
  if (tagIds) {
    const owned = ownedIds(db, 'app_tags', userId, tagIds);
    for (const tag of tagIds) if (!owned.has(tag)) errors.push(`Tag ${tag} not found`);
  }
  if (errors.length > 0)
    throw new ApiProblem(422, 'validation_failed', 'Transaction could not be updated', errors);

  db.transaction(() => {
    const locked = new Set(JSON.parse(row.locked) as LockableField[]);
    const assignments: string[] = [];
    for (const [field, value] of Object.entries(changes) as Array<[keyof typeof changes, string]>) {
      if (row[field] === value) continue;
      assignments.push(`${field} = @${field}`);
      locked.add(field);
    }
    if (tagIds) {
      db.prepare('DELETE FROM app_transaction_tags WHERE transaction_id = ?').run(id);
      const insert = db.prepare(
        'INSERT INTO app_transaction_tags (transaction_id, tag_id, position) VALUES (?, ?, ?)',
      );
      tagIds.forEach((tag, position) => insert.run(id, tag, position));
      locked.add('tag_ids');
    }
    if (assignments.length > 0 || tagIds) {
      const values: Record<string, string> = {
        id,
        locked: JSON.stringify([...locked].sort()),
        updated_at: new Date().toISOString(),
      };
      for (const a of assignments) {
        const field = a.split(' ')[0] as keyof typeof changes;
        values[field] = changes[field]!;
      }
      db.prepare(
        `UPDATE app_transactions SET ${[...assignments, 'locked = @locked', 'updated_at = @updated_at'].join(', ')} WHERE id = @id`,
      ).run(values);
    }
  })();
  return getTransaction(db, userId, id);
}
