import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import {
  InvalidResponseError,
  ProviderClient,
  addDays,
  type ProviderClientOptions,
  type Transaction,
  type TransactionPage,
} from '../src/index.js';
import { BASE, KEY, type WireRow } from './helpers.js';

const server = useMswServer();
const client = (windowDays = 30) => new ProviderClient({ apiKey: KEY, rateLimit: false, windowDays });

/** One row per day from `first` to `last`; every 10th row is pending with a null id. */
function history(first: string, last: string): WireRow[] {
  const rows: WireRow[] = [];
  for (let day = first, n = 0; day <= last; day = addDays(day, 1), n += 1) {
    const pending = n % 10 === 9;
    rows.push({
      id: pending ? null : `tx_${n}`,
      accountId: 4711,
      amount: -(n + 0.25),
      currency: 'GBP',
      date: day,
      merchant: `Shop ${n}`,
      description: `CARD PAYMENT ${n}`,
      isPending: pending,
    });
  }
  return rows;
}

interface Served {
  requests: Array<{ from: string | null; to: string | null; includePending: string | null }>;
}

/**
 * A provider double: answers a window with its rows; with `cap`, sends at most `cap` rows but the
 * true `total`; with `leak`, also returns a row outside the window (as a sloppy server might); with
 * `countsPending`, counts the window's pending rows in `total` even when told to leave them out.
 */
function serve(
  rows: WireRow[],
  {
    cap,
    leak = false,
    countsPending = false,
  }: { cap?: number; leak?: boolean; countsPending?: boolean } = {},
): Served {
  const served: Served = { requests: [] };
  server.use(
    http.get(`${BASE}/accounts/4711/transactions`, ({ request }) => {
      const url = new URL(request.url);
      const from = url.searchParams.get('from');
      const to = url.searchParams.get('to');
      const includePending = url.searchParams.get('include_pending');
      served.requests.push({ from, to, includePending });
      const matching = rows.filter(
        (r) =>
          (!from || r.date >= from) && (!to || r.date <= to) && (includePending === 'true' || !r.isPending),
      );
      const sent = cap === undefined ? matching : matching.slice(0, cap);
      const extra = leak ? [{ ...rows[0]!, id: 'tx_outside', date: '1999-01-01' }] : [];
      const uncounted = countsPending
        ? rows.filter(
            (r) =>
              r.isPending && includePending !== 'true' && (!from || r.date >= from) && (!to || r.date <= to),
          )
        : [];
      return HttpResponse.json({
        transactions: [...sent, ...extra],
        total: matching.length + uncounted.length,
      });
    }),
  );
  return served;
}

/** The pages of a walk from `from` to `to`, pending rows included, by a client with `options`. */
async function windowPages(options: Partial<ProviderClientOptions>, from: string, to: string) {
  const paged = new ProviderClient({ apiKey: KEY, rateLimit: false, ...options });
  const pages: TransactionPage[] = [];
  for await (const page of paged.listTransactions('4711', { from, to, includePending: true }).pages())
    pages.push(page);
  return pages;
}

