/**
 * An engine on `MemoryStorage` over a real `ProviderClient` whose provider a test writes by hand:
 * one GBP account (4711) whose transactions are whatever `transactions(url)` answers. For the wire
 * shapes the sandbox does not make (rows without a currency, a provider that filters by date).
 */
import { ProviderClient } from '@finsync/provider';
import { MemoryStorage, SyncEngine, type SyncTuning } from '../src/index.js';

function listed(accounts: unknown[]) {
  return { accounts, total: accounts.length };
}

export async function engineOverCraftedProvider(
  transactions: (url: URL) => unknown,
  options: {
    today: string;
    accountCurrency?: string;
    /** The `/balance` answer (a `Response` is sent as it is); a GBP balance of 0 when left out. */
    balance?: () => unknown;
    /** The `/holdings` answer (a `Response` is sent as it is); none when left out. */
    holdings?: () => unknown;
    /** The `/accounts` list; the one active account 4711 when left out. */
    accounts?: () => unknown[];
    /** Engine tuning (`startDate`, `includePending`, …). */
    tuning?: Partial<SyncTuning>;
  },
) {
  const today = { date: options.today };
  const asked: URL[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    asked.push(url);
    const path = url.pathname.replace(/^.*\/api\/v1\//, '');
    const account = { id: 4711, name: 'Current', institution_name: 'Bank', status: 'ACTIVE' };
    const body =
      path === 'accounts'
        ? listed(options.accounts?.() ?? [{ ...account, currency: options.accountCurrency }])
        : path.endsWith('/balance')
          ? (options.balance?.() ?? { balance: { amount: 0, currency: 'GBP' } })
          : path.endsWith('/holdings')
            ? (options.holdings?.() ?? { holdings: [], totalValue: 0 })
            : transactions(url);
    if (body instanceof Response) return body;
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const storage = new MemoryStorage();
  const engine = new SyncEngine({
    ...options.tuning,
    storage,
    clock: { now: () => new Date(`${today.date}T12:00:00Z`), today: () => today.date },
  });
  await engine.addConnection({
    id: 'c1',
    client: new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0, fetch }),
  });
  /** The `from` of the last transactions request. */
  const lastFrom = () =>
    asked
      .filter((u) => u.pathname.endsWith('/transactions'))
      .at(-1)!
      .searchParams.get('from');
  return { engine, storage, today, asked, lastFrom };
}

/** A transaction as a crafted provider lists it (account, currency and, unless given, description filled in). */
export interface WireRow {
  id: string | null;
  amount: number;
  date: string;
  merchant: string | null;
  description?: string | null;
  isPending: boolean;
}

/**
 * The `transactions` answer of a provider that lists the GBP rows of `rows` dated between the asked
 * `from` and `to`, as a real one does (read when asked: a test may change `rows` between syncs).
 */
export function listedBetweenAskedDates(rows: ReadonlyArray<{ date: string }>) {
  return (url: URL) => {
    const from = url.searchParams.get('from') ?? '0000-00-00';
    const to = url.searchParams.get('to') ?? '9999-99-99';
    const listed = rows.filter((r) => r.date >= from && r.date <= to);
    return {
      transactions: listed.map((r) => ({ accountId: 4711, currency: 'GBP', description: null, ...r })),
      total: listed.length,
    };
  };
}
