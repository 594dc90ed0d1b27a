// client.accounts / categories / merchants / tags .list(): Sure's shapes (served by the fake), the
// smaller shapes of finsync's reference server, and the pagination rules they share.
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AccountSchema,
  InvalidRequestError,
  InvalidResponseError,
  type Account,
  type AccountListParams,
  type CategoryListParams,
} from '../src/index.js';
import { clientFor, seedStore, useFakeService } from './fake-fixture.js';
import { API, settle, TX_ID, wireTransaction } from './helpers.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;

beforeEach(() => {
  world = seedStore();
  fake.use(world.store);
});

const client = () => clientFor();

describe('accounts.list()', () => {
  it('iterates every page of { accounts, pagination }, alphabetically', async () => {
    for (const name of ['Zeta', 'Alpha', 'Mid'])
      world.store.addAccount({ name, account_type: 'loan', balance: '10' });
    const pages = [];
    for await (const page of client().accounts.list({ per_page: 2 }).pages()) pages.push(page);
    expect(pages.map((p) => p.pagination?.page)).toEqual([1, 2, 3]);
    const names = pages.flatMap((p) => p.accounts.map((a) => a.name));
    expect(names).toEqual(['Alpha', 'Euro Card', 'Everyday Checking', 'Mid', 'Zeta']);
  });

  it('reads Sure fields typed: balance strings, cents, classification, status', async () => {
    world.store.addAccount({ name: 'Mortgage', account_type: 'loan', balance: '250000', currency: 'USD' });
    const all: Account[] = await client().accounts.list().toArray({ limit: 50 });
    expect(all.find((a) => a.name === 'Mortgage')).toMatchObject({
      balance: '$250,000.00',
      balance_cents: 25_000_000,
      classification: 'liability',
      account_type: 'loan',
      status: 'active',
    });
  });

  it('include_disabled: true also lists disabled and pending_deletion accounts', async () => {
    const names = async (params: AccountListParams) =>
      (await client().accounts.list(params).toArray({ limit: 50 })).map((a) => a.name);
    expect(await names({})).not.toContain('Old');
    expect(await names({ include_disabled: true })).toContain('Old');
    expect(world.store.requests.at(-1)?.path).toContain('include_disabled=true');
  });

  it('reads the reference server shape: no pagination, `state`, a decimal balance', async () => {
    const urls: string[] = [];
    fake.server.use(
      http.get(`${API}/accounts`, ({ request }) => {
        urls.push(request.url);
        return HttpResponse.json({
          accounts: [
            {
              id: 'a1',
              name: 'Checking',
              account_type: 'depository',
              currency: 'EUR',
              balance: '12.50',
              state: 'active',
            },
          ],
        });
      }),
    );
    const list = client().accounts.list();
    const first = await list.firstPage();
    expect(first.pagination).toBeNull();
    expect(first.accounts[0]).toMatchObject({ balance: '12.50', state: 'active', currency: 'EUR' });
    expect((await list.toArray({ limit: 1 })).map((a) => a.id)).toEqual(['a1']);
    expect(urls).toHaveLength(2); // one per walk: no pagination means everything came at once
    // Everything at once is page 1: a walk resumed from page 2 has nothing left, not page 1 again.
    expect(await client().accounts.list({ page: 2 }).toArray({ limit: 5 })).toEqual([]);
  });

  it.each<[unknown, string]>([
    [{ per_page: 500 }, 'per_page'],
    [{ include_disabled: 'yes' }, 'include_disabled'],
    [{ status: 'disabled' }, 'status'],
  ])('refuses %o before sending', (params, member) => {
    const error = settleSync(() => client().accounts.list(params as AccountListParams));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).member).toBe(member);
  });

  it('a body that is not the format is an InvalidResponseError naming the field', async () => {
    fake.server.use(
      http.get(`${API}/accounts`, () => HttpResponse.json({ accounts: [{ id: 1, name: 'x' }] })),
    );
    const error = (await settle(client().accounts.list().firstPage())) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues[0]?.path).toBe('accounts[0].id');
  });

  it('AccountSchema keeps unknown keys and accepts nulls', () => {
    const parsed = AccountSchema.parse({ id: 'a', name: 'n', subtype: null, balance: 3, extra: true });
    expect(parsed).toMatchObject({ subtype: null, balance: 3, extra: true });
  });
});