describe('listTransactions', () => {
  it('walks a range in windows and yields every row once, normalized', async () => {
    const rows = history('2026-01-01', '2026-03-31');
    const served = serve(rows);
    const list = client(30).listTransactions('4711', {
      from: '2026-01-01',
      to: '2026-03-31',
      includePending: true,
    });
    const got: Transaction[] = [];
    for await (const tx of list) got.push(tx);

    expect(served.requests.map((r) => [r.from, r.to])).toEqual([
      ['2026-01-01', '2026-01-30'],
      ['2026-01-31', '2026-03-01'],
      ['2026-03-02', '2026-03-31'],
    ]);
    expect(served.requests.every((r) => r.includePending === 'true')).toBe(true);
    expect(got).toHaveLength(rows.length);
    expect(new Set(got.map((t) => t.date)).size).toBe(rows.length);
    expect(got[0]).toEqual({
      id: 'tx_0',
      accountId: '4711',
      amount: '-0.25',
      currency: 'GBP',
      date: '2026-01-01',
      merchant: 'Shop 0',
      description: 'CARD PAYMENT 0',
      isPending: false,
    });
    expect(got.filter((t) => t.isPending).every((t) => t.id === null)).toBe(true);
  });

  it('hands a window answer of more than `spill.pageRows` rows out in pages of whole weeks tiling the window', async () => {
    const rows = history('2026-01-01', '2026-03-31');
    const served = serve(rows, { leak: true });
    const paged = await windowPages({ windowDays: 45, spill: { pageRows: 10 } }, '2026-01-01', '2026-03-31');
    const whole = await windowPages({ windowDays: 45, spill: false }, '2026-01-01', '2026-03-31');
    // The same two requests either way; one page a window without paging.
    expect(served.requests).toHaveLength(4);
    expect(whole.map((p) => [p.from, p.to])).toEqual([
      ['2026-01-01', '2026-02-14'],
      ['2026-02-15', '2026-03-31'],
    ]);
    // Paged: whole weeks of at most 10 rows (7 a week here), tiling each window, every row once.
    expect(paged.length).toBeGreaterThan(8);
    expect(paged[0]!.from).toBe('2026-01-01');
    expect(paged.at(-1)!.to).toBe('2026-03-31');
    for (let i = 1; i < paged.length; i++) expect(paged[i]!.from).toBe(addDays(paged[i - 1]!.to!, 1));
    for (const page of paged) {
      expect(page.transactions.length).toBeLessThanOrEqual(10);
      expect(page.shortfall).toBe(0);
      for (const t of page.transactions) expect(t.date >= page.from! && t.date <= page.to!).toBe(true);
    }
    const ids = (pages: TransactionPage[]) =>
      pages.flatMap((p) => p.transactions.map((t) => `${t.date} ${t.id}`));
    expect(ids(paged)).toEqual(ids(whole));
    expect(ids(paged)).toHaveLength(rows.length);
  });

  it('splits a window the provider cut short first, then pages its complete halves, every row once', async () => {
    const rows = history('2026-01-01', '2026-01-31');
    serve(rows, { cap: 20 });
    const pages = await windowPages({ windowDays: 31, spill: { pageRows: 5 } }, '2026-01-01', '2026-01-31');
    // Split in halves until each fits (20 rows), then each complete half paged by weeks.
    expect(pages.flatMap((p) => p.transactions)).toHaveLength(rows.length);
    expect(pages.reduce((n, p) => n + p.shortfall, 0)).toBe(0);
    for (const page of pages) expect(page.transactions.length).toBeLessThanOrEqual(7);
  });

  it('leaves pending rows out unless asked, on the client too', async () => {
    const rows = history('2026-01-01', '2026-01-20');
    serve(rows.map((r) => ({ ...r })));
    const posted = await client()
      .listTransactions(4711, { from: '2026-01-01', to: '2026-01-20' })
      .toArray({ limit: 100 });
    expect(posted).toHaveLength(18);
    expect(posted.some((t) => t.isPending)).toBe(false);
  });

  it('drops rows outside the asked window', async () => {
    serve(history('2026-01-01', '2026-01-10'), { leak: true });
    const got = await client()
      .listTransactions(4711, { from: '2026-01-01', to: '2026-01-10' })
      .toArray({ limit: 100 });
    expect(got.map((t) => t.id)).not.toContain('tx_outside');
    expect(got).toHaveLength(9);
  });

  it('asks for the whole history in one request when there is no `from`', async () => {
    const rows = history('2024-01-01', '2026-03-31');
    const served = serve(rows);
    const pages = [];
    for await (const page of client().listTransactions(4711, { includePending: true }).pages())
      pages.push(page);
    expect(served.requests).toEqual([{ from: null, to: null, includePending: 'true' }]);
    expect(pages).toHaveLength(1);
    expect(pages[0]!.transactions).toHaveLength(rows.length);
    expect(pages[0]!.shortfall).toBe(0);
  });

  it('splits a window whose total is larger than the rows sent, down to what the provider can send', async () => {
    const rows = history('2026-01-01', '2026-01-30');
    const served = serve(rows, { cap: 4 });
    const pages = [];
    for await (const page of client(30)
      .listTransactions(4711, { from: '2026-01-01', to: '2026-01-30', includePending: true })
      .pages()) {
      pages.push(page);
    }
    const got = pages.flatMap((p) => p.transactions);
    expect(got).toHaveLength(30);
    expect(new Set(got.map((t) => t.date)).size).toBe(30);
    expect(pages.every((p) => p.shortfall === 0)).toBe(true);
    expect(pages.every((p) => p.transactions.length <= 4)).toBe(true);
    expect(served.requests.length).toBeGreaterThan(pages.length);
  });

  it('reports what is still short when even a single day is cut', async () => {
    const rows = history('2026-01-01', '2026-01-04');
    rows.push({ ...rows[1]!, id: 'tx_same_day_a' }, { ...rows[1]!, id: 'tx_same_day_b' });
    serve(rows, { cap: 1 });
    const warnings: unknown[] = [];
    const list = new ProviderClient({
      apiKey: KEY,
      rateLimit: false,
      logger: { warn: (_m, f) => warnings.push(f) },
    }).listTransactions(4711, { from: '2026-01-01', to: '2026-01-04' });
    const pages = [];
    for await (const page of list.pages()) pages.push(page);
    const short = pages.filter((p) => p.shortfall > 0);
    expect(short).toEqual([
      expect.objectContaining({ from: '2026-01-02', to: '2026-01-02', total: 3, shortfall: 2 }),
    ]);
    expect(warnings).toEqual([expect.objectContaining({ accountId: '4711', missing: 2 })]);
  });

  it('stops splitting a window when its halves find no row its answer lacked', async () => {
    // 90 days with 9 pending rows, which this provider counts in `total` though told to leave them
    // out: every window looks short, and no split can find those rows.
    const rows = history('2026-01-01', '2026-03-31');
    const served = serve(rows, { countsPending: true });
    const pages = [];
    for await (const page of client(90)
      .listTransactions(4711, { from: '2026-01-01', to: '2026-03-31' })
      .pages())
      pages.push(page);
    expect(pages.flatMap((p) => p.transactions)).toHaveLength(81);
    // The window and its two halves, not a request for every day with a pending row and its halves.
    expect(served.requests).toHaveLength(3);
    expect(pages).toEqual([
      expect.objectContaining({ from: '2026-01-01', to: '2026-03-31', total: 90, shortfall: 9 }),
    ]);
  });

  it('keeps splitting a capped window when one half holds nothing, down to where its rows are', async () => {
    // Every row in the first 3 days of a 64-day window: each split leaves one half empty and the
    // other with the same capped answer, until the rows' days are apart.
    const rows = history('2026-01-01', '2026-01-03').flatMap((row, day) =>
      Array.from({ length: 4 }, (_, i) => ({ ...row, id: `tx_${day}_${i}`, isPending: false })),
    );
    serve(rows, { cap: 5 });
    const pages = [];
    for await (const page of client(64)
      .listTransactions(4711, { from: '2026-01-01', to: '2026-03-05' })
      .pages())
      pages.push(page);
    expect(pages.flatMap((p) => p.transactions.map((t) => t.id)).sort()).toEqual(
      rows.map((r) => r.id).sort(),
    );
    expect(pages.reduce((n, p) => n + p.shortfall, 0)).toBe(0);
  });

  it('re-walks an open-ended request the provider cut short, from the first day it left out', async () => {
    const rows = history('2026-01-01', '2026-01-12').map((r) => ({
      ...r,
      isPending: false,
      id: r.id ?? `tx_p_${r.date}`,
    }));
    // Newest first, as some servers answer: the cut keeps the latest rows.
    rows.reverse();
    const served = serve(rows, { cap: 8 });
    const got = await client(4).listTransactions(4711, { to: '2026-01-12' }).toArray({ limit: 100 });
    expect(served.requests[0]).toEqual({ from: null, to: '2026-01-12', includePending: 'false' });
    // It reached back to 2026-01-05; the 4 days before that are asked for with a `from`, and found.
    expect(got.map((t) => t.date).sort()[0]).toBe('2026-01-01');
    expect(got).toHaveLength(12);
    const pages = [];
    served.requests.length = 0;
    for await (const page of client(4).listTransactions(4711, { to: '2026-01-12' }).pages()) pages.push(page);
    expect(pages.reduce((n, p) => n + p.shortfall, 0)).toBe(0);
  });

  it('counts a row missing from a re-walked day once', async () => {
    const rows = history('2026-01-01', '2026-01-12').map((r) => ({
      ...r,
      isPending: false,
      id: `tx_p_${r.date}`,
    }));
    rows.push(...[1, 2, 3].map((i) => ({ ...rows[9]!, id: `tx_p_2026-01-10_${i}` })));
    rows.reverse();
    // The whole answer reaches back to 2026-01-10 only, and that day is cut to 3 of its 4 rows.
    serve(rows, { cap: 3 });
    const pages = [];
    for await (const page of client(4).listTransactions(4711, { to: '2026-01-12' }).pages()) pages.push(page);
    // Every day but one row of 2026-01-10, which even a day alone cannot get whole.
    expect(pages.flatMap((p) => p.transactions)).toHaveLength(14);
    expect(pages.reduce((n, p) => n + p.shortfall, 0)).toBe(1);
  });

  it('validates its arguments before sending anything', () => {
    const c = client();
    expect(() => c.listTransactions(1, { from: '2026-02-30' })).toThrow(RangeError);
    expect(() => c.listTransactions(1, { from: '2026-03-01', to: '2026-02-01' })).toThrow(/after/);
  });

  it('toArray refuses to collect more than its limit', async () => {
    serve(history('2026-01-01', '2026-01-30'));
    await expect(
      client().listTransactions(4711, { from: '2026-01-01', to: '2026-01-30' }).toArray({ limit: 5 }),
    ).rejects.toThrow(RangeError);
  });

  it('names the row and field it cannot read', async () => {
    const rows = history('2026-01-01', '2026-01-03');
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, () =>
        HttpResponse.json({ transactions: [rows[0], { ...rows[1], amount: '1,234.56' }], total: 2 }),
      ),
    );
    const error = (await client()
      .listTransactions(4711, { from: '2026-01-01', to: '2026-01-03' })
      .toArray({ limit: 10 })
      .catch((e: unknown) => e)) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues[0]?.path).toBe('transactions[1].amount');
    expect(error.path).toBe(
      '/accounts/4711/transactions?from=2026-01-01&to=2026-01-03&include_pending=false',
    );
  });

  it('quotes a bad value in its error only in part: a huge one does not make a huge error', async () => {
    const rows = history('2026-01-01', '2026-01-03');
    const huge = '9'.repeat(1_000_000);
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, () =>
        HttpResponse.json({
          transactions: [
            { ...rows[0], amount: `${huge}x` },
            { ...rows[1], date: `${huge}-01-01` },
          ],
          total: 2,
        }),
      ),
    );
    const error = (await client()
      .listTransactions(4711, { from: '2026-01-01', to: '2026-01-03' })
      .toArray({ limit: 10 })
      .catch((e: unknown) => e)) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'transactions[0].amount',
      'transactions[1].date',
    ]);
    expect(error.issues[0]?.message).toMatch(/^expected a decimal number, got "9{10,}/);
    expect(JSON.stringify(error).length).toBeLessThan(2_000);
  });

  it('refuses a date in milliseconds instead of dropping its row as outside the window', async () => {
    const rows = history('2026-01-01', '2026-01-03');
    // 2026-01-02 in milliseconds: read as seconds it was the year 56000-odd, and the row vanished.
    const millis = Date.UTC(2026, 0, 2);
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, () =>
        HttpResponse.json({ transactions: [rows[0], { ...rows[1], date: millis }], total: 2 }),
      ),
    );
    const error = (await client()
      .listTransactions(4711)
      .toArray({ limit: 10 })
      .catch((e: unknown) => e)) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues[0]?.path).toBe('transactions[1].date');
  });

  it('reads a total of null as no total, and keeps every row', async () => {
    const rows = history('2026-01-01', '2026-01-03').map((r) => ({
      ...r,
      isPending: false,
      id: r.id ?? `p_${r.date}`,
    }));
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, () =>
        HttpResponse.json({ transactions: rows, total: null }),
      ),
      http.get(`${BASE}/accounts`, () => HttpResponse.json({ accounts: [], total: null })),
    );
    const got = await client().listTransactions(4711).toArray({ limit: 10 });
    expect(got).toHaveLength(3);
    await expect(client().listAccounts()).resolves.toEqual([]);
  });
});
