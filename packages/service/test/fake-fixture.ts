import { useMswServer } from '@finsync/test-utils';
import { ServiceClient, type ServiceClientOptions } from '../src/index.js';
import { FakeServiceStore, createServiceHandlers, type FakeServiceOptions } from '../src/msw.js';
import { BASE, KEY, READ_KEY } from './helpers.js';

export const NOW = new Date('2026-05-10T12:00:00Z');

/** A store with one family: two keys, three accounts, categories, a merchant, tags, transactions. */
export function seedStore(now: () => Date = () => NOW) {
  const store = new FakeServiceStore(
    {
      apiKeys: [
        { key: KEY, scope: 'read_write' },
        { key: READ_KEY, scope: 'read' },
      ],
    },
    { now },
  );
  const checking = store.addAccount({ name: 'Everyday Checking', account_type: 'depository' });
  const card = store.addAccount({ name: 'Euro Card', account_type: 'credit_card', currency: 'EUR' });
  const closing = store.addAccount({ name: 'Old', account_type: 'depository', status: 'pending_deletion' });
  const groceries = store.addCategory({ name: 'Groceries', color: '#407706', icon: 'shopping-bag' });
  const dining = store.addCategory({ name: 'Dining' });
  const corner = store.addMerchant({ name: 'Corner Market' });
  const cafe = store.addMerchant({ name: 'Cafe' });
  const household = store.addTag({ name: 'Household' });
  const travel = store.addTag({ name: 'Travel', color: '#123456' });
  const market = store.addTransaction({
    account_id: checking.id,
    date: '2026-05-02',
    amount: '42.1',
    name: 'CORNER MARKET #12',
    notes: 'weekly shop',
    external_id: 'lunchflow_tx_9981',
    source: 'lunchflow',
    category_id: groceries.id,
    merchant_id: corner.id,
    tag_ids: [household.id],
    created_at: '2026-05-03T06:14:09Z',
    updated_at: '2026-05-04T19:01:55Z',
  });
  const salary = store.addTransaction({
    account_id: checking.id,
    date: '2026-05-01',
    amount: -1000,
    name: 'Salary',
  });
  const coffee = store.addTransaction({
    account_id: card.id,
    date: '2026-04-30',
    amount: '1234.56',
    name: 'Coffee beans',
  });
  const hidden = store.addTransaction({
    account_id: closing.id,
    date: '2026-05-01',
    amount: 5,
    name: 'Coffee hidden',
  });
  return {
    store,
    checking,
    card,
    closing,
    groceries,
    dining,
    corner,
    cafe,
    household,
    travel,
    market,
    salary,
    coffee,
    hidden,
  };
}

/** An MSW server serving the fake at BASE; `use(store, options)` swaps in a store per test. */
export function useFakeService() {
  const server = useMswServer();
  return {
    server,
    use(store: FakeServiceStore, options: Omit<FakeServiceOptions, 'baseUrl'> = {}) {
      server.use(...createServiceHandlers(store, { baseUrl: BASE, ...options }));
    },
  };
}

export const clientFor = (options: Partial<ServiceClientOptions> = {}) =>
  new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0, ...options });

/** A raw request to the fake, for bodies the client refuses to send. */
export async function raw(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { 'x-api-key': KEY },
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}
