/**
 * Automatic pagination over the service's paged envelopes: `{ transactions, pagination }`,
 * `{ accounts, pagination }`, `{ categories, pagination }`.
 */
import type { Account, Category } from './resource-schemas.js';
import { PageWalk } from './page-walk.js';
import type { Pagination, Transaction } from './schemas.js';

/**
 * The items of a query, fetched lazily page by page. Iterate it for items, or `pages()` for one
 * entry per response. Each iteration sends fresh requests.
 */
export interface PagedList<Item, Page> extends AsyncIterable<Item> {
  /** Every page from the first asked (`page`, default 1) to `total_pages`, or to the first empty page. */
  pages(): AsyncIterable<Page>;
  /** Just the first page asked for. */
  firstPage(): Promise<Page>;
  /** Collects every item; refuses (RangeError) to hold more than `limit`, a guard against unbounded memory. */
  toArray(options: { limit: number }): Promise<Item[]>;
}

/** One response of the transactions index. */
export interface TransactionPage {
  /** The page's transactions, in the service's order. */
  transactions: Transaction[];
  /** Where the page sits in the index: its number, size and the totals. */
  pagination: Pagination;
}

/** One response of the accounts index; `pagination` is `null` from a server that sends every account at once. */
export interface AccountPage {
  /** The page's accounts. */
  accounts: Account[];
  /** Where the page sits in the index, or `null` when the server sent every account at once. */
  pagination: Pagination | null;
}

/** One response of the categories index; `pagination` is `null` from a server that does not page. */
export interface CategoryPage {
  /** The page's categories. */
  categories: Category[];
  /** Where the page sits in the index, or `null` when the server sent every category at once. */
  pagination: Pagination | null;
}

/**
 * What `transactions.list()` and `listDeleted()` return: every matching transaction, fetched page by
 * page as it is iterated.
 */
export type TransactionList = PagedList<Transaction, TransactionPage>;
/** What `accounts.list()` returns: every account, fetched page by page as it is iterated. */
export type AccountList = PagedList<Account, AccountPage>;
/** What `categories.list()` returns: every category, fetched page by page as it is iterated. */
export type CategoryList = PagedList<Category, CategoryPage>;

/** How the generic walk reads one page: its items, its pagination, and what to call them in errors. */
export interface PageShape<Item, Page> {
  items: (page: Page) => Item[];
  pagination: (page: Page) => Pagination | null;
  /** An item's id: a walk that repeats its rows page after page is refused. */
  id: (item: Item) => string;
  /** Plural noun for messages (`transactions`). */
  noun: string;
  /** The route walked, for errors (`/api/v1/transactions`). */
  path: string;
}

export function createPagedList<Item, Page>(
  fetchPage: (page: number) => Promise<Page>,
  startPage: number,
  shape: PageShape<Item, Page>,
): PagedList<Item, Page> {
  async function* pages(): AsyncGenerator<Page> {
    const walk = new PageWalk(shape.path);
    for (let page = startPage; ; page += 1) {
      const result = await fetchPage(page);
      const pagination = shape.pagination(result);
      // The last page again, for one past the end: its rows were already yielded (rows vanished
      // meanwhile), or, for a walk started past the end, were never asked for.
      if (walk.pastTheEnd(page, pagination)) return;
      // No pagination: the server sent everything at once, which is page 1. A walk started further on
      // has nothing left (finsync's reference server lists accounts whole, whatever `page` says).
      if (!pagination && page > 1) return;
      walk.rows(page, shape.items(result).map(shape.id));
      yield result;
      // No pagination: the server sent everything in one response.
      if (!pagination || shape.items(result).length === 0 || page >= pagination.total_pages) return;
    }
  }
  return {
    pages,
    firstPage: () => fetchPage(startPage),
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* shape.items(page);
    },
    async toArray(options) {
      if (options === null || typeof options !== 'object') {
        throw new TypeError(
          `toArray needs options { limit }, a non-negative integer; got ${options === null ? 'null' : typeof options}`,
        );
      }
      const { limit } = options;
      if (!Number.isInteger(limit) || limit < 0) {
        const got = typeof limit === 'number' ? String(limit) : typeof limit;
        throw new RangeError(`toArray needs a limit: a non-negative integer; got ${got}`);
      }
      const all: Item[] = [];
      const refuse = () => new RangeError(`more than ${limit} ${shape.noun}; iterate instead of collecting`);
      for await (const page of pages()) {
        const items = shape.items(page);
        const total = shape.pagination(page)?.total_count;
        // The first page's count already tells whether the whole walk would fit.
        if (all.length === 0 && startPage === 1 && total !== undefined && total > limit) throw refuse();
        if (all.length + items.length > limit) throw refuse();
        all.push(...items);
      }
      return all;
    },
  };
}

export function createTransactionList(
  fetchPage: (page: number) => Promise<TransactionPage>,
  startPage: number,
  path: string,
): TransactionList {
  return createPagedList(fetchPage, startPage, {
    items: (page) => page.transactions,
    pagination: (page) => page.pagination,
    id: (transaction) => transaction.id,
    noun: 'transactions',
    path,
  });
}
