/**
 * Pages of a list as the service's Pagy answers them (`overflow: :last_page`): there is always at
 * least one page, and a page past the end is answered with the last one, whose number `pagination.page`
 * then says (a client walking on sees it went past the end). `@finsync/service`'s fake does the same.
 */
export interface Pagination {
  page: number;
  per_page: number;
  total_count: number;
  total_pages: number;
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
