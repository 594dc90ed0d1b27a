/** Automatic pagination over the service's `{ transactions, pagination }` envelope. */
import type { Pagination, Transaction } from './schemas.js';

/** One response of the index endpoint. */
export interface TransactionPage {
  transactions: Transaction[];
  pagination: Pagination;
}

/**
 * The transactions matching a query, fetched lazily page by page. Iterate it for transactions, or
 * `pages()` for one entry per response. Each iteration sends fresh requests.
 */
export interface TransactionList extends AsyncIterable<Transaction> {
  /** Every page from the first asked (`page`, default 1) to `total_pages`, or to the first empty page. */
  pages(): AsyncIterable<TransactionPage>;
  /** Just the first page asked for. */
  firstPage(): Promise<TransactionPage>;
  /** Collects every transaction; refuses (RangeError) to hold more than `limit`, a guard against unbounded memory. */
  toArray(options: { limit: number }): Promise<Transaction[]>;
}

export function createTransactionList(
  fetchPage: (page: number) => Promise<TransactionPage>,
  startPage: number,
): TransactionList {
  async function* pages(): AsyncGenerator<TransactionPage> {
    for (let page = startPage; ; page += 1) {
      const result = await fetchPage(page);
      yield result;
      if (result.transactions.length === 0 || page >= result.pagination.total_pages) return;
    }
  }
  return {
    pages,
    firstPage: () => fetchPage(startPage),
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* page.transactions;
    },
    async toArray({ limit }) {
      if (!Number.isInteger(limit) || limit < 0) {
        throw new RangeError('toArray needs a limit: a non-negative integer');
      }
      const all: Transaction[] = [];
      const refuse = () => new RangeError(`more than ${limit} transactions; iterate instead of collecting`);
      for await (const page of pages()) {
        // The first page's count already tells whether the whole walk would fit.
        if (all.length === 0 && startPage === 1 && page.pagination.total_count > limit) throw refuse();
        if (all.length + page.transactions.length > limit) throw refuse();
        all.push(...page.transactions);
      }
      return all;
    },
  };
}
