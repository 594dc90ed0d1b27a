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
import { inferAccountType } from '../src/feed.js';
import { renderAccount } from '../src/render-lookups.js';
import { SANDBOX, startReferenceServer, type RunningServer } from '../src/server.js';
import type { SqliteAppStore } from '../src/store/sqlite.js';
import { createUser } from '../src/users.js';
import { BACKENDS, startTestServer, testDatabase, withClient, type TestServer } from './helpers.js';

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

describe('an account read as a liability', () => {
  const typeOf = (name: string, provider: string | null = 'gocardless') =>
    inferAccountType({ name, provider } as Parameters<typeof inferAccountType>[0]);

  it('is one whose name says a loan or a card last, after the bank (a debit card is cash, a credit union no credit)', () => {
    for (const card of [
      'Credit Card',
      'Travel Card',
      'Navy Federal Credit Union Visa Signature',
      'Savings Plus Credit Card',
      'Amex Platinum',
      'Tarjeta de crédito',
      'Kreditkarte',
      'Clubcard Credit Card',
    ])
      expect(typeOf(card), card).toBe('credit_card');
    for (const loan of [
      'Home Mortgage',
      'Student Loan',
      'ANZ Homeloan',
      'Savings Secured Loan',
      'Credit Union Auto Loan',
      'Checking Line of Credit',
      'Prêt immobilier',
    ])
      expect(typeOf(loan), loan).toBe('loan');
    // The bank's name comes first and may hold a card's, credit's or loan's word: the kind is said last.
    for (const cash of [
      'Alliant Credit Union Checking',
      'Monzo Debit Card',
      'Revolut Prepaid Card',
      'Visa Debit',
      'Current Account',
      'Cash ISA',
      "Lisa's account",
      'American Express High Yield Savings',
      'Crédit Agricole Compte Courant',
      'Crédit Mutuel Livret A',
      'Deutsche Kreditbank Girokonto',
      'Clubcard Plus Current Account',
      'Cardinal Bank Checking',
      'Apple Card Savings',
      'Visa Signature Rewards Checking',
      'Sloane Square Current Account',
      'Schwab Bank Investor Checking',
      'Chase Sapphire',
    ])
      expect(typeOf(cash), cash).toBe('depository');
    expect(typeOf('Stocks ISA')).toBe('investment');
    expect(typeOf('Anything', 'snaptrade')).toBe('investment');
  });

  it('shows a debit card in credit as money held, and an owed card as owed', () => {
    const account = (name: string, balance: string) =>
      renderAccount({
        id: '00000000-0000-4000-8000-000000000000',
        user_id: 'u',
        provider_account_id: '1',
        name,
        account_type: typeOf(name),
        currency: 'USD',
        balance,
        state: 'active',
        institution_name: null,
        created_at: '2026-01-02T03:04:05.678Z',
        updated_at: '2026-01-02T03:04:05.678Z',
      });
    expect(account('Monzo Debit Card', '2500.00')).toMatchObject({
      classification: 'asset',
      balance: '$2,500.00',
      balance_cents: 250000,
    });
    expect(account('Credit Card', '-412.07')).toMatchObject({
      classification: 'liability',
      balance: '$412.07',
      balance_cents: 41207,
    });
    // A card in credit (overpaid): the bank owes the holder, so less than nothing is owed.
    expect(account('Credit Card', '50.00')).toMatchObject({ balance: '-$50.00', balance_cents: -5000 });
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`an account row of an older release ${backend.title}`, () => {
    it('gets what that release did not keep at the next start, without waiting for the account to change', async () => {
      const db = testDatabase(backend);
      const open = () =>
        startReferenceServer({
          dataDir: db.dataDir,
          database: db.database,
          port: 0,
          scheduler: false,
          sandbox: { seed: 5, historyDays: 20, transactionsPerDay: 2 },
        });
      let server: RunningServer | undefined;
      try {
        server = await open();
        const user = await createUser(server.runtime.store, 'carol');
        await server.runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
        await server.runtime.syncUser(user.id);
        const banks = new Map(server.runtime.sandbox!.listAccounts().map((a) => [a.name, a.institutionName]));
        // As migration 8 leaves the rows of a database made before it.
        if (backend.kind === 'postgres')
          await withClient((client) =>
            client.query(`UPDATE "${db.schemas[1]}".app_accounts SET institution_name = NULL`),
          );
        else
          (server.runtime.store as SqliteAppStore).database.exec(
            'UPDATE app_accounts SET institution_name = NULL',
          );
        const before = await server.runtime.store.listAccounts(user.id);
        expect(before.map((a) => a.institution_name)).toEqual(before.map(() => null));

        await server.close();
        server = await open();
        const after = await server.runtime.store.listAccounts(user.id);
        expect(after.map((a) => a.name)).toEqual(before.map((a) => a.name));
        for (const account of after)
          expect(account.institution_name, account.name).toBe(banks.get(account.name));
        // Every start after that finds nothing to write: the rows keep their times.
        await server.close();
        server = await open();
        expect(await server.runtime.store.listAccounts(user.id)).toEqual(after);
      } finally {
        await server?.close().catch(() => undefined);
        await db.cleanup();
      }
    });
  });

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
      // A page size above the service's 100 is 100 (its base controller), one below 1 its default 25;
      // a page that is no number is a 400.
      expect((await get('/api/v1/accounts?per_page=500')).body.pagination.per_page).toBe(100);
      expect((await get('/api/v1/accounts?per_page=0')).body.pagination.per_page).toBe(25);
      expect((await get('/api/v1/categories?per_page=500')).body.pagination.per_page).toBe(25);
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

      // Categories have no parents here: a parent's subcategories are none, as the service answers.
      const roots = (await get('/api/v1/categories?roots_only=true&per_page=100')).body;
      expect(roots.pagination.total_count).toBe(8);
      const parent = categories.body.categories[0].id;
      expect((await get(`/api/v1/categories?parent_id=${parent}`)).body).toEqual({
        categories: [],
        pagination: { page: 1, per_page: 25, total_count: 0, total_pages: 1 },
      });
      expect((await get('/api/v1/categories?parent_id=%20')).body.pagination.total_count).toBe(8);

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

    it('is described in the OpenAPI document, each item a named schema', async () => {
      const doc = (await get('/api/v1/openapi.json')).body;
      const schemas = doc.components.schemas;
      for (const name of [
        'Account',
        'AccountCollection',
        'Category',
        'CategoryCollection',
        'Merchant',
        'Tag',
      ])
        expect(schemas[name], name).toBeDefined();
      expect(schemas.AccountCollection.properties.accounts.items).toEqual({
        $ref: '#/components/schemas/Account',
      });
      expect(schemas.CategoryCollection.properties.categories.items).toEqual({
        $ref: '#/components/schemas/Category',
      });
      expect(schemas.Account.additionalProperties).toBe(false);
      const listed = doc.paths['/api/v1/merchants'].get.responses['200'].content['application/json'].schema;
      expect(listed).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Merchant' } });
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
