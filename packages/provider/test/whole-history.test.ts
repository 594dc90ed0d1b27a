import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { useMswServer, useTempDirs } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InvalidResponseError,
  ProviderClient,
  addDays,
  type ProviderClientOptions,
  type TransactionPage,
} from '../src/index.js';
import { BASE, KEY, type WireRow } from './helpers.js';

const server = useMswServer();
const tempDir = useTempDirs('spill-test');

/** `perDay` rows a day from `first` to `last`, every 7th pending with a null id, in shuffled order. */
function history(first: string, last: string, perDay = 3): WireRow[] {
  const rows: WireRow[] = [];
  let n = 0;
  for (let day = first; day <= last; day = addDays(day, 1)) {
    for (let k = 0; k < perDay; k++, n++) {
      const pending = n % 7 === 6;
      rows.push({
        id: pending ? null : `tx_${n}`,
        accountId: 4711,
        amount: -(n + 0.5),
        currency: 'GBP',
        date: day,
        merchant: `Shop "${n}" {[,]}`,
        description: `CARD PAYMENT ${n} \u00e9\u20ac`,
        isPending: pending,
      });
    }
  }
  // The provider promises no order; a fixed shuffle keeps the test repeatable.
  let seed = 7;
  for (let i = rows.length - 1; i > 0; i--) {
    seed = (seed * 16807) % 2147483647;
    const j = seed % (i + 1);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

/** Answers every request with `body` (a whole history: the client sends no `from`). */
function serve(body: Record<string, unknown> | ((url: URL) => Response)): string[] {
  const urls: string[] = [];
  server.use(
    http.get(`${BASE}/accounts/4711/transactions`, ({ request }) => {
      const url = new URL(request.url);
      urls.push(`${url.pathname}${url.search}`);
      return typeof body === 'function' ? body(url) : HttpResponse.json(body);
    }),
  );
  return urls;
}

/**
 * Serves `rows` as a provider would for the days asked for, and its whole history (no `from`) as
 * `whole` makes it of all of them: cut to a cap, the newest first, a total counting more.
 */
function serveDays(
  rows: WireRow[],
  whole: (all: WireRow[]) => { transactions: WireRow[]; total: number },
): string[] {
  return serve((url) => {
    const from = url.searchParams.get('from');
    const to = url.searchParams.get('to')!;
    const matching = rows.filter((r) => (!from || r.date >= from) && r.date <= to);
    return HttpResponse.json(from ? { transactions: matching, total: matching.length } : whole(matching));
  });
}

/** A whole history cut to its `count` newest rows. */
const newestOf = (count: number) => (all: WireRow[]) => ({
  transactions: [...all].sort((a, b) => a.date.localeCompare(b.date)).slice(-count),
  total: all.length,
});

/** `body` as JSON sent in chunks of `size` characters, as a long answer arrives over the network. */
function inChunks(body: unknown, size: number): () => Response {
  const text = JSON.stringify(body);
  return () =>
    new Response(
      new ReadableStream({
        start(controller) {
          const bytes = new TextEncoder();
          for (let at = 0; at < text.length; at += size)
            controller.enqueue(bytes.encode(text.slice(at, at + size)));
          controller.close();
        },
      }),
      { headers: { 'content-type': 'application/json' } },
    );
}

async function pagesOf(options: Partial<ProviderClientOptions>, to = '2026-06-30') {
  const client = new ProviderClient({ apiKey: KEY, rateLimit: false, maxRetries: 0, ...options });
  const pages: TransactionPage[] = [];
  for await (const page of client.listTransactions('4711', { to, includePending: true }).pages()) {
    pages.push(page);
  }
  return pages;
}

/** Every row of the pages as its JSON, sorted: what a caller gets, whatever the pages' order. */
const rowsAsJson = (pages: TransactionPage[]) =>
  pages
    .flatMap((p) => p.transactions)
    .map((t) => JSON.stringify(t))
    .sort();

const sortedIds = (pages: TransactionPage[]) =>
  pages
    .flatMap((p) => p.transactions)
    .map((t) => `${t.date} ${t.id} ${t.amount} ${t.merchant}`)
    .sort();

describe('a whole-history answer larger than `spill.afterRows`', () => {
  it('comes back as pages whose windows tile the history, with every row once, as one page would hold them', async () => {
    const rows = history('2026-01-01', '2026-06-30');
    const urls = serve({ transactions: rows, total: rows.length });
    const directory = tempDir();
    const spilled = await pagesOf({ spill: { afterRows: 50, pageRows: 40, directory } });
    const whole = await pagesOf({ spill: false });

    expect(urls).toHaveLength(2); // one request each: spilling asks for nothing more
    expect(whole).toHaveLength(1);
    expect(spilled.length).toBeGreaterThan(5);
    expect(sortedIds(spilled)).toEqual(sortedIds(whole));
    expect(spilled.flatMap((p) => p.transactions)).toHaveLength(rows.length);
    // The windows tile the asked one: open at the start, each the day after the last, ending at `to`.
    expect(spilled[0]!.from).toBeNull();
    expect(spilled.at(-1)!.to).toBe('2026-06-30');
    for (let i = 1; i < spilled.length; i++) {
      expect(spilled[i]!.from).toBe(addDays(spilled[i - 1]!.to!, 1));
    }
    for (const page of spilled) {
      expect(page.shortfall).toBe(0);
      for (const t of page.transactions) {
        if (page.from !== null) expect(t.date >= page.from).toBe(true);
        expect(t.date <= page.to!).toBe(true);
      }
      // Whole weeks make a page, at most pageRows rows: a week here is 21, so one a page.
      expect(page.transactions.length).toBeLessThanOrEqual(40);
    }
    expect(readdirSync(directory)).toEqual([]);
  });

  it('keeps no file of the rows on disk even while it reads them: a process killed then leaves none', async () => {
    const rows = history('2026-01-01', '2026-06-30');
    serve({ transactions: rows, total: rows.length });
    const directory = tempDir();
    const client = new ProviderClient({
      apiKey: KEY,
      rateLimit: false,
      maxRetries: 0,
      spill: { afterRows: 50, pageRows: 40, directory },
    });
    /** The files in the spill's own directories: the one directory while it reads. */
    const files = () => readdirSync(directory).flatMap((spill) => readdirSync(join(directory, spill)));
    const seen: Array<{ directories: number; files: string[] }> = [];
    let read = 0;
    for await (const page of client
      .listTransactions('4711', { to: '2026-06-30', includePending: true })
      .pages()) {
      read += page.transactions.length;
      seen.push({ directories: readdirSync(directory).length, files: files() });
    }
    expect(read).toBe(rows.length);
    expect(seen.length).toBeGreaterThan(5);
    for (const listing of seen) expect(listing).toEqual({ directories: 1, files: [] });
    expect(readdirSync(directory)).toEqual([]);
  });

  it('packs as many whole weeks as fit in `pageRows` into a page; a week holding more is a page alone', async () => {
    const rows = history('2026-01-01', '2026-06-30'); // 21 rows a week
    serve({ transactions: rows, total: rows.length });
    const packed = await pagesOf({ spill: { afterRows: 50, pageRows: 100, directory: tempDir() } });
    expect(packed.flatMap((p) => p.transactions)).toHaveLength(rows.length);
    // Packed from the newest week back: the oldest page is the short one, and every later one is
    // full (the week before it would not have fitted), so the newest page reaches weeks back.
    expect(packed[0]!.transactions.length).toBeLessThanOrEqual(100);
    for (const page of packed.slice(1)) {
      expect(page.transactions.length).toBeLessThanOrEqual(100);
      expect(page.transactions.length + 21).toBeGreaterThan(100);
    }
    const weekly = await pagesOf({ spill: { afterRows: 50, pageRows: 15, directory: tempDir() } });
    const weeks = new Set(rows.map((r) => Math.floor(Date.parse(r.date) / (7 * 86_400_000))));
    expect(weekly).toHaveLength(weeks.size);
    expect(weekly.flatMap((p) => p.transactions)).toHaveLength(rows.length);
  });

  it.each([
    [40, 'spilled', 50],
    [100, 'spilled', 50],
    [40, 'held', 10_000],
  ])(
    'rows dated after the asked window make no page of their own (%i rows a page, %s)',
    async (pageRows, _, afterRows) => {
      const rows = history('2026-01-01', '2026-06-30');
      serve({ transactions: rows, total: rows.length });
      const pages = await pagesOf({ spill: { afterRows, pageRows, directory: tempDir() } }, '2026-03-31');
      expect(pages.at(-1)!.to).toBe('2026-03-31');
      for (let i = 1; i < pages.length; i++) expect(pages[i]!.from).toBe(addDays(pages[i - 1]!.to!, 1));
      for (const page of pages) if (page.from !== null) expect(page.from <= page.to!).toBe(true);
      const kept = pages.flatMap((p) => p.transactions);
      expect(kept).toHaveLength(rows.filter((r) => r.date <= '2026-03-31').length);
    },
  );

  it('a smaller answer is held in memory, writes no file, and comes back in the same pages as a spilled one', async () => {
    const rows = history('2026-01-01', '2026-06-30'); // 21 rows a week
    serve({ transactions: rows, total: rows.length });
    const directory = tempDir();
    const client = new ProviderClient({
      apiKey: KEY,
      rateLimit: false,
      spill: { afterRows: rows.length, pageRows: 100, directory },
    });
    const held: TransactionPage[] = [];
    for await (const page of client
      .listTransactions('4711', { to: '2026-06-30', includePending: true })
      .pages()) {
      // While the pages are handed out: a spilled answer's file would be there now.
      expect(readdirSync(directory)).toEqual([]);
      held.push(page);
    }
    const spilled = await pagesOf({ spill: { afterRows: 50, pageRows: 100, directory: tempDir() } });
    // Not one page diffed whole before the first commit: pages of whole weeks, as a spilled answer's.
    expect(held.length).toBeGreaterThan(5);
    expect(held).toEqual(spilled);
    expect(held.flatMap((p) => p.transactions)).toHaveLength(rows.length);
  });

  it.each([
    [0, 0],
    [5, 5],
  ])(
    'an empty answer is one page, with the rows the provider counted but did not send as its shortfall (total %i)',
    async (total, shortfall) => {
      serve({ transactions: [], total });
      expect(await pagesOf({ spill: { directory: tempDir() } })).toEqual([
        { from: null, to: '2026-06-30', transactions: [], total, shortfall },
      ]);
    },
  );

  it('every row comes back as a body read whole would give it, held or spilled, unusual shapes too', async () => {
    const rows = history('2026-01-01', '2026-03-31').map((row): Record<string, unknown> => ({ ...row }));
    // Shapes off the documented one: each sends its batch through the full schema.
    rows[5] = { ...rows[5], amount: '-12.30' };
    rows[77] = { ...rows[77], isPending: undefined, merchant: '  padded  ' };
    rows[150] = { ...rows[150], date: `${rows[150]!.date as string}T23:30:00Z` };
    // A member no schema reads, as a provider adding a field would send it: dropped, on every path.
    rows[160] = { ...rows[160], category: { name: 'Groceries' } };
    // In chunks: rows after the first 30 go to disk as they arrive, checked and dated only.
    serve(inChunks({ transactions: rows, total: rows.length }, 2_048));
    const whole = rowsAsJson(await pagesOf({ spill: false }));
    expect(whole).toHaveLength(rows.length);
    expect(whole.filter((row) => row.includes('category'))).toEqual([]);
    expect(rowsAsJson(await pagesOf({ spill: { afterRows: rows.length, directory: tempDir() } }))).toEqual(
      whole,
    );
    expect(
      rowsAsJson(await pagesOf({ spill: { afterRows: 30, pageRows: 40, directory: tempDir() } })),
    ).toEqual(whole);
  });

  it("a held answer of rows of several shapes comes back in the provider's order within each page", async () => {
    const rows = history('2026-01-01', '2026-03-31').map((row, n): Record<string, unknown> =>
      // Every 13th row dated with a time, which the schema reads but the fast path's checks do not:
      // its run is kept built while held, the other runs as text, both kinds in every week.
      n % 13 === 0 ? { ...row, date: `${row.date}T08:00:00Z` } : { ...row },
    );
    serve(inChunks({ transactions: rows, total: rows.length }, 1_024));
    const [whole] = await pagesOf({ spill: false });
    const held = await pagesOf({ spill: { afterRows: rows.length, pageRows: 40, directory: tempDir() } });
    expect(held.length).toBeGreaterThan(5);
    // Oldest week first, in the provider's order within a week (a stable sort by week).
    const week = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000 / 7);
    for (const page of held) {
      const inPage = whole!.transactions
        .filter((t) => (page.from === null || t.date >= page.from) && t.date <= page.to!)
        .sort((a, b) => week(a.date) - week(b.date));
      expect(page.transactions).toEqual(inPage);
    }
  });

  it('rows of other shapes that arrive after the answer went to disk come back as a body read whole gives them', async () => {
    // 1,629 rows, ~280k characters: the file is opened once a write's worth of text (256k) waits.
    const rows = history('2026-01-01', '2026-06-30', 9).map((row): Record<string, unknown> => ({ ...row }));
    // Held until the answer passes a write's worth, then handed to the file with the rows before it.
    rows[3] = { ...rows[3], date: `${rows[3]!.date as string}T08:15:00Z` };
    // Past that: these go to disk as they arrive, beside documented rows of the same weeks.
    rows[1550] = { ...rows[1550], date: `${rows[1550]!.date as string}T23:30:00Z` };
    rows[1560] = { ...rows[1560], pending: true, isPending: undefined };
    rows[1570] = { ...rows[1570], amount: '-7.10', merchant_name: 'Older name' };
    const text = JSON.stringify({ transactions: rows, total: rows.length });
    // A chunk at a time, each in a later turn, so the client reads the answer in many runs.
    serve(() => {
      let at = 0;
      return new Response(
        new ReadableStream({
          async pull(controller) {
            await new Promise((resolve) => setTimeout(resolve, 0));
            if (at >= text.length) return controller.close();
            controller.enqueue(new TextEncoder().encode(text.slice(at, (at += 1_024))));
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      );
    });
    const whole = rowsAsJson(await pagesOf({ spill: false }));
    expect(whole).toHaveLength(rows.length);
    expect(whole.filter((row) => /"date":"[^"]*T/.test(row))).toEqual([]);
    expect(
      rowsAsJson(await pagesOf({ spill: { afterRows: 30, pageRows: 40, directory: tempDir() } })),
    ).toEqual(whole);
  });

  it('a week denser than one read of the file comes back whole, row for row', async () => {
    // ~1,400 rows a week, ~300 KiB of text: the file holds each week as several ranges.
    const rows = history('2026-06-01', '2026-06-14', 200);
    serve({ transactions: rows, total: rows.length });
    const whole = await pagesOf({ spill: false });
    const spilled = await pagesOf({ spill: { afterRows: 100, pageRows: 2_000, directory: tempDir() } });
    expect(spilled.length).toBeGreaterThan(1);
    expect(sortedIds(spilled)).toEqual(sortedIds(whole));
    expect(sortedIds(spilled)).toHaveLength(rows.length);
  });

  it('a page of weeks written across several flushes comes back in the order a held answer gives', async () => {
    // Dense weeks, shuffled: each flush of the file holds part of every week, so one page's ranges
    // lie in the file as week A, week B, week A, week B, and must come back week by week.
    const rows = history('2026-06-01', '2026-06-14', 200);
    serve({ transactions: rows, total: rows.length });
    const held = await pagesOf({ spill: { afterRows: rows.length, pageRows: 5_000 } });
    const spilled = await pagesOf({ spill: { afterRows: 100, pageRows: 5_000, directory: tempDir() } });
    expect(held).toHaveLength(1);
    expect(spilled).toEqual(held);
  });

  it('an answer held in memory goes to the file in several writes once it passes `afterRows`, row for row', async () => {
    // ~2,800 rows, ~370 KiB of text: 2,000 rows wait in memory, more than one write's worth, and
    // go to the file together when the 2,001st comes.
    const rows = history('2026-06-01', '2026-06-14', 200);
    serve({ transactions: rows, total: rows.length });
    const directory = tempDir();
    const held = await pagesOf({ spill: { afterRows: rows.length, pageRows: 5_000, directory } });
    expect(readdirSync(directory)).toEqual([]);
    const spilled = await pagesOf({ spill: { afterRows: 2_000, pageRows: 5_000, directory: tempDir() } });
    expect(held).toHaveLength(1);
    expect(spilled).toEqual(held);
    expect(sortedIds(spilled)).toHaveLength(rows.length);
  });

  it('a bad row fails a held answer too, naming the row', async () => {
    const rows: unknown[] = history('2026-06-01', '2026-06-20');
    rows[17] = { ...(rows[17] as WireRow), date: 'soon' };
    serve({ transactions: rows, total: rows.length });
    const error = await pagesOf({ spill: { afterRows: 1_000, directory: tempDir() } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).issues[0]!.path).toBe('transactions[17].date');
  });

  it('refuses spill sizes that are not positive integers, when the client is made', () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      for (const name of ['afterRows', 'pageRows'])
        expect(() => new ProviderClient({ apiKey: KEY, baseUrl: BASE, spill: { [name]: value } })).toThrow(
          new RangeError(`spill.${name} must be a positive integer, got ${String(value)}`),
        );
    expect(() => new ProviderClient({ apiKey: KEY, spill: { afterRows: 1, pageRows: 1 } })).not.toThrow();
  });

  it('leaves no file behind when the caller stops early', async () => {
    const rows = history('2026-01-01', '2026-06-30');
    serve({ transactions: rows, total: rows.length });
    const directory = tempDir();
    const client = new ProviderClient({
      apiKey: KEY,
      rateLimit: false,
      spill: { afterRows: 50, pageRows: 40, directory },
    });
    for await (const page of client.listTransactions('4711', { to: '2026-06-30' }).pages()) {
      expect(readdirSync(directory)).toHaveLength(1);
      expect(page.transactions.length).toBeGreaterThan(0);
      break;
    }
    expect(readdirSync(directory)).toEqual([]);
  });

  // Rows going to disk are only checked and dated as they arrive, and read in full later: a row the
  // schema refuses must still fail the answer first, whichever field is wrong.
  it.each([
    ['amount', 'twelve'],
    ['merchant', 42],
    ['description', { text: 'x' }],
    ['date', '2026-02-30'],
    ['currency', 978],
    ['isPending', ['yes']],
    ['id', true],
  ])(
    'a bad row anywhere fails the answer before any page is handed out, naming the row (%s)',
    async (field, value) => {
      // 1,629 rows, ~280k characters: the file is opened once a write's worth of text (256k) waits.
      const rows: unknown[] = history('2026-01-01', '2026-06-30', 9);
      rows[1600] = { ...(rows[1600] as WireRow), [field]: value };
      // In chunks, so the bad row arrives after the answer has started going to disk.
      serve(inChunks({ transactions: rows, total: rows.length }, 2_048));
      const directory = tempDir();
      const seen: TransactionPage[] = [];
      const client = new ProviderClient({
        apiKey: KEY,
        rateLimit: false,
        spill: { afterRows: 50, pageRows: 40, directory },
      });
      const error = await (async () => {
        for await (const page of client.listTransactions('4711', { to: '2026-06-30' }).pages())
          seen.push(page);
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect((error as InvalidResponseError).issues[0]!.path).toBe(`transactions[1600].${field}`);
      expect(seen).toEqual([]);
      expect(readdirSync(directory)).toEqual([]);
    },
  );

  it('reads a body cut anywhere between bytes, with a BOM and a bad byte, as a body read whole reads it', async () => {
    const rows = history('2026-01-01', '2026-02-28').map((row, n) => ({
      ...row,
      merchant: n % 5 === 0 ? `Caf\u00e9 \u{1F600} ${n} \u20ac` : row.merchant,
    }));
    const text = JSON.stringify({ transactions: rows, total: rows.length });
    const encoded = new TextEncoder().encode(text);
    // A byte that is no UTF-8 at all, inside the 12th row's merchant: read as U+FFFD.
    const bad = new TextEncoder().encode(text.slice(0, text.indexOf('Caf\u00e9', 1_000))).length;
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...encoded.subarray(0, bad),
      0xff,
      ...encoded.subarray(bad),
    ]);
    for (const size of [1, 7, 4_093]) {
      // Chunks of `size` bytes: a character of two, three or four bytes is cut across two of them.
      serve(
        () =>
          new Response(
            new ReadableStream({
              start(controller) {
                for (let at = 0; at < bytes.length; at += size)
                  controller.enqueue(bytes.slice(at, at + size));
                controller.close();
              },
            }),
            { headers: { 'content-type': 'application/json' } },
          ),
      );
      const whole = rowsAsJson(await pagesOf({ spill: false }));
      expect(whole).toHaveLength(rows.length);
      expect(whole.filter((row) => row.includes('\uFFFDCaf\u00e9'))).toHaveLength(1);
      expect(whole.filter((row) => row.includes('\u{1F600}'))).toHaveLength(Math.ceil(rows.length / 5));
      for (const spill of [{ afterRows: rows.length }, { afterRows: 30, pageRows: 40 }])
        expect(rowsAsJson(await pagesOf({ spill: { ...spill, directory: tempDir() } }))).toEqual(whole);
    }
    // A body that ends inside a character (the first two bytes of a euro sign after the object) is
    // refused on every path: the character left unfinished reads as U+FFFD, which is not JSON.
    const unfinished = new Uint8Array([...bytes, 0xe2, 0x82]);
    serve(() => new Response(unfinished, { headers: { 'content-type': 'application/json' } }));
    for (const spill of [false, { afterRows: rows.length, directory: tempDir() }] as const)
      await expect(pagesOf({ spill })).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it('a body cut off or not JSON is an InvalidResponseError, and the files go', async () => {
    // ~620k characters: cut in half, the answer has gone to disk before its end is found missing.
    const rows = history('2026-01-01', '2026-06-30', 20);
    const text = JSON.stringify({ transactions: rows, total: rows.length });
    // A comma too many between two rows (not inside a string, where it would be text).
    const between = text.indexOf('},{', 5_000) + 1;
    for (const body of [text.slice(0, text.length / 2), `${text.slice(0, between)},${text.slice(between)}`]) {
      serve(() => new HttpResponse(body, { headers: { 'content-type': 'application/json' } }));
      const directory = tempDir();
      await expect(pagesOf({ spill: { afterRows: 50, directory } })).rejects.toBeInstanceOf(
        InvalidResponseError,
      );
      expect(readdirSync(directory)).toEqual([]);
    }
  });

  it('a connection lost mid-body is a ConnectionError, and the files go', async () => {
    const rows = history('2026-01-01', '2026-06-30', 20);
    const text = new TextEncoder().encode(JSON.stringify({ transactions: rows, total: rows.length }));
    serve(
      () =>
        new HttpResponse(
          new ReadableStream({
            start(controller) {
              // Past a write's worth of text (256k characters): the answer has gone to disk.
              controller.enqueue(text.subarray(0, 400_000));
              controller.error(new TypeError('terminated'));
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    );
    const directory = tempDir();
    await expect(pagesOf({ spill: { afterRows: 50, directory } })).rejects.toBeInstanceOf(ConnectionError);
    expect(readdirSync(directory)).toEqual([]);
  });

  it.each([
    ['spilled', 50],
    ['held', 10_000],
  ])(
    'an answer cut short is walked again in windows, from the first day a row the cut left out lies on (%s)',
    async (_, afterRows) => {
      const rows = history('2026-03-01', '2026-06-30');
      // The whole history is capped at 200 rows; windows of 30 days fit.
      const urls = serveDays(rows, (all) => ({ transactions: all.slice(0, 200), total: all.length }));
      const directory = tempDir();
      const pages = await pagesOf({ windowDays: 30, spill: { afterRows, directory } });
      expect(urls[0]).not.toContain('from=');
      expect(urls.length).toBeGreaterThan(1);
      expect(pages[0]!.from! <= rows[0]!.date).toBe(true);
      const got = pages.flatMap((p) => p.transactions);
      expect(got.map((t) => t.id ?? t.date).sort()).toEqual(rows.map((r) => r.id ?? r.date).sort());
      expect(pages.reduce((n, p) => n + p.shortfall, 0)).toBe(0);
      expect(readdirSync(directory)).toEqual([]);
    },
  );

  it('an answer cut short whose every row is dated after the asked window says what is missing', async () => {
    // Asked up to 2026-03-31; the provider counts 40 rows and sends 10, all dated in April, and no
    // window of days up to 2026-03-31 holds any.
    const rows = history('2026-04-01', '2026-04-10', 1);
    serve((url) =>
      HttpResponse.json(
        url.searchParams.has('from') ? { transactions: [], total: 0 } : { transactions: rows, total: 40 },
      ),
    );
    expect(await pagesOf({ spill: { directory: tempDir() } }, '2026-03-31')).toEqual([
      { from: null, to: '2026-03-31', transactions: [], total: 40, shortfall: 40 },
    ]);
  });

  it('an answer that sent the newest rows first is completed from the days before its earliest row', async () => {
    // The provider caps a whole history at 100 rows and sends the newest: the oldest 260 were lost
    // for good, and the sync said success.
    const rows = history('2026-03-01', '2026-06-30');
    const urls = serveDays(rows, newestOf(100));
    const pages = await pagesOf({ windowDays: 30, spill: { directory: tempDir() } });
    const got = pages.flatMap((p) => p.transactions);
    expect(got).toHaveLength(rows.length);
    expect(new Set(got.map((t) => `${t.date} ${t.amount}`)).size).toBe(rows.length);
    expect(pages.reduce((n, p) => n + p.shortfall, 0)).toBe(0);
    // Oldest first, as every list's pages are.
    const dates = pages.map((p) => p.from!);
    expect(dates).toEqual([...dates].sort());
    // The look behind the cut is bounded: it stops once it has counted what was missing.
    expect(urls.length).toBeLessThan(20);
  });

  it('finds an old tail behind a cut answer with timeZone set, whose windows overlap by their margins', async () => {
    // With a zone every window is asked two days wider on each side: the rows near each edge were
    // counted twice, the look behind stopped early, and the two old rows were never walked.
    const rows = history('2026-03-01', '2026-06-30').map((r) => ({
      ...r,
      isPending: false,
      id: r.id ?? `p_${r.amount}`,
    }));
    rows.push(
      { ...rows[0]!, id: 'old_1', date: '2025-01-15', amount: -1 },
      { ...rows[0]!, id: 'old_2', date: '2025-01-15', amount: -2 },
    );
    serveDays(rows, newestOf(100));
    const pages = await pagesOf({ windowDays: 30, timeZone: 'UTC', spill: { directory: tempDir() } });
    const ids = pages.flatMap((p) => p.transactions.map((t) => t.id));
    expect(ids).toContain('old_1');
    expect(ids).toContain('old_2');
    expect(new Set(ids).size).toBe(rows.length);
  });

  it('looks behind a cut answer four windows at most when they hold nothing (a total counting unsent pending rows)', async () => {
    const rows = history('2026-03-01', '2026-06-30').map((r) => ({
      ...r,
      isPending: false,
      id: r.id ?? `p_${r.amount}`,
    }));
    // Ten pending rows counted, never sent.
    const urls = serveDays(rows, (all) => ({ transactions: all, total: all.length + 10 }));
    await pagesOf({ windowDays: 30, spill: { directory: tempDir() } });
    const before = urls.filter((u) => {
      const to = new URL(u, 'http://x').searchParams.get('to');
      return to !== null && to < '2026-03-01';
    });
    expect(before).toHaveLength(4);
  });
});
