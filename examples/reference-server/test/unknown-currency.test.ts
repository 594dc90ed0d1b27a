/**
 * An account whose currency nobody has said yet: `/accounts` leaves it out, the rows are listed
 * without one, and its balance fails. Its rows are shown in XXX meanwhile; what the user does to them
 * then must still hold once a balance says the account is in JPY.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningServer } from '../src/server.js';
import { createApiKey, createUser } from '../src/users.js';

interface WireRow {
  id: string | null;
  amount: number;
  currency?: string;
  date: string;
  merchant: string;
  description: string;
  isPending: boolean;
}

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** A provider with one account: its rows are `rows`, its balance fails until `balance` is set. */
async function provider() {
  const state = {
    rows: [] as WireRow[],
    balance: undefined as { amount: number; currency: string } | undefined,
  };
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url!, 'http://x').pathname.replace(/^.*\/api\/v1\//, '');
    let status = 200;
    let body: unknown;
    if (path === 'accounts')
      body = {
        accounts: [{ id: 4711, name: 'Current', institution_name: 'Bank', status: 'ACTIVE' }],
        total: 1,
      };
    else if (path.endsWith('/balance')) {
      if (state.balance) body = { balance: state.balance };
      else [status, body] = [400, { error: 'bad_request', message: 'balance unavailable' }];
    } else if (path.endsWith('/holdings')) body = { holdings: [], totalValue: 0 };
    else
      body = {
        transactions: state.rows.map((row) => ({ accountId: 4711, ...row })),
        total: state.rows.length,
      };
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { state, server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1` };
}

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function setUp() {
  const upstream = await provider();
  const dataDir = makeTempDir('unknown-currency');
  let server: RunningServer;
  try {
    server = await startReferenceServer({
      dataDir,
      port: 0,
      sandbox: false,
      scheduler: false,
      allowedProviderBaseUrls: [upstream.baseUrl],
    });
  } catch (error) {
    upstream.server.close();
    removeTempDir(dataDir);
    throw error;
  }
  closers.push(async () => {
    await server.close();
    upstream.server.close();
    removeTempDir(dataDir);
  });
  const { store } = server.runtime;
  const user = await createUser(store, 'alice');
  const { key } = await createApiKey(store, user.id, { name: 'test' });
  await server.runtime.setProviderKey(user.id, 'k_test', upstream.baseUrl);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const sync = () => server.runtime.syncUser(user.id);
  const shown = async (query = '') =>
    (await call('GET', `/api/v1/transactions?per_page=100${query}`)).body.transactions as any[];
  return { upstream, call, sync, shown };
}

const sushi = (overrides: Partial<WireRow>): WireRow => ({
  id: null,
  amount: -1500,
  date: daysAgo(2),
  merchant: 'Sushi Bar',
  description: 'Pending',
  isPending: true,
  ...overrides,
});

describe('an account whose currency is not known yet', () => {
  it("keeps the user's edits on a hold when its posting arrives in the currency a balance then gives", async () => {
    const { upstream, call, sync, shown } = await setUp();
    upstream.state.rows = [sushi({})];
    await sync();
    const [hold] = await shown();
    expect(hold.currency).toBe('XXX');
    expect(
      (await call('PATCH', `/api/v1/transactions/${hold.id}`, { transaction: { notes: 'with Sam' } })).status,
    ).toBe(200);
    upstream.state.rows = [
      sushi({ id: 'tx9', currency: 'JPY', date: daysAgo(1), description: 'SUSHI BAR', isPending: false }),
    ];
    upstream.state.balance = { amount: -1500, currency: 'JPY' };
    await sync();
    const after = await shown();
    expect(after.map((t) => [t.id, t.notes, t.currency, t.amount_cents])).toEqual([
      [hold.id, 'with Sam', 'JPY', 1500],
    ]);
  });

  it("stores the user's amount in the currency the row learns, so it reads back and filters as shown", async () => {
    const { upstream, call, sync, shown } = await setUp();
    upstream.state.rows = [sushi({ id: 'tx1', isPending: false, description: 'SUSHI BAR' })];
    await sync();
    const [row] = await shown();
    expect(
      (await call('PATCH', `/api/v1/transactions/${row.id}`, { transaction: { amount: '12.34' } })).status,
    ).toBe(200);
    upstream.state.balance = { amount: -1500, currency: 'JPY' };
    await sync();
    const [now] = await shown();
    expect([now.currency, now.amount_cents]).toEqual(['JPY', 12]);
    expect((await shown('&min_amount=12&max_amount=12')).map((t) => t.id)).toEqual([row.id]);
    // What is shown can be sent back as it is.
    expect(
      (await call('PATCH', `/api/v1/transactions/${row.id}`, { transaction: { amount: '12' } })).status,
    ).toBe(200);
  });

  it('takes a new transaction only with a currency, which no later balance would change', async () => {
    const { call, sync, shown } = await setUp();
    await sync();
    const accounts = (await call('GET', '/api/v1/accounts')).body.accounts as Array<{ id: string }>;
    const transaction = { account_id: accounts[0]!.id, name: 'Cash', amount: '5', date: daysAgo(1) };
    const refused = await call('POST', '/api/v1/transactions', { transaction });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.join(' ')).toContain("the account's currency is not known yet");
    expect(await shown()).toEqual([]);
    const created = await call('POST', '/api/v1/transactions', {
      transaction: { ...transaction, currency: 'JPY' },
    });
    expect([created.status, created.body.currency]).toEqual([201, 'JPY']);
  });
});
