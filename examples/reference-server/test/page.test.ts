/**
 * The page at `/`: its HTTP contract (headers, sign-in, cookie, CSRF, scopes, the chart's numbers) on
 * every backend. The page in a browser is page-browser.test.ts.
 */
import { addDays, decimalToMinorUnits, minorUnitsToDecimal } from '@finsync/provider';
import { currencyScale } from '@finsync/service';
import { fixtures } from '@finsync/sync/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../src/money-format.js';
import { revokeApiKeys } from '../src/users.js';
import { SessionStore } from '../src/web/sessions.js';
import { balanceSeries, chartPaths } from '../src/web/overview.js';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';
import { UI, startUi } from './page-ui.js';

describe("the page's sessions", () => {
  it("end a user's own oldest session past the per-user bound, never another user's", () => {
    const sessions = new SessionStore({ maxSessions: 5, maxSessionsPerUser: 2 });
    const open = (userId: string) => sessions.create({ userId, scope: 'read', keyHash: Buffer.alloc(32) });
    const bob = open('bob');
    const alice = Array.from({ length: 10 }, () => open('alice'));
    expect(sessions.get(bob)?.userId).toBe('bob');
    expect(alice.map((token) => sessions.get(token) !== undefined)).toEqual([
      ...Array<boolean>(8).fill(false),
      true,
      true,
    ]);
    expect(sessions.size).toBe(3);
  });
});

describe("the page's balance chart", () => {
  it('walks back from the balance of today through the later transactions (positive is money out)', () => {
    const rows = [
      { date: '2026-03-02', amount: 3000n }, // an expense of 30.00
      { date: '2026-03-03', amount: -1000n }, // income of 10.00
      { date: '2026-03-03', amount: 500n },
      { date: '2026-03-09', amount: 200n }, // dated after the chart's end: undone first
    ];
    const series = balanceSeries(10_000n, rows, '2026-03-01', '2026-03-04');
    expect(series).toEqual([
      { date: '2026-03-01', balance: 12_700n },
      { date: '2026-03-02', balance: 9_700n },
      { date: '2026-03-03', balance: 10_200n },
      { date: '2026-03-04', balance: 10_200n },
    ]);
    expect(chartPaths([1, 2, 3], 100, 50).line).toBe('M6.0,44.0L50.0,25.0L94.0,6.0');
    expect(chartPaths([5, 5], 100, 50).line).toBe('M6.0,25.0L94.0,25.0');
  });
});

