/**
 * Pages of a list as the service's Pagy answers them (`overflow: :last_page`): there is always at
 * least one page, and a page past the end is answered with the last one, whose number `pagination.page`
 * then says (a client walking on sees it went past the end). `@finsync/service`'s fake does the same.
 */
import { ApiProblem } from './problem.js';

export interface Pagination {
  page: number;
  per_page: number;
  total_count: number;
  total_pages: number;
}

/**
 * A list's page and page size as the service reads them (`safe_page_param`, `safe_per_page_param`):
 * page 0 is page 1, and a `per_page` outside 1–100 is the default 25. What is not a whole number is a 400.
 */
export function servicePage(params: { page?: number | undefined; per_page?: number | undefined }): {
  page: number;
  perPage: number;
} {
  const { page = 1, per_page: perPage = 25 } = params;
  if (!Number.isSafeInteger(page) || !Number.isSafeInteger(perPage))
    throw new ApiProblem(400, 'bad_request', 'page and per_page must be whole numbers', [
      'page and per_page must be whole numbers',
    ]);
  return { page: Math.max(1, page), perPage: perPage >= 1 && perPage <= 100 ? perPage : 25 };
}

export async function pageAsTheService<Row>(
  page: number,
  perPage: number,
  read: (window: { limit: number; offset: number }) => Promise<{ total: number; rows: Row[] }>,
): Promise<{ rows: Row[]; pagination: Pagination }> {
  const at = (n: number) => read({ limit: perPage, offset: (n - 1) * perPage });
  let shown = page;
  let answer = await at(page);
  const pages = (total: number) => Math.max(1, Math.ceil(total / perPage));
  if (page > pages(answer.total)) {
    shown = pages(answer.total);
    answer = await at(shown);
  }
  return {
    rows: answer.rows,
    pagination: {
      page: shown,
      per_page: perPage,
      total_count: answer.total,
      total_pages: pages(answer.total),
    },
  };
}
