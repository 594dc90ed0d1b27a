/**
 * The fake's paged lists: the index (`GET /api/v1/transactions`, filters and the `pagination`
 * envelope of Sure's `index.json.jbuilder`; the filters of `apply_filters`/`apply_search` in Sure's
 * transactions_controller.rb) and finsync's deleted list (`GET …/transactions/deleted`, served by
 * the reference server, not by Sure), which pages the same way.
 */
import { castDate, castUuid, type FakeResult } from './cast.js';
import { rubyToF } from './money.js';
import { renderTransaction } from './render.js';
import type { FakeApiKey, FakeServiceStore, FakeTransaction } from './store.js';

/** Ruby's `to_i`: the leading integer, else 0. */
function toI(value: string | null): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isNaN(parsed) ? 0 : parsed;
}

export interface PageRules {
  /**
   * What a `per_page` above 100 becomes: 25 in the transactions and categories controllers (their own
   * `safe_per_page_param`), 100 in the base controller (accounts).
   */
  above100: 25 | 100;
}

export const SURE_PAGES: PageRules = { above100: 25 };

/**
 * One page of `rows` as `{ [key]: rendered rows, pagination }`; `page` ≥ 1, `per_page` 1–100 else per
 * `rules`. A page past the end is the last page, as Sure's Pagy (`overflow: :last_page`) answers it,
 * and `pagination.page` says which.
 */
export function paginate<T>(
  key: string,
  rows: T[],
  url: URL,
  render: (row: T) => unknown,
  rules: PageRules = SURE_PAGES,
): FakeResult {
  const asked = toI(url.searchParams.get('per_page'));
  const perPage = asked >= 1 && asked <= 100 ? asked : asked > 100 ? rules.above100 : 25;
  const totalPages = Math.max(1, Math.ceil(rows.length / perPage));
  let page = Math.max(1, toI(url.searchParams.get('page')));
  if (page > totalPages) page = totalPages;
  return {
    status: 200,
    body: {
      [key]: rows.slice((page - 1) * perPage, page * perPage).map(render),
      pagination: { page, per_page: perPage, total_count: rows.length, total_pages: totalPages },
    },
  };
}

/**
 * An id filter as Rails reads `params[:name]` / `params[:names]`: absent or blank → no filter (`undefined`);
 * otherwise the set of ids cast like the uuid column — one that is not a UUID casts to nil and
 * matches nothing, so the set may be empty (and then nothing matches).
 */
export function idFilter(query: URLSearchParams, name: string): Set<string> | undefined {
  const values = [...query.getAll(`${name}[]`), ...query.getAll(name)];
  // A scalar must be non-blank to be `present?`; an array is present whenever it has an element.
  if (query.getAll(`${name}[]`).length === 0 && values.every((value) => value.trim() === ''))
    return undefined;
  return new Set(values.map(castUuid).filter((id): id is string => id !== null));
}

/**
 * SQL `ILIKE '%term%'` as Postgres reads it: `%` any run, `_` one character, `\` escapes the next
 * one; case-insensitive. The service does not escape the term, so its wildcards work.
 */
export function ilikeContains(term: string): RegExp {
  const pattern = `%${term}%`;
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i]!;
    if (char === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (char === '%') source += '.*';
    else if (char === '_') source += '.';
    else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`, 'isu');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** `params[:x].present? ? params[:x].to_f : nil`. */
function amountBound(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  return value === null || value.trim() === '' ? undefined : rubyToF(value);
}

export function listTransactions(
  store: FakeServiceStore,
  key: FakeApiKey,
  url: URL,
  locale: string,
): FakeResult {
  const query = url.searchParams;
  // `account_id` and `account_ids` are separate `where`s: a row must pass both (likewise the others).
  const idFilters: Array<[Set<string> | undefined, (tx: FakeTransaction) => string | null]> = [
    [idFilter(query, 'account_id'), (tx) => tx.account_id],
    [idFilter(query, 'account_ids'), (tx) => tx.account_id],
    [idFilter(query, 'category_id'), (tx) => tx.category_id],
    [idFilter(query, 'category_ids'), (tx) => tx.category_id],
    [idFilter(query, 'merchant_id'), (tx) => tx.merchant_id],
    [idFilter(query, 'merchant_ids'), (tx) => tx.merchant_id],
  ];
  const tagIds = idFilter(query, 'tag_ids');
  // Unparseable dates are ignored rather than guessed at (Sure's `Date.parse` raises: a 500).
  const start = castDate(query.get('start_date') ?? '');
  const end = castDate(query.get('end_date') ?? '');
  const min = amountBound(query, 'min_amount');
  const max = amountBound(query, 'max_amount');
  // `type` is compared downcased; any other value is no filter at all.
  const type = query.get('type')?.toLowerCase();
  const search = query.get('search')?.trim() ? ilikeContains(query.get('search')!) : undefined;

  const rows = [...store.transactions.values()].filter((tx) => {
    const account = store.accounts.get(tx.account_id);
    if (!account || account.status === 'pending_deletion') return false;
    if (!store.canAccess(key, tx.account_id)) return false;
    for (const [ids, column] of idFilters) {
      const value = column(tx);
      if (ids && (value === null || !ids.has(value))) return false;
    }
    if (tagIds && !tx.tag_ids.some((id) => tagIds.has(id))) return false;
    if (start && tx.date < start) return false;
    if (end && tx.date > end) return false;
    // Internal sign (positive = expense), the row's own currency, no conversion.
    const amount = Number(tx.amount);
    if (min !== undefined && !(amount >= min)) return false;
    if (max !== undefined && !(amount <= max)) return false;
    if (type === 'income' && !(amount < 0)) return false;
    if (type === 'expense' && !(amount > 0)) return false;
    if (search && !matchesSearch(store, tx, search)) return false;
    return true;
  });
  rows.sort(
    (a, b) =>
      b.date.localeCompare(a.date) || b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
  );
  return paginate('transactions', rows, url, (tx) => renderTransaction(store, tx, locale));
}

/** `entries.name ILIKE ? OR entries.notes ILIKE ? OR merchants.name ILIKE ?`. */
function matchesSearch(store: FakeServiceStore, tx: FakeTransaction, pattern: RegExp): boolean {
  const merchant = tx.merchant_id ? store.merchants.get(tx.merchant_id)?.name : undefined;
  return [tx.name, tx.notes, merchant].some((text) => typeof text === 'string' && pattern.test(text));
}

/** The caller's deleted transactions, most recently deleted first (finsync extension). */
export function listDeletedTransactions(
  store: FakeServiceStore,
  key: FakeApiKey,
  url: URL,
  locale: string,
): FakeResult {
  // As the reference server, which serves it: `page` and `per_page` read as the service reads the
  // index's (page 0 is 1, a per_page outside 1–100 is 25); only what is not a whole number, or a page
  // past 100,000, is a 400. A blank one is not sent.
  for (const name of ['page', 'per_page'] as const) {
    const value = url.searchParams.get(name);
    if (!value?.trim()) continue;
    const problem = !/^\s*[+-]?\d{1,20}$/.test(value)
      ? `${name} must be a whole number`
      : name === 'page' && Number(value) > 100_000
        ? 'page must be an integer from 1 to 100000'
        : undefined;
    if (problem) return { status: 400, body: { error: 'bad_request', message: problem, errors: [problem] } };
  }
  const rows = [...store.deletedTransactions.values()]
    .filter((tx) => store.canAccess(key, tx.account_id))
    .reverse();
  return paginate('transactions', rows, url, (tx) => renderTransaction(store, tx, locale));
}