describe('categories.list()', () => {
  it('renders parent and subcategory counts; roots_only and parent_id filter', async () => {
    const fruit = world.store.addCategory({ name: 'Fruit', parent_id: world.groceries.id });
    const all = await client().categories.list().toArray({ limit: 50 });
    expect(all.map((c) => c.name)).toEqual(['Dining', 'Fruit', 'Groceries']);
    expect(all.find((c) => c.id === fruit.id)?.parent).toEqual({ id: world.groceries.id, name: 'Groceries' });
    expect(all.find((c) => c.id === world.groceries.id)?.subcategories_count).toBe(1);
    const names = async (params: CategoryListParams) =>
      (await client().categories.list(params).toArray({ limit: 50 })).map((c) => c.name);
    expect(await names({ roots_only: true })).toEqual(['Dining', 'Groceries']);
    expect(await names({ parent_id: world.groceries.id })).toEqual(['Fruit']);
  });

  it('reads { categories } without pagination', async () => {
    fake.server.use(
      http.get(`${API}/categories`, () =>
        HttpResponse.json({ categories: [{ id: 'c', name: 'Food', color: '#407706', icon: 'apple' }] }),
      ),
    );
    expect(await client().categories.list().toArray({ limit: 5 })).toEqual([
      { id: 'c', name: 'Food', color: '#407706', icon: 'apple' },
    ]);
  });

  it('refuses a parent_id that is not a UUID (the service would match nothing)', () => {
    expect(settleSync(() => client().categories.list({ parent_id: 'groceries' }))).toBeInstanceOf(
      InvalidRequestError,
    );
  });
});

describe('merchants.list() and tags.list()', () => {
  it("read Sure's bare arrays", async () => {
    const merchants = await client().merchants.list();
    expect(merchants.map((m) => [m.name, m.type])).toEqual([
      ['Cafe', 'FamilyMerchant'],
      ['Corner Market', 'FamilyMerchant'],
    ]);
    const tags = await client().tags.list();
    expect(tags.map((t) => [t.name, t.color])).toEqual([
      ['Household', '#e99537'],
      ['Travel', '#123456'],
    ]);
    expect(tags[0]?.created_at).toBe('2026-05-10T12:00:00.000Z');
  });

  it('read { merchants } / { tags } envelopes, and follow their pages if a server pages them', async () => {
    const pages: string[] = [];
    fake.server.use(
      http.get(`${API}/merchants`, () => HttpResponse.json({ merchants: [{ id: 'm', name: 'Shop' }] })),
      http.get(`${API}/tags`, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page') ?? '1');
        pages.push(new URL(request.url).search);
        return HttpResponse.json({
          tags: [{ id: `t${page}`, name: `Tag ${page}`, color: '#e99537' }],
          pagination: { page, per_page: 1, total_count: 2, total_pages: 2 },
        });
      }),
    );
    expect(await client().merchants.list()).toEqual([{ id: 'm', name: 'Shop' }]);
    expect((await client().tags.list()).map((t) => t.id)).toEqual(['t1', 't2']);
    expect(pages).toEqual(['', '?page=2']);
  });
});