for (const backend of BACKENDS) {
  (backend.skip ? describe.skip : describe)(`the page's HTTP contract ${backend.title}`, () => {
    let t: TestServer;
    let ui: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      t = await startTestServer(backend);
      ui = await startUi(t);
    }, 60_000);
    afterAll(async () => {
      await ui?.close();
      await t?.close();
    });

    const signIn = (key: string, headers: Record<string, string> = UI) =>
      fetch(`${ui.url}/ui/session`, { method: 'POST', headers, body: JSON.stringify({ api_key: key }) });
    const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;

    it('serves the page and its files with a strict policy', async () => {
      for (const [path, type] of [
        ['/', 'text/html'],
        ['/ui/app.js', 'text/javascript'],
        ['/ui/app.css', 'text/css'],
      ] as const) {
        const response = await fetch(`${ui.url}${path}`);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('content-type')).toContain(type);
        const csp = response.headers.get('content-security-policy')!;
        expect(csp).toContain("default-src 'self'");
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).not.toContain('unsafe');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      }
      const html = await (await fetch(`${ui.url}/`)).text();
      // No inline script: the only script is the file.
      expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/ui/app.js">']);
    });

    it('signs in with a key in the body and answers with an HttpOnly, SameSite=Strict session cookie', async () => {
      const response = await signIn(t.keys.alice);
      expect(response.status).toBe(200);
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith('finsync_ui='))!;
      expect(cookie).toMatch(/^finsync_ui=[A-Za-z0-9_-]{43};/);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).not.toMatch(/Secure/i); // plain http here; https gets Secure
      expect(cookie).not.toContain(t.keys.alice);
      const overview = await fetch(`${ui.url}/ui/api/overview`, { headers: { cookie: cookieOf(response) } });
      expect(overview.status).toBe(200);
      expect(overview.headers.get('cache-control')).toBe('no-store');
      const body = (await overview.json()) as { user: { name: string }; accounts: unknown[] };
      expect(body.user.name).toBe('alice');
      expect(body.accounts.length).toBeGreaterThan(0);
      expect(JSON.stringify(body)).not.toContain(t.keys.alice);
    });

    it('refuses a sign-in body larger than any key unread: 413', async () => {
      const response = await fetch(`${ui.url}/ui/session`, {
        method: 'POST',
        headers: UI,
        body: JSON.stringify({ api_key: 'x'.repeat(64 * 1024) }),
      });
      expect(response.status).toBe(413);
    });

    it("charts an account's balance from the rows that balance counts: the bank's posted ones, deleted, edited or not", async () => {
      const cookie = cookieOf(await signIn(t.keys.alice));
      const { store, engine } = t.server.runtime;
      const chartDay = (days: number) => addDays(t.server.runtime.today(), days);
      const accounts = (await store.listAccounts(t.users.alice)).filter(
        (a) => a.balance !== null && a.currency !== null,
      );
      // The user deletes a posted row: the bank's balance still counts it, so the line must not move.
      const postedOf = async (account: (typeof accounts)[number]) =>
        (await engine.storage.findTransactions(t.users.alice, account.provider_account_id)).filter(
          (r) => !r.isPending,
        );
      let first = accounts[0];
      for (const account of accounts) if ((await postedOf(account)).length >= 2) first = account;
      const posted = (await postedOf(first!)).reduce((latest, r) => (r.date > latest.date ? r : latest));
      /** The app's row of a bank row of the account. */
      const appRowOf = async (providerId: string | null) =>
        (
          await store.findTransactions(
            t.users.alice,
            { account_ids: [first!.id] },
            { limit: 100_000, offset: 0 },
          )
        ).rows.find((r) => r.external_id === `lunchflow_${providerId}`)!;
      const appRow = await appRowOf(posted.providerId);
      expect((await t.request(t.keys.alice, 'DELETE', `/api/v1/transactions/${appRow.id}`)).status).toBe(200);
      // A row entered by hand and a bank row whose amount and date the user changed: the bank's balance
      // knows neither change, so the line must not move either.
      const created = await t.request(t.keys.alice, 'POST', '/api/v1/transactions', {
        transaction: {
          account_id: first!.id,
          name: 'Cash float',
          amount: '3000',
          date: chartDay(-10),
          nature: 'expense',
        },
      });
      expect(created.status).toBe(201);
      const bankRow = (await postedOf(first!)).find((r) => r.providerId !== posted.providerId)!;
      const edited = await appRowOf(bankRow.providerId);
      expect(
        (
          await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${edited.id}`, {
            transaction: { amount: '1000', date: chartDay(-40) },
          })
        ).status,
      ).toBe(200);
      const status = await t.server.runtime.status(t.users.alice);
      let pendingLeftOut = 0;
      for (const account of accounts) {
        const response = await fetch(`${ui.url}/ui/api/overview?account=${account.id}`, {
          headers: { cookie },
        });
        const { chart } = (await response.json()) as {
          chart: { account_id: string; from: string; first: string; last: string };
        };
        expect(chart.account_id).toBe(account.id);
        if (account.id === first!.id) expect(posted.date > chart.from).toBe(true);
        const basis = status.accounts.find((a) => a.id === account.id)?.balance_check?.basis ?? 'posted';
        const scale = currencyScale(account.currency!);
        // The provider's own rows (negative = money out), as the engine mirrors them.
        const counted = (
          await engine.storage.findTransactions(t.users.alice, account.provider_account_id)
        ).filter((r) => r.date > chart.from && r.currency === account.currency);
        pendingLeftOut += counted.filter((r) => r.isPending).length;
        const later = counted
          .filter((r) => basis === 'posted-and-pending' || !r.isPending)
          .reduce((sum, r) => sum + decimalToMinorUnits(r.amount, scale), 0n);
        const opening = decimalToMinorUnits(account.balance!, scale) - later;
        const show = (units: bigint) =>
          formatMoney(minorUnitsToDecimal(units, scale), account.currency!).replace('-', '−');
        expect(chart.first, account.name).toBe(show(opening));
        expect(chart.last, account.name).toBe(show(decimalToMinorUnits(account.balance!, scale)));
      }
      // The sandbox's holds were really in the charts' windows, and left out.
      expect(pendingLeftOut).toBeGreaterThan(0);
      await t.request(t.keys.alice, 'POST', `/api/v1/transactions/${appRow.id}/restore`);
      await t.request(t.keys.alice, 'DELETE', `/api/v1/transactions/${created.body.id}`);
    });

    it('charts a day with more rows than the chart reads from the end of that day, every point right', async () => {
      const cookie = cookieOf(await signIn(t.keys.alice));
      const { store, engine } = t.server.runtime;
      const account = (await store.listAccounts(t.users.alice)).find(
        (a) => a.balance !== null && a.currency === 'GBP',
      )!;
      const yesterday = addDays(t.server.runtime.today(), -1);
      // 6,000 rows of one day, past the chart's 5,000: a cut inside the day made its first point wrong
      // by the rows left out (and the 90 days were read whole first).
      const many = Array.from({ length: 6_000 }, (_, i) =>
        fixtures.transaction(t.users.alice, account.provider_account_id, `id:dense-${i}`, {
          amount: '-0.01',
          currency: 'GBP',
          date: yesterday,
          isPending: false,
        }),
      );
      await engine.storage.apply({ changes: many.map((r) => fixtures.added(r)) });
      try {
        const response = await fetch(`${ui.url}/ui/api/overview?account=${account.id}`, {
          headers: { cookie },
        });
        const { chart } = (await response.json()) as { chart: { from: string; first: string } };
        expect(chart.from).toBe(yesterday);
        const scale = currencyScale('GBP');
        const later = (await engine.storage.findTransactions(t.users.alice, account.provider_account_id))
          .filter((r) => r.date > chart.from && r.currency === 'GBP' && !r.isPending)
          .reduce((sum, r) => sum + decimalToMinorUnits(r.amount, scale), 0n);
        const opening = decimalToMinorUnits(account.balance!, scale) - later;
        expect(chart.first).toBe(formatMoney(minorUnitsToDecimal(opening, scale), 'GBP').replace('-', '−'));
      } finally {
        await engine.storage.apply({ changes: many.map((r) => fixtures.removed(r)) });
      }
    });

    it('refuses a wrong key, a sign-in without the page header, and one from another site', async () => {
      expect((await signIn('0'.repeat(64))).status).toBe(401);
      expect((await signIn('')).status).toBe(401);
      expect((await signIn(t.keys.alice, { 'content-type': 'application/json' })).status).toBe(403);
      expect((await signIn(t.keys.alice, { ...UI, origin: 'https://evil.example' })).status).toBe(403);
      expect((await signIn(t.keys.alice, { ...UI, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await signIn(t.keys.alice, { ...UI, origin: 'null' })).status).toBe(403);
      const evilForwarded = { ...UI, origin: 'https://evil.example', 'x-forwarded-host': 'bank.example' };
      expect((await signIn(t.keys.alice, evilForwarded)).status).toBe(403);
      const unsigned = await fetch(`${ui.url}/ui/api/overview`);
      expect(unsigned.status).toBe(401);
      // The API's error body, with the request's id as its header says it.
      expect(await unsigned.json()).toEqual({
        error: 'unauthorized',
        message: expect.any(String),
        request_id: unsigned.headers.get('x-request-id'),
      });
      const refused = await signIn(t.keys.alice, { 'content-type': 'application/json' });
      expect((await refused.json()).request_id).toBe(refused.headers.get('x-request-id'));
      const forged = { cookie: `finsync_ui=${'A'.repeat(43)}` };
      expect((await fetch(`${ui.url}/ui/api/overview`, { headers: forged })).status).toBe(401);
    });

    it('signs in through a reverse proxy: TLS in front, and a Host rewritten to the upstream', async () => {
      // What a browser sends to https://money.example through a proxy that forwards to this server.
      const viaTls = { ...UI, origin: 'https://money.example', 'x-forwarded-proto': 'https' };
      expect((await signIn(t.keys.alice, { ...viaTls, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
      // A browser without Sec-Fetch-Site: its Origin is compared with the host it asked the proxy for.
      expect((await signIn(t.keys.alice, { ...viaTls, 'x-forwarded-host': 'money.example' })).status).toBe(
        200,
      );
      const ownHost = new URL(ui.url).host;
      expect((await signIn(t.keys.alice, { ...UI, origin: `https://${ownHost}` })).status).toBe(200);
      // Over TLS the cookie is a __Host- one: only this host can set it, so no sibling subdomain can.
      const overTls = await signIn(t.keys.alice, { ...viaTls, 'sec-fetch-site': 'same-origin' });
      const set = overTls.headers.getSetCookie();
      const hostCookie = set.find((c) => c.startsWith('__Host-finsync_ui='))!;
      expect(hostCookie).toMatch(/^__Host-finsync_ui=[^;]+;/);
      expect(hostCookie).toMatch(/; Secure/);
      expect(hostCookie).toMatch(/; Path=\//);
      expect(hostCookie).not.toMatch(/Domain=/i);
      // The plain cookie of an earlier release (or one planted) is expired beside it.
      expect(set.find((c) => c.startsWith('finsync_ui='))).toMatch(/^finsync_ui=;.*Max-Age=0/);
      const alices = hostCookie.split(';')[0]!;
      const bobs = (await signIn(t.keys.bob, { ...viaTls, 'sec-fetch-site': 'same-origin' })).headers
        .getSetCookie()
        .find((c) => c.startsWith('__Host-finsync_ui='))!
        .split(';')[0]!;
      const overview = (cookie: string, proto = 'https') =>
        fetch(`${ui.url}/ui/api/overview`, {
          headers: { cookie, ...(proto === '' ? {} : { 'x-forwarded-proto': proto }) },
        });
      const userOf = async (cookie: string, proto?: string) => {
        const response = await overview(cookie, proto);
        return response.status === 200
          ? ((await response.json()) as { user: { name: string } }).user.name
          : response.status;
      };
      expect(await userOf(alices)).toBe('alice');
      // Over TLS a plain finsync_ui (another host under the domain can set one) counts for nothing:
      // alone it is no session, beside the user's own it changes nothing.
      const plainBob = bobs.replace(/^__Host-/, '');
      expect(await userOf(plainBob)).toBe(401);
      expect(await userOf(`${plainBob}; ${alices}`)).toBe('alice');
      expect(await userOf(`${alices}; ${bobs}`)).toBe(401);
      // The __Host- cookie holds whatever the proxy says of the scheme on a given request: it cannot
      // have come from anywhere but this host over TLS.
      for (const proto of ['', 'http', 'https, http', 'HTTPS'])
        expect(await userOf(alices, proto), proto).toBe('alice');
      // Signing out ends it, even on a request the proxy sent without the header.
      const out = await fetch(`${ui.url}/ui/session`, {
        method: 'DELETE',
        headers: { ...UI, cookie: alices },
      });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie().map((c) => c.split('=')[0])).toEqual(
        expect.arrayContaining(['finsync_ui', '__Host-finsync_ui']),
      );
      expect(await userOf(alices)).toBe(401);
      // A __Host- cookie whose session is gone (a restart, say), sent to a sign-in the proxy passed on
      // without the header: the new session replaces it under the same name, and it holds.
      const again = await signIn(t.keys.alice, {
        ...UI,
        'sec-fetch-site': 'same-origin',
        cookie: 'finsync_ui=x; __Host-finsync_ui=gone',
      });
      expect(again.status).toBe(200);
      const replaced = again.headers.getSetCookie();
      const fresh = replaced.find((c) => c.startsWith('__Host-finsync_ui=') && !/Max-Age=0/.test(c))!;
      expect(fresh).toMatch(/; Secure/);
      expect(replaced.find((c) => c.startsWith('finsync_ui='))).toMatch(/Max-Age=0/);
      expect(await userOf(fresh.split(';')[0]!, '')).toBe('alice');
    });

    it("a request carrying two session cookies is signed out, whoever's they are (a cookie planted beside the user's)", async () => {
      const alices = cookieOf(await signIn(t.keys.alice));
      const bobs = cookieOf(await signIn(t.keys.bob));
      const overview = (cookie: string) => fetch(`${ui.url}/ui/api/overview`, { headers: { cookie } });
      expect((await overview(alices)).status).toBe(200);
      expect((await overview(`other=1; ${alices}`)).status).toBe(200);
      // As a sibling subdomain's cookie with a longer path would be sent: before the user's own.
      for (const both of [
        `${bobs}; ${alices}`,
        `${alices}; ${bobs}`,
        `finsync_ui=; ${alices}`,
        `${alices}; __Host-${bobs}`,
      ])
        expect((await overview(both)).status, both).toBe(401);
    });

    it('syncs only with the page header and a read-write key', async () => {
      const writer = cookieOf(await signIn(t.keys.alice));
      const reader = cookieOf(await signIn(t.keys.aliceReadOnly));
      const sync = (cookie: string, headers: Record<string, string> = UI) =>
        fetch(`${ui.url}/ui/api/sync`, { method: 'POST', headers: { ...headers, cookie } });
      expect((await sync(writer, {})).status).toBe(403);
      const refused = await sync(reader);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toBe('insufficient_scope');
      const done = await sync(writer);
      expect(done.status).toBe(200);
      expect(((await done.json()) as { outcome: string }).outcome).toBe('success');
      const overview = await fetch(`${ui.url}/ui/api/overview`, { headers: { cookie: reader } });
      expect(((await overview.json()) as { can_sync: boolean }).can_sync).toBe(false);
    });

    it('ends a session on sign-out and when its key is revoked', async () => {
      const a = cookieOf(await signIn(t.keys.alice));
      const out = await fetch(`${ui.url}/ui/session`, { method: 'DELETE', headers: { ...UI, cookie: a } });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toMatch(/finsync_ui=;.*Max-Age=0/i);
      expect((await fetch(`${ui.url}/ui/api/overview`, { headers: { cookie: a } })).status).toBe(401);

      const b = cookieOf(await signIn(t.keys.aliceReadOnly));
      expect((await fetch(`${ui.url}/ui/api/overview`, { headers: { cookie: b } })).status).toBe(200);
      await revokeApiKeys(t.server.runtime.store, t.users.alice, { namePrefix: 'ro' });
      expect((await fetch(`${ui.url}/ui/api/overview`, { headers: { cookie: b } })).status).toBe(401);
    });
  });
}
