/**
 * A provider whose answers carry text no database keeps as it is: NUL (PostgreSQL refuses it), lone
 * UTF-16 surrogates (SQLite and PostgreSQL store U+FFFD instead), an id of 3,000 characters (past
 * PostgreSQL's index rows), odd holding ids and, with `refuseKey`, an error message with a NUL. The storage tests
 * sync it into each store and compare with the memory storage: the data must be the same in all.
 * Its own entry (`@finsync/test-utils/odd-provider-text`): it needs the engine and the client, which
 * the main entry, loaded by those packages' own tests, must not.
 */
import { ProviderClient } from '@finsync/provider';
import { SyncEngine, type Storage } from '@finsync/sync';

/** A transaction id of 3,000 characters: hashed into its key, kept whole as `providerId`. */
export const LONG_TRANSACTION_ID = `tx_${'9'.repeat(3000)}`;
/** An account id of 3,000 characters: past `MAX_ACCOUNT_ID_LENGTH`, so the account is skipped. */
export const LONG_ACCOUNT_ID = `acc_${'7'.repeat(3000)}`;

const ROWS = [
  { id: 'tx_nul', merchant: 'ACME\u0000 LTD', description: 'CARD\u0000PAYMENT', date: '2026-06-01' },
  { id: LONG_TRANSACTION_ID, merchant: 'Kiosk', description: 'CARD PAYMENT', date: '2026-06-02' },
  { id: 'tx_\ud83d', merchant: 'CAFE \udc00', description: 'CARD \ud83d\ude00 PAYMENT', date: '2026-06-02' },
].map((row, i) => ({ ...row, accountId: 4711, amount: -(i + 1), currency: 'GBP', isPending: false }));

/** A position whose provider id (the holding's key) carries a lone surrogate. */
const HOLDING = {
  security: {
    name: 'World Index ETF',
    tickerSymbol: 'WIDX',
    currency: 'USD',
    figi: null,
    cusp: null,
    isin: null,
  },
  quantity: 12,
  price: 101.5,
  value: 1218,
  costBasis: null,
  currency: 'USD',
  raw: { plaid: { id: 'h1\ud83d' } },
};

/** A `fetch` answering the provider's four routes with odd text; with `refuseKey`, a 401 to every call. */
export function oddProviderTextFetch(options: { refuseKey?: boolean } = {}): typeof globalThis.fetch {
  return (async (input: string | URL | Request) => {
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (options.refuseKey) return json({ error: 'unauthorized', message: 'key\u0000 revoked \ud800' }, 401);
    const path = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname;
    if (path.endsWith('/accounts'))
      return json({
        accounts: [
          { id: 4711, name: 'Current\u0000 \ud800', institution_name: 'Bank', status: 'ACTIVE' },
          { id: LONG_ACCOUNT_ID, name: 'Broken', institution_name: 'Bank', status: 'ACTIVE' },
        ],
        total: 2,
      });
    if (path.endsWith('/balance')) return json({ balance: { amount: -6, currency: 'GBP' } });
    if (path.endsWith('/holdings'))
      return json({
        holdings: [HOLDING, { ...HOLDING, raw: { plaid: { id: 'h2\u0000' } } }],
        totalValue: 2436,
        currency: 'USD',
      });
    return json({ transactions: ROWS, total: ROWS.length });
  }) as typeof globalThis.fetch;
}

/** What a store holds after two syncs of the odd provider, and after a run refused with an odd message. */
export interface OddProviderTextResult {
  /** Each run's issues, as `stage: error name`. */
  issues: string[][];
  /** Each run's skipped accounts, as the error's name. */
  skipped: string[][];
  /** The holdings' keys after the second run. */
  holdingKeys: string[];
  /** The second run's added, modified and removed rows: `[0, 0, 0]` when the text came back as written. */
  againChanged: number[];
  transactions: {
    key: string;
    providerId: string | null;
    merchant: string | null;
    description: string | null;
  }[];
  accountNames: string[];
  /** The refused connection's status and reason. */
  refused: { status: string; statusReason: string | null } | undefined;
  lastSeqAfterAgain: number;
}

/**
 * Syncs the odd provider twice into `storage` (connection `c1`), then a connection `c2` whose key it
 * refuses, with an engine whose clock stands on 2026-06-03.
 */
export async function oddProviderTextRuns(storage: Storage): Promise<OddProviderTextResult> {
  const engine = new SyncEngine({
    storage,
    clock: { now: () => new Date('2026-06-03T12:00:00Z'), today: () => '2026-06-03' },
  });
  const addConnection = (id: string, fetch: typeof globalThis.fetch) =>
    engine.addConnection({
      id,
      client: new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0, fetch }),
    });
  await addConnection('c1', oddProviderTextFetch());
  const first = await engine.sync('c1');
  const again = await engine.sync('c1');
  const lastSeqAfterAgain = await storage.lastSeq();
  await addConnection('c2', oddProviderTextFetch({ refuseKey: true }));
  const refusedRun = await engine.sync('c2');
  const refused = await storage.getConnection('c2');
  return {
    issues: [first, again, refusedRun].map((run) => run.issues.map((i) => `${i.stage}: ${i.error.name}`)),
    skipped: [first, again, refusedRun].map((run) => run.skippedAccounts.map((s) => s.error.name)),
    holdingKeys: (await storage.listHoldings('c1', '4711')).map((h) => h.key),
    againChanged: again.accounts.flatMap((a) => [a.added, a.modified, a.removed]),
    transactions: (await storage.findTransactions('c1', '4711')).map(
      ({ key, providerId, merchant, description }) => ({ key, providerId, merchant, description }),
    ),
    accountNames: (await storage.listAccounts('c1')).map((a) => a.name),
    refused: refused && { status: refused.status, statusReason: refused.statusReason },
    lastSeqAfterAgain,
  };
}
