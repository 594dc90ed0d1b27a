/**
 * The fake's paged lists: the index (`GET /api/v1/transactions`, filters and the `pagination`
 * envelope, service-api.md §0, §6 cases 1–9) and finsync's deleted list (`GET …/transactions/deleted`,
 * served by the reference server, not by Sure), which pages the same way.
 */
import { castDate } from './cast.js';
import { renderTransaction } from './render.js';
import type { FakeApiKey, FakeServiceStore, FakeTransaction } from './store.js';
import type { FakeResult } from './cast.js';

/** Ruby's `to_i`: the leading integer, else 0. */
function toI(value: string | null): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isNaN(parsed) ? 0 : parsed;
}

/** One page of `rows` as `{ transactions, pagination }`: `page` ≥ 1, `per_page` 1–100 or else 25. */
function paginate(store: FakeServiceStore, rows: FakeTransaction[], url: URL, locale: string): FakeResult {
  const page = Math.max(1, toI(url.searchParams.get('page')));
  const perPageAsked = toI(url.searchParams.get('per_page'));
  const perPage = perPageAsked >= 1 && perPageAsked <= 100 ? perPageAsked : 25;
  const slice = rows.slice((page - 1) * perPage, page * perPage);
  return {
    status: 200,
    body: {
      transactions: slice.map((tx) => renderTransaction(store, tx, locale)),
      pagination: {
        page,
        per_page: perPage,
        total_count: rows.length,
        total_pages: Math.max(1, Math.ceil(rows.length / perPage)),
      },
    },
  };
}

export function listTransactions(
  store: FakeServiceStore,
  key: FakeApiKey,
  url: URL,
  locale: string,
): FakeResult {
  const query = url.searchParams;
  const accountId = query.get('account_id');
  const categoryId = query.get('category_id');
  const merchantId = query.get('merchant_id');
  // Unparseable dates are ignored rather than guessed at.
  const start = castDate(query.get('start_date') ?? '');
  const end = castDate(query.get('end_date') ?? '');
  const search = query.get('search')?.toLowerCase();
  const tagIds = [...query.getAll('tag_ids[]'), ...query.getAll('tag_ids')].filter((id) => id !== '');

  const rows = [...store.transactions.values()].filter((tx) => {
    const account = store.accounts.get(tx.account_id);
    if (!account || account.status === 'pending_deletion') return false;
    if (!store.canAccess(key, tx.account_id)) return false;
    if (accountId && tx.account_id !== accountId) return false;
    if (categoryId && tx.category_id !== categoryId) return false;
    if (merchantId && tx.merchant_id !== merchantId) return false;
    if (start && tx.date < start) return false;
    if (end && tx.date > end) return false;
    if (search && !tx.name.toLowerCase().includes(search)) return false;
    if (tagIds.length > 0 && !tx.tag_ids.some((id) => tagIds.includes(id))) return false;
    return true;
  });
  rows.sort(
    (a, b) =>
      b.date.localeCompare(a.date) || b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
  );
  return paginate(store, rows, url, locale);
}

/** The caller's deleted transactions, most recently deleted first (finsync extension). */
export function listDeletedTransactions(
  store: FakeServiceStore,
  key: FakeApiKey,
  url: URL,
  locale: string,
): FakeResult {
  const rows = [...store.deletedTransactions.values()]
    .filter((tx) => store.canAccess(key, tx.account_id))
    .reverse();
  return paginate(store, rows, url, locale);
}
