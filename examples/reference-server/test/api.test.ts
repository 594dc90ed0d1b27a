/** The list filters the service has, the docs page, and memory under large bodies. */
import { request as httpRequest } from 'node:http';
import { ServiceClient } from '@finsync/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`list filters ${backend.title}`, () => {
    let t: TestServer;
    let client: ServiceClient;
    let all: Array<{
      id: string;
      account: { id: string };
      name: string;
      notes: string | null;
      merchant: { id: string; name: string } | null;
      signed_amount_cents: number;
      amount_cents: number;
      currency: string;
      classification: string;
    }>;

    beforeAll(async () => {
      t = await startTestServer(backend);
      client = new ServiceClient({ baseUrl: t.server.url, apiKey: t.keys.alice, maxRetries: 0 });
      all = (await client.transactions.list({ per_page: 100 }).toArray({ limit: 10_000 })) as typeof all;
    });
    afterAll(async () => {
      await t?.close();
    });

    const ids = async (params: Parameters<ServiceClient['transactions']['list']>[0]) =>
      (await client.transactions.list({ per_page: 100, ...params }).toArray({ limit: 10_000 }))
        .map((x) => x.id)
        .sort();
    const expected = (keep: (x: (typeof all)[number]) => boolean) =>
      all
        .filter(keep)
        .map((x) => x.id)
        .sort();

    it('account_ids[], merchant_ids[]: any of their values', async () => {
      const accounts = [...new Set(all.map((x) => x.account.id))].slice(0, 2);
      expect(await ids({ account_ids: accounts })).toEqual(expected((x) => accounts.includes(x.account.id)));
      const merchants = [...new Set(all.flatMap((x) => (x.merchant ? [x.merchant.id] : [])))].slice(0, 3);
      expect(merchants.length).toBe(3);
      const byMerchant = await ids({ merchant_ids: merchants });
      expect(byMerchant).toEqual(expected((x) => x.merchant !== null && merchants.includes(x.merchant.id)));
      expect(byMerchant.length).toBeGreaterThan(0);
    });

    it('type and min/max_amount compare the internal sign, as the service (expenses positive)', async () => {
      expect(await ids({ type: 'income' })).toEqual(expected((x) => x.signed_amount_cents > 0));
      expect(await ids({ type: 'expense' })).toEqual(expected((x) => x.signed_amount_cents < 0));
      // Expenses of 50 or more in their own currency (the sandbox has GBP, EUR, USD, JPY, PLN rows).
      const big = await ids({ min_amount: '50' });
      expect(big).toEqual(
        expected((x) => x.signed_amount_cents < 0 && -x.signed_amount_cents >= scaled(x, 50)),
      );
      expect(await ids({ max_amount: '-100' })).toEqual(
        expected((x) => x.signed_amount_cents > 0 && x.signed_amount_cents >= scaled(x, 100)),
      );
    });

    it('min/max_amount compare exactly, where doubles cannot tell the amounts apart', async () => {
      // Near 10^12 a double's step is about 1.2e-4: SQLite compared doubles, and took this row for
      // at least 999999999814.0501 (PostgreSQL, with numeric, did not).
      const row = all.find((x) => x.currency === 'GBP')!;
      await client.transactions.update(row.id, { amount: '999999999814.05' });
      try {
        const matching = async (params: Parameters<ServiceClient['transactions']['list']>[0]) =>
          (await ids({ account_ids: [row.account.id], ...params })).includes(row.id);
        expect(await matching({ min_amount: '999999999814.0501' })).toBe(false);
        expect(await matching({ min_amount: '999999999814.05' })).toBe(true);
        expect(await matching({ min_amount: '999999999814.0499' })).toBe(true);
        expect(await matching({ max_amount: '999999999814.0499' })).toBe(false);
        expect(await matching({ max_amount: '999999999814.05' })).toBe(true);
        expect(await matching({ max_amount: '999999999814.0501' })).toBe(true);
      } finally {
        await client.transactions.update(row.id, { amount: (-row.signed_amount_cents / 100).toFixed(2) });
      }
    });

    it('search matches the name, the notes and the merchant name, ASCII letters in any case', async () => {
      const row = all.find((x) => x.notes && x.notes.length > 8 && x.notes !== x.name)!;
      const fromNotes = row.notes!.slice(2, 8).toLowerCase();
      expect(await ids({ search: fromNotes })).toContain(row.id);
      const merchant = all.find((x) => x.merchant && !x.name.includes(x.merchant.name))?.merchant;
      if (merchant) expect((await ids({ search: merchant.name.toUpperCase() })).length).toBeGreaterThan(0);
    });
  });
}

/** `amount` major units in the row's currency as minor units (cents; yen have none). */
function scaled(row: { currency: string }, amount: number) {
  return row.currency === 'JPY' ? amount : amount * 100;
}

describe.skipIf(BACKENDS[0]!.skip)('the API described', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(BACKENDS[0]!);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves /docs and its assets itself: no request leaves for a CDN', async () => {
    const page = await fetch(`${t.server.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(2);
    for (const source of sources) {
      expect(source.startsWith('/'), source).toBe(true);
      const asset = await fetch(`${t.server.url}${source}`);
      expect(asset.status, source).toBe(200);
      expect(asset.headers.get('x-content-type-options'), source).toBe('nosniff');
    }
    expect(page.headers.get('content-security-policy')).toContain("object-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it("marks every /api answer, a user's data, as not to be cached or sniffed: read, written and refused", async () => {
    const headers = { 'x-api-key': t.keys.alice, 'content-type': 'application/json' };
    const listed = await fetch(`${t.server.url}/api/v1/transactions?per_page=1`, { headers });
    const id = ((await listed.json()) as { transactions: Array<{ id: string }> }).transactions[0]!.id;
    const answers = [
      listed,
      // The ordinary PATCH, answered on node:http, and one the app answers (a body it refuses).
      await fetch(`${t.server.url}/api/v1/transactions/${id}`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({ transaction: { notes: 'cache check' } }),
      }),
      await fetch(`${t.server.url}/api/v1/transactions/${id}`, { method: 'PATCH', headers, body: '{' }),
      await fetch(`${t.server.url}/api/v1/accounts`, { headers: { 'x-api-key': 'wrong' } }),
      await fetch(`${t.server.url}/api/v1/no-such-route`, { headers }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 401, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('cache-control'), answer.url).toBe('no-store');
      expect(answer.headers.get('x-content-type-options'), answer.url).toBe('nosniff');
    }
  });

  it('keeps its memory bounded when sent bodies of 1 KiB to 8 MiB (bound: +64 MiB RSS)', async () => {
    const key = t.keys.alice;
    const url = new URL('/api/v1/transactions', t.server.url);
    const send = (size: number) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          url,
          { method: 'POST', agent: false, headers: { 'X-Api-Key': key, 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', (error) => (req.writableEnded ? undefined : reject(error)));
        const chunk = Buffer.alloc(Math.min(size, 64 * 1024), 120);
        for (let sent = 0; sent < size && !req.destroyed; sent += chunk.length) req.write(chunk);
        req.end();
      });
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    for (const size of [1024, 64 * 1024, 512 * 1024, 1024 * 1024 + 1, 2 * 1024 * 1024, 8 * 1024 * 1024]) {
      for (let i = 0; i < 3; i += 1) {
        const status = await send(size);
        // Not JSON: refused as malformed when it fits the limit, as too large when it does not.
        expect(status, `${size} bytes`).toBe(size > 1024 * 1024 ? 413 : 400);
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    }
    // The server and this test share a process: the bound covers both.
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