describe("a page past the end (Sure's Pagy answers the last page again)", () => {
  it('is not yielded twice', async () => {
    fake.server.use(
      http.get(`${API}/transactions`, ({ request }) => {
        const asked = Number(new URL(request.url).searchParams.get('page'));
        // Page 1 said two pages; by the time page 2 is asked, rows vanished and only one is left.
        const total_pages = asked === 1 ? 2 : 1;
        return HttpResponse.json({
          transactions: [wireTransaction({ id: `row-${Math.min(asked, total_pages)}` })],
          pagination: {
            page: Math.min(asked, total_pages),
            per_page: 1,
            total_count: total_pages,
            total_pages,
          },
        });
      }),
    );
    const rows = await client().transactions.list({ per_page: 1 }).toArray({ limit: 10 });
    expect(rows.map((tx) => tx.id)).toEqual(['row-1']);
  });

  it('yields nothing for a walk that starts past the end (resuming from a saved page number)', async () => {
    fake.server.use(
      http.get(`${API}/transactions`, () =>
        HttpResponse.json({
          transactions: [wireTransaction({ id: 'row-2' })],
          pagination: { page: 2, per_page: 1, total_count: 2, total_pages: 2 },
        }),
      ),
    );
    const rows = await client().transactions.list({ per_page: 1, page: 3 }).toArray({ limit: 10 });
    expect(rows).toEqual([]);
  });

  /** Serves `pages` (row ids per page) and a pagination `answer` for each page asked. */
  const servePages = (answer: (asked: number) => { page: number; rows: string[]; total_pages: number }) =>
    fake.server.use(
      http.get(`${API}/:route`, ({ request }) => {
        const url = new URL(request.url);
        const { page, rows, total_pages } = answer(Number(url.searchParams.get('page') ?? '1'));
        const route = url.pathname.split('/').at(-1)!;
        const items =
          route === 'transactions'
            ? rows.map((id) => wireTransaction({ id }))
            : rows.map((id) => ({ id: `0b7e5d1c-0000-4c1e-9a57-${id.padStart(12, '0')}`, name: id }));
        return HttpResponse.json({
          [route]: items,
          pagination: { page, per_page: 1, total_count: total_pages, total_pages },
        });
      }),
    );

  it('an earlier page answered for one the server counts among its pages is an error, not the end', async () => {
    // Page 2 of 3 answered with page 1: ending there would skip rows without a word.
    servePages((asked) => ({ page: 1, rows: ['row-1'], total_pages: 3 }));
    const error = await settle(client().transactions.list({ per_page: 1 }).toArray({ limit: 10 }));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe(
      'inconsistent pagination from GET /api/v1/transactions: page 2 was answered as page 1 of 3',
    );
    expect(await settle(client().merchants.list())).toBeInstanceOf(InvalidResponseError);
  });

  it('a server answering the same rows page after page is an error once three pages bring nothing new', async () => {
    const asked: number[] = [];
    servePages((page) => (asked.push(page), { page, rows: ['row-1'], total_pages: page + 1 }));
    const seen: string[] = [];
    const error = await settle(
      (async () => {
        for await (const tx of client().transactions.list({ per_page: 1 })) seen.push(tx.id);
      })(),
    );
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain('pages 2–4 repeat the rows of the page before them');
    expect(asked).toEqual([1, 2, 3, 4]);
    expect(seen).toEqual(['row-1', 'row-1', 'row-1']);
  });

  it('one page repeating the one before (rows added at the head meanwhile) is walked on', async () => {
    // Between page 1 and page 2 a row arrived at the head: page 2 now holds page 1's row.
    servePages((page) => ({
      page,
      rows: page === 1 ? ['row-a'] : page === 2 ? ['row-a'] : ['row-b'],
      total_pages: 3,
    }));
    const rows = await client().transactions.list({ per_page: 1 }).toArray({ limit: 10 });
    expect(rows.map((tx) => tx.id)).toEqual(['row-a', 'row-a', 'row-b']);
  });
});

function settleSync(call: () => unknown): unknown {
  try {
    return call();
  } catch (error) {
    return error;
  }
}

describe('a body that stops arriving', () => {
  it('fails with a TimeoutError once timeoutMs passes without more of it, instead of hanging', async () => {
    fake.server.use(
      http.get(`${API}/transactions/:id`, () => {
        const stalled = new ReadableStream<Uint8Array>({
          start(controller) {
            // Headers and the first bytes arrive; the rest never does.
            controller.enqueue(new TextEncoder().encode('{"id":"6f1c2a9e'));
          },
        });
        return new HttpResponse(stalled, { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    const started = Date.now();
    const error = await settle(clientFor({ timeoutMs: 200 }).transactions.get(TX_ID));
    expect((error as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
