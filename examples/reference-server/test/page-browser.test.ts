/**
 * The page in a real browser (Debian's Chromium, headless): what a user sees and does, the key kept
 * out of every place script can read, and how the page behaves when the server cannot be reached.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../src/money-format.js';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';
import { startUi } from './page-ui.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

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

    // Every account, those no longer synced too; each balance as the bank gives it (an owed card below
    // zero, where the API states it as owed), in the API's format with a real minus sign.
    const { accounts } = (await t.request(key, 'GET', '/api/v1/accounts?include_disabled=true')).body as {
      accounts: Array<{ name: string }>;
    };
    const stored = await t.server.runtime.store.listAccounts(t.users.alice);
    expect(stored.map((a) => a.name)).toEqual(accounts.map((a) => a.name));
    const shown = page.locator('#accounts .account');
    expect(await shown.count()).toBe(accounts.length);
    const accountsText = await page.textContent('#accounts');
    for (const a of stored) {
      expect(accountsText).toContain(a.name);
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

  it('keeps sign-out at hand when the first load after sign-in fails, and clears a failed load once one succeeds', async () => {
    const { context, page, errors } = await open();
    // The first overview is refused as an exhausted rate limit would refuse it.
    let refused = 0;
    await page.route('**/ui/api/overview*', (route) =>
      refused++ === 0
        ? route.fulfill({
            status: 429,
            contentType: 'application/json',
            body: JSON.stringify({ error: 'rate_limit_exceeded', message: 'Rate limit exceeded.' }),
          })
        : route.continue(),
    );
    await signIn(page, t.keys.alice);
    await expect.poll(() => page.isVisible('#page-message')).toBe(true);
    expect(await page.textContent('#page-message-text')).toBe('Rate limit exceeded.');
    // Signed in: no form that looks as if the sign-in failed, and a way to sign out.
    expect(await page.isVisible('#signin')).toBe(false);
    expect(await page.isVisible('#sign-out')).toBe(true);
    await page.click('#retry');
    await page.locator('#dashboard').waitFor();
    await page.unroute('**/ui/api/overview*');

    // A load that fails leaves the account shown before as the chosen one; the next that succeeds
    // takes its error away.
    const accounts = page.locator('#accounts .account');
    const chosen = await page
      .locator('#accounts .account[aria-pressed=true]')
      .getAttribute('data-account-id');
    const other = (await accounts.nth(0).getAttribute('data-account-id')) === chosen ? 1 : 0;
    await page.route('**/ui/api/overview*', (route) => route.abort('connectionrefused'));
    await accounts.nth(other).click();
    await expect.poll(() => page.textContent('#sync-message')).toBe('Could not reach the server.');
    await page.unroute('**/ui/api/overview*');
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect.poll(() => page.isVisible('#sync-message')).toBe(false);
    expect(await page.locator('#accounts .account[aria-pressed=true]').getAttribute('data-account-id')).toBe(
      chosen,
    );
    expect(errors.filter((e) => !/429|ERR_CONNECTION_REFUSED/.test(e))).toEqual([]);
    await context.close();
  }, 60_000);

  it('leaves the data off the page when a look answers after the sign-out, and looks no more', async () => {
    const { context, page } = await open();
    let late: (() => void) | undefined;
    const looks: number[] = [];
    await page.route('**/ui/api/overview*', async (route) => {
      const response = await route.fetch();
      looks.push(response.status());
      const body = (await response.json().catch(() => null)) as { connection?: { syncing: boolean } } | null;
      // A sync under way, as in a long run: the page looks again every 5 s.
      if (body?.connection) body.connection.syncing = true;
      // The look asked for before the sign-out answers after it.
      if (late === undefined && looks.length === 2) await new Promise<void>((resolve) => (late = resolve));
      await route.fulfill({ response, ...(body ? { json: body } : {}) });
    });
    await signIn(page, t.keys.alice);
    await page.locator('#dashboard').waitFor();
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect.poll(() => late !== undefined).toBe(true);
    await page.click('#sign-out');
    await page.locator('#signin').waitFor();
    late!();
    await page.waitForTimeout(6_000);
    expect(await page.isVisible('#dashboard')).toBe(false);
    expect(await page.locator('#transactions tr').count()).toBe(0);
    expect(looks).toHaveLength(2);
    await context.close();
  }, 60_000);

  it("does not say a sync's outcome that arrives after the sign-out", async () => {
    const { context, page } = await open();
    let finish: (() => void) | undefined;
    await page.route('**/ui/api/sync', async (route) => {
      const response = await route.fetch();
      await new Promise<void>((resolve) => (finish = resolve));
      await route.fulfill({ response });
    });
    await signIn(page, t.keys.alice);
    await page.locator('#dashboard').waitFor();
    await page.click('#sync-now');
    await expect.poll(() => finish !== undefined).toBe(true);
    await page.click('#sign-out');
    await page.locator('#signin').waitFor();
    finish!();
    await page.waitForTimeout(1_000);
    expect(await page.isVisible('#dashboard')).toBe(false);
    expect(await page.textContent('#sync-message')).not.toMatch(/Sync finished/);
    await context.close();
  }, 60_000);

  it("fits a bank's long account name and a long user name, and says when the bank stopped an account", async () => {
    const { context, page } = await open();
    const longName = 'CURRENT-ACCOUNT-'.repeat(20);
    await page.route('**/ui/api/overview*', async (route) => {
      const answer = await route.fetch();
      const data = await answer.json();
      data.transactions[0].account = longName;
      data.accounts[0].state = 'inactive';
      data.user.name = `${'firstname.lastname'.repeat(3)}@example.org`;
      await route.fulfill({ response: answer, json: data });
    });
    await signIn(page, t.keys.alice);
    await page.locator('#dashboard').waitFor();
    const widths = await page.evaluate(() => {
      const table = document.getElementById('transactions-table')!;
      return { table: table.scrollWidth, box: table.parentElement!.clientWidth };
    });
    expect(widths.table).toBeLessThanOrEqual(widths.box);
    expect(await page.getAttribute('#transactions tr:first-child .account-column', 'title')).toBe(longName);
    expect(await page.textContent('#accounts li:first-child .state')).toContain('inactive');
    await page.screenshot({ path: join(ARTIFACTS, 'page-long-names.png'), fullPage: true });
    // A phone: the long user name wraps in the header instead of widening the page.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(ARTIFACTS, 'page-long-names-phone.png') });
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
