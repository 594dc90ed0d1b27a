/**
 * The page at `/`: its HTTP contract (headers, sign-in, cookie, CSRF, scopes) on every backend, and
 * the page itself end to end in headless Chromium (Debian's `chromium`, driven by playwright-core).
 * Without /usr/bin/chromium the browser suite is skipped, and its title says so.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { addDays, decimalToMinorUnits, minorUnitsToDecimal } from '@finsync/provider';
import { currencyScale } from '@finsync/service';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { formatMoney } from '../src/money-format.js';
import { revokeApiKeys } from '../src/users.js';
import { mountWebUi } from '../src/web/index.js';
import { SessionStore } from '../src/web/sessions.js';
import { balanceSeries, chartPaths } from '../src/web/overview.js';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

/** The reference server's app with the page mounted, on its own port (app.ts may not mount it yet). */
async function startUi(t: TestServer): Promise<{ url: string; close(): Promise<void> }> {
  const app = createApp(t.server.runtime);
  mountWebUi(app, t.server.runtime);
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const UI = { 'X-Finsync-UI': '1', 'content-type': 'application/json' };

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
      const cookie = response.headers.get('set-cookie')!;
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
      const appRow = (
        await store.findTransactions(
          t.users.alice,
          { account_ids: [first!.id] },
          { limit: 100_000, offset: 0 },
        )
      ).rows.find((r) => r.external_id === `lunchflow_${posted.providerId}`)!;
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
      const bankRow = (await engine.storage.findTransactions(t.users.alice, first!.provider_account_id)).find(
        (r) => !r.isPending && r.providerId !== posted.providerId,
      )!;
      const edited = (
        await store.findTransactions(
          t.users.alice,
          { account_ids: [first!.id] },
          { limit: 100_000, offset: 0 },
        )
      ).rows.find((r) => r.external_id === `lunchflow_${bankRow.providerId}`)!;
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

    it('refuses a wrong key, a sign-in without the page header, and one from another site', async () => {
      expect((await signIn('0'.repeat(64))).status).toBe(401);
      expect((await signIn('')).status).toBe(401);
      expect((await signIn(t.keys.alice, { 'content-type': 'application/json' })).status).toBe(403);
      expect((await signIn(t.keys.alice, { ...UI, origin: 'https://evil.example' })).status).toBe(403);
      expect((await signIn(t.keys.alice, { ...UI, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await fetch(`${ui.url}/ui/api/overview`)).status).toBe(401);
      const forged = { cookie: `finsync_ui=${'A'.repeat(43)}` };
      expect((await fetch(`${ui.url}/ui/api/overview`, { headers: forged })).status).toBe(401);
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

const browserTitle = HAS_CHROMIUM
  ? 'the page in headless Chromium on SQLite'
  : `the page in headless Chromium (skipped: ${CHROMIUM} is missing; .ci/run installs Debian's chromium package)`;

(HAS_CHROMIUM ? describe : describe.skip)(browserTitle, () => {
  let t: TestServer;
  let ui: { url: string; close(): Promise<void> };
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestServer(BACKENDS[0]!);
    ui = await startUi(t);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await ui?.close();
    await t?.close();
  });

  /** A fresh browser profile, recording every URL it asks for and every error it reports. */
  async function open(): Promise<{ context: BrowserContext; page: Page; urls: string[]; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const urls: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    page.on('console', (message) => {
      // A 401 is how the page learns it is signed out (and how a wrong key is refused): expected.
      const text = message.text();
      if (message.type() === 'error' && !/status of 401/.test(text)) errors.push(text);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${ui.url}/`);
    await page.locator('#signin').waitFor();
    return { context, page, urls, errors };
  }

  async function signIn(page: Page, key: string) {
    await page.fill('#api-key', key);
    await page.click('#signin-form button[type=submit]');
  }

  /** Everything script in the page can read: nowhere may the key be. */
  const browserState = (page: Page) =>
    page.evaluate(() => ({
      url: location.href,
      cookie: document.cookie,
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      field: (document.getElementById('api-key') as HTMLInputElement).value,
    }));

  it('signs in, shows the accounts, chart and transactions, syncs, and never exposes the key', async () => {
    const { context, page, urls, errors } = await open();
    const key = t.keys.alice;

    await signIn(page, 'f'.repeat(64));
    await expect.poll(() => page.textContent('#signin-error')).toContain('not accepted');
    expect(await page.isVisible('#dashboard')).toBe(false);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, '.gitignore'), '*\n');
    await page.screenshot({ path: join(ARTIFACTS, 'signin.png') });

    await signIn(page, key);
    await page.locator('#dashboard').waitFor();
    expect(await page.textContent('#user-name')).toBe('alice');

    const { accounts } = (await t.request(key, 'GET', '/api/v1/accounts')).body as {
      accounts: Array<{ name: string; balance: string | null; currency: string | null }>;
    };
    const shown = page.locator('#accounts .account');
    expect(await shown.count()).toBe(accounts.length);
    const accountsText = await page.textContent('#accounts');
    for (const a of accounts) {
      expect(accountsText).toContain(a.name);
      // The API's format, with a real minus sign.
      if (a.balance !== null)
        expect(accountsText).toContain(formatMoney(a.balance, a.currency ?? 'USD').replace('-', '−'));
    }
    expect(accountsText).toMatch(/synced (just now|\d+ min ago)/);

    const line = await page.getAttribute('#chart svg path.line', 'd');
    expect(line).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+$/);
    expect((line!.match(/L/g) ?? []).length).toBeGreaterThan(10);

    const latest = (await t.request(key, 'GET', '/api/v1/transactions?per_page=20')).body as {
      transactions: Array<{ name: string; date: string }>;
    };
    const rows = page.locator('#transactions tr');
    expect(await rows.count()).toBe(latest.transactions.length);
    // A hold's name is followed by its "pending" tag.
    expect((await rows.first().locator('.name').textContent())!.replace(/pending$/, '')).toBe(
      latest.transactions[0]!.name,
    );
    expect(await rows.first().locator('.date').textContent()).toBe(latest.transactions[0]!.date);

    // Choosing another account redraws the chart for it.
    const second = shown.nth(1);
    await second.click();
    await expect.poll(() => second.getAttribute('aria-pressed')).toBe('true');
    expect(await page.textContent('#chart-title')).toContain(accounts[1]!.name);

    expect(await page.textContent('#run-outcome')).toBe('success');
    // The next run: a new day at the bank, and one account's transactions refused.
    const sandbox = t.server.runtime.sandbox!;
    sandbox.advanceDays(1);
    const providerAccount = sandbox.listAccounts()[0]!;
    const fault = sandbox.faults.add({
      kind: 'status',
      status: 400,
      match: { endpoint: 'transactions', accountId: providerAccount.id },
    });
    await page.click('#sync-now');
    await expect.poll(() => page.textContent('#sync-message'), { timeout: 20_000 }).toMatch(/Sync finished/);
    await expect.poll(() => page.textContent('#run-outcome')).toBe('partial');
    expect(await page.locator('#run-issues li').count()).toBeGreaterThan(0);
    expect(await page.textContent('#run-issues')).toContain(providerAccount.name);
    expect(await page.textContent('#run-when')).toBe('finished just now');
    fault.remove();

    const state = await browserState(page);
    expect(state.url).toBe(`${ui.url}/`);
    expect(state.cookie).toBe(''); // HttpOnly: script cannot read the session either
    for (const place of [state.local, state.session, state.field]) expect(place).not.toContain(key);
    for (const url of urls) expect(url).not.toContain(key);
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'finsync_ui', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookies[0]!.value).not.toContain(key);
    expect(errors).toEqual([]);

    // A reload keeps the session (the cookie) and shows the default account's chart again.
    await page.reload();
    await page.locator('#dashboard').waitFor();
    await expect.poll(() => page.textContent('#run-outcome')).toBe('partial');
    await page.screenshot({ path: join(ARTIFACTS, 'page.png'), fullPage: true });

    await page.click('#sign-out');
    await page.locator('#signin').waitFor();
    expect(await context.cookies()).toHaveLength(0);
    await page.reload();
    await page.locator('#signin').waitFor();
    expect(await page.isVisible('#dashboard')).toBe(false);
    await context.close();
  }, 60_000);

  it('says so when the server cannot be reached, marks holds, fits a phone, keeps focus, and signs out every tab', async () => {
    const { context, page } = await open();
    await signIn(page, t.keys.alice);
    await page.locator('#dashboard').waitFor();
    // Focus goes to the page's heading, and stays on an account chosen with the keyboard.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('dashboard-title');
    const third = page.locator('#accounts .account').nth(2);
    await third.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => third.getAttribute('aria-pressed')).toBe('true');
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.accountId)).toBe(
      await third.getAttribute('data-account-id'),
    );

    // Holds are marked: as many tags as the latest rows hold pending ones.
    const pendingIds = await t.server.runtime.store.pendingAmong(
      t.users.alice,
      (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=20')).body.transactions.map(
        (tx: { id: string }) => tx.id,
      ),
    );
    expect(pendingIds.size).toBeGreaterThan(0);
    expect(await page.locator('#transactions .pending-tag').count()).toBe(pendingIds.size);

    // A phone: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(ARTIFACTS, 'page-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1200, height: 900 });

    // The server out of reach: a sync says so, and a reload shows why the page is empty.
    await page.route('**/ui/api/**', (route) => route.abort('connectionrefused'));
    await page.click('#sync-now');
    await expect.poll(() => page.textContent('#sync-message')).toBe('Could not reach the server.');
    expect(await page.textContent('#sync-now')).toBe('Sync now');
    await page.reload();
    await expect.poll(() => page.isVisible('#page-message')).toBe(true);
    expect(await page.textContent('#page-message-text')).toBe('Could not reach the server.');
    await page.unroute('**/ui/api/**');
    await page.click('#retry');
    await page.locator('#dashboard').waitFor();
    expect(await page.isVisible('#page-message')).toBe(false);

    // Signed out in another tab: this one leaves the data too.
    const other = await context.newPage();
    await other.goto(`${ui.url}/`);
    await other.locator('#dashboard').waitFor();
    await other.click('#sign-out');
    await expect.poll(() => page.isVisible('#signin')).toBe(true);
    expect(await page.textContent('#signin-error')).toBe('You signed out in another tab.');
    expect(await page.locator('#transactions tr').count()).toBe(0);
    await context.close();
  }, 60_000);

  it('shows a read-only key the data with the sync button disabled', async () => {
    const { context, page, errors } = await open();
    await signIn(page, t.keys.aliceReadOnly);
    await page.locator('#dashboard').waitFor();
    expect(await page.locator('#accounts .account').count()).toBeGreaterThan(0);
    expect(await page.isDisabled('#sync-now')).toBe(true);
    expect(await page.getAttribute('#sync-now', 'title')).toContain('read-only');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
