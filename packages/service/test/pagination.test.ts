import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { InvalidRequestError, ServiceClient, type Transaction } from '../src/index.js';
import { API, BASE, KEY, settle, wireTransaction } from './helpers.js';

const server = useMswServer();
const ACC = '0b7e5d1c-1111-4c1e-9a57-2f0e8b1d3c44';
const T1 = 'd1e2f3a4-4444-4c1e-9a57-2f0e8b1d3c44';
const T2 = 'd1e2f3a4-5555-4c1e-9a57-2f0e8b1d3c44';
const client = () => new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });

/** Serves `total` transactions with ids `tx-1`…, `per_page` per page (default 25, as the service). */
function serve(total: number, options: { totalPages?: (perPage: number) => number } = {}) {
  const urls: URL[] = [];
  server.use(
    http.get(`${API}/transactions`, ({ request }) => {
      const url = new URL(request.url);
      urls.push(url);
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Number(url.searchParams.get('per_page') ?? '25');
      const ids = Array.from({ length: total }, (_, i) => `tx-${i + 1}`).slice(
        (page - 1) * perPage,
        page * perPage,
      );
      return HttpResponse.json({
        transactions: ids.map((id) => wireTransaction({ id })),
        pagination: {
          page,
          per_page: perPage,
          total_count: total,
          total_pages: options.totalPages?.(perPage) ?? Math.max(1, Math.ceil(total / perPage)),
        },
      });
    }),
  );
  return urls;
}

async function collect(iterable: AsyncIterable<Transaction>): Promise<string[]> {
  const ids: string[] = [];
  for await (const tx of iterable) ids.push(tx.id);
  return ids;
}

describe('list()', () => {
  it('iterates every transaction across several pages, and stops at total_pages', async () => {
    const urls = serve(12);
    const ids = await collect(client().transactions.list({ per_page: 5 }));
    expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `tx-${i + 1}`));
    expect(urls.map((u) => u.searchParams.get('page'))).toEqual(['1', '2', '3']);
    expect(urls.every((u) => u.searchParams.get('per_page') === '5')).toBe(true);
  });

  it('stops at an empty page even if total_pages says more', async () => {
    const urls = serve(4, { totalPages: () => 99 });
    expect(await collect(client().transactions.list({ per_page: 2 }))).toHaveLength(4);
    expect(urls).toHaveLength(3);
  });

  it('one request when everything fits (total_pages 1, also for no rows)', async () => {
    const urls = serve(0);
    expect(await collect(client().transactions.list())).toEqual([]);
    expect(urls).toHaveLength(1);
  });

  it('pages() yields each envelope; firstPage() fetches one', async () => {
    serve(7);
    const list = client().transactions.list({ per_page: 3, page: 2 });
    const pages = [];
    for await (const page of list.pages()) pages.push(page);
    expect(pages.map((p) => [p.pagination.page, p.transactions.length])).toEqual([
      [2, 3],
      [3, 1],
    ]);
    const first = await list.firstPage();
    expect(first.pagination).toEqual({ page: 2, per_page: 3, total_count: 7, total_pages: 3 });
    expect(first.transactions.map((t) => t.id)).toEqual(['tx-4', 'tx-5', 'tx-6']);
  });

  it('sends filters, Rails-style arrays, and nothing undefined', async () => {
    const urls = serve(1);
    await client()
      .transactions.list({
        account_id: ACC,
        start_date: '2026-01-01',
        end_date: '2026-01-31',
        search: 'Coffee & tea',
        tag_ids: [T1, T2],
        category_id: undefined,
      })
      .firstPage();
    const query = urls[0]!.searchParams;
    expect(query.get('account_id')).toBe(ACC);
    expect(query.get('start_date')).toBe('2026-01-01');
    expect(query.get('end_date')).toBe('2026-01-31');
    expect(query.get('search')).toBe('Coffee & tea');
    expect(query.getAll('tag_ids[]')).toEqual([T1, T2]);
    expect(query.has('category_id')).toBe(false);
    expect(query.get('page')).toBe('1');
  });

  it('each iteration sends fresh requests', async () => {
    const urls = serve(3);
    const list = client().transactions.list();
    await collect(list);
    await collect(list);
    expect(urls).toHaveLength(2);
  });

  it.each([
    [{ per_page: 0 }, 'per_page'],
    [{ per_page: 101 }, 'per_page'],
    [{ per_page: 2.5 }, 'per_page'],
    [{ page: 0 }, 'page'],
    [{ start_date: '2026-13-01' }, 'start_date'],
    [{ end_date: 'today' }, 'end_date'],
    [{ start_date: '2026-02-01', end_date: '2026-01-01' }, 'start_date'],
  ])('refuses %o before sending', (params, member) => {
    const urls = serve(1);
    let error: unknown;
    try {
      client().transactions.list(params);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).member).toBe(member);
    expect(urls).toHaveLength(0);
  });
});

describe('toArray({ limit })', () => {
  it('collects everything within the limit', async () => {
    serve(12);
    const all = await client().transactions.list({ per_page: 5 }).toArray({ limit: 12 });
    expect(all).toHaveLength(12);
  });

  it('refuses more than the limit, from the first page when total_count tells', async () => {
    const urls = serve(12);
    const error = await settle(client().transactions.list({ per_page: 5 }).toArray({ limit: 11 }));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toContain('more than 11');
    expect(urls).toHaveLength(1);
  });

  it('refuses more than the limit when starting mid-way', async () => {
    serve(12);
    const error = await settle(client().transactions.list({ per_page: 5, page: 2 }).toArray({ limit: 6 }));
    expect(error).toBeInstanceOf(RangeError);
  });

  it('needs a limit', async () => {
    serve(1);
    const list = client().transactions.list();
    await expect(list.toArray({ limit: -1 })).rejects.toThrow(RangeError);
    await expect(list.toArray({} as { limit: number })).rejects.toThrow(RangeError);
  });
});
