/**
 * The lookup lists answer in the service's shapes (Sure's accounts and categories views, its merchants
 * and tags controllers): the accounts and categories paged, the merchants and tags a bare array, every
 * key the service renders, balances as the service states them. A Sure client reads them as they come.
 */
import { negateDecimal, toAmountCents } from '@finsync/provider';
import { ServiceClient } from '@finsync/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountCollectionSchema,
  CategoryCollectionSchema,
  RenderedMerchantSchema,
  RenderedTagSchema,
} from '../src/contract.js';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';

interface ListedAccount {
  id: string;
  name: string;
  balance: string | null;
  balance_cents: number | null;
  cash_balance: string | null;
  cash_balance_cents: number | null;
  currency: string | null;
  classification: 'asset' | 'liability';
  account_type: string;
  status: string;
  institution_name: string | null;
  state: string;
}

/** The digits of a display amount, signed: "-£1,234.56" → -123456, "¥5,000" → 5000. */
const centsShown = (text: string) => Number(text.replace(/[^\d-]/g, ''));

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`the lookup lists in the service's shapes ${backend.title}`, () => {
    let t: TestServer;
    const get = (path: string) => t.request(t.keys.alice, 'GET', path);

    beforeAll(async () => {
      t = await startTestServer(backend);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('lists each account with the balance the bank gives, formatted and in cents, an owed card as owed', async () => {
      const { status, body } = await get('/api/v1/accounts?include_disabled=true');
      expect(status).toBe(200);
      expect(() => AccountCollectionSchema.parse(body)).not.toThrow();
      const accounts = body.accounts as ListedAccount[];
      const sandbox = t.server.runtime.sandbox!;
      const listed = sandbox.listAccounts();
      expect(accounts.map((a) => a.name).sort()).toEqual(listed.map((a) => a.name).sort());
      for (const bank of listed) {
        const account = accounts.find((a) => a.name === bank.name)!;
        expect(account.institution_name, bank.name).toBe(bank.institutionName);
        if (bank.status !== 'ACTIVE') {
          expect(account, bank.name).toMatchObject({ status: 'disabled', state: 'inactive' });
          continue;
        }
        expect(account.status, bank.name).toBe('active');
        const { amount, currency } = sandbox.balanceOf(bank.id);
        const owed = account.classification === 'liability';
        expect(owed, bank.name).toBe(bank.profile === 'credit-card');
        const cents = Number(toAmountCents(owed ? negateDecimal(amount) : amount, currency));
        expect(account, bank.name).toMatchObject({ currency, balance_cents: cents });
        expect(centsShown(account.balance!), bank.name).toBe(cents);
        if (account.account_type === 'investment') {
          expect(account, bank.name).toMatchObject({ cash_balance: null, cash_balance_cents: null });
        } else {
          expect(account, bank.name).toMatchObject({
            cash_balance: account.balance,
            cash_balance_cents: cents,
          });
        }
      }
      const card = accounts.find((a) => a.name === 'Credit Card')!;
      // The sandbox's card is owed: the bank lists it below zero, the service above.
      expect(Number(sandbox.balanceOf(listed.find((a) => a.name === 'Credit Card')!.id).amount)).toBeLessThan(
        0,
      );
      expect(card.balance_cents).toBeGreaterThan(0);
      expect(card.balance).toMatch(/^£[\d,]+\.\d{2}$/);
    });

    it('leaves out the accounts it no longer syncs unless include_disabled, and pages as the service', async () => {
      const every = (await get('/api/v1/accounts?include_disabled=1')).body.accounts as ListedAccount[];
      const shown = (await get('/api/v1/accounts')).body;
      expect(shown.accounts).toEqual(every.filter((a) => a.status === 'active'));
      expect(shown.accounts.length).toBeLessThan(every.length);
      expect((await get('/api/v1/accounts?include_disabled=false')).body).toEqual(shown);
      expect(shown.pagination).toEqual({
        page: 1,
        per_page: 25,
        total_count: shown.accounts.length,
        total_pages: 1,
      });

      const walked: ListedAccount[] = [];
      for (let page = 1; page <= 3; page++) {
        const answer = (await get(`/api/v1/accounts?per_page=3&page=${page}`)).body;
        expect(answer.pagination).toMatchObject({ page, per_page: 3, total_count: shown.accounts.length });
        walked.push(...answer.accounts);
      }
      expect(walked).toEqual(shown.accounts);
      // Past the end, the last page, and `page` says which (Pagy's overflow: :last_page).
      const past = (await get('/api/v1/accounts?per_page=3&page=99')).body;
      expect(past.pagination.page).toBe(Math.ceil(shown.accounts.length / 3));
      expect(past.accounts).toEqual(shown.accounts.slice((past.pagination.page - 1) * 3));
      // A page size the service does not take is its default, as there; a page that is no number is a 400.
      expect((await get('/api/v1/accounts?per_page=500')).body.pagination.per_page).toBe(25);
      expect((await get('/api/v1/accounts?page=x')).status).toBe(400);
    });

    it('dates an account when it changes, not at every sync', async () => {
      const stored = async () =>
        new Map((await t.server.runtime.store.listAccounts(t.users.alice)).map((a) => [a.name, a]));
      const before = await stored();
      await t.server.runtime.syncUser(t.users.alice);
      const again = await stored();
      for (const [name, account] of before) expect(again.get(name), name).toEqual(account);

      t.server.runtime.sandbox!.advanceDays(1);
      await t.server.runtime.syncUser(t.users.alice);
      const after = await stored();
      const moved = [...after.values()].filter((a) => a.balance !== before.get(a.name)!.balance);
      expect(moved.length).toBeGreaterThan(0);
      for (const account of after.values()) {
        const old = before.get(account.name)!;
        expect(account.created_at, account.name).toBe(old.created_at);
        if (moved.includes(account)) expect(account.updated_at > old.updated_at, account.name).toBe(true);
        else expect(account.updated_at, account.name).toBe(old.updated_at);
      }
    });

    it('pages the categories, and lists the merchants and tags as bare arrays, by name', async () => {
      const categories = await get('/api/v1/categories?per_page=5');
      expect(() => CategoryCollectionSchema.parse(categories.body)).not.toThrow();
      expect(categories.body.pagination).toEqual({ page: 1, per_page: 5, total_count: 8, total_pages: 2 });
      const rest = (await get('/api/v1/categories?per_page=5&page=2')).body.categories;
      const names = [...categories.body.categories, ...rest].map((c: { name: string }) => c.name);
      expect(names).toHaveLength(8);
      expect(names).toEqual([...names].sort());

      const merchants = (await get('/api/v1/merchants')).body;
      expect(Array.isArray(merchants)).toBe(true);
      expect(merchants.length).toBeGreaterThan(0);
      for (const merchant of merchants) expect(() => RenderedMerchantSchema.parse(merchant)).not.toThrow();
      const used = (await get('/api/v1/transactions?per_page=100')).body.transactions
        .map((row: { merchant: { name: string } | null }) => row.merchant?.name)
        .filter(Boolean);
      for (const name of used) expect(merchants.map((m: { name: string }) => m.name)).toContain(name);

      const created = await t.request(t.keys.alice, 'POST', '/api/v1/tags', { tag: { name: 'Holiday' } });
      expect(created.status).toBe(201);
      expect(() => RenderedTagSchema.parse(created.body)).not.toThrow();
      const tags = (await get('/api/v1/tags')).body;
      expect(Array.isArray(tags)).toBe(true);
      expect(tags).toContainEqual(created.body);
      expect((await t.request(t.keys.bob, 'GET', '/api/v1/tags')).body).not.toContainEqual(created.body);
    });

    it('is read whole by the service client, page after page', async () => {
      const client = new ServiceClient({ baseUrl: t.server.url, apiKey: t.keys.alice, maxRetries: 0 });
      const accounts = [];
      for await (const account of client.accounts.list({ per_page: 2, include_disabled: true }))
        accounts.push(account);
      expect(accounts.map((a) => a.id)).toEqual(
        (await get('/api/v1/accounts?include_disabled=true')).body.accounts.map((a: ListedAccount) => a.id),
      );
      const card = accounts.find((a) => a.name === 'Credit Card')!;
      expect(card).toMatchObject({ classification: 'liability', status: 'active' });
      expect(card.balance_cents).toBeGreaterThan(0);
      const categories = [];
      for await (const category of client.categories.list({ per_page: 3 })) categories.push(category);
      expect(categories).toHaveLength(8);
      expect((await client.merchants.list()).length).toBe((await get('/api/v1/merchants')).body.length);
      expect((await client.tags.list()).map((tag) => tag.name)).toContain('Holiday');
    });
  });
}
