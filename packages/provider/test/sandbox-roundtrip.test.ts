import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { ProviderClient, toDecimalString, type Transaction } from '../src/index.js';
import { createBareHostRedirectHandlers, createProviderHandlers, SandboxProvider } from '../src/msw.js';

const server = useMswServer();

async function snapshot(client: ProviderClient) {
  const accounts = await client.listAccounts();
  const result: Record<string, { balance: unknown; transactions: Transaction[]; holdings: unknown }> = {};
  for (const account of accounts.filter((a) => a.status === 'ACTIVE')) {
    result[account.id] = {
      balance: await client.getBalance(account.id),
      transactions: await client
        .listTransactions(account.id, { from: '2026-05-01', to: '2026-06-30', includePending: true })
        .toArray({ limit: 10_000 }),
      holdings: await client.getHoldings(account.id),
    };
  }
  return { accounts, result };
}

describe('the client against the sandbox', () => {
  it('reads every wire variant of the same data into the same model, equal to the ground truth', async () => {
    const canonical = new SandboxProvider({ seed: 9, historyDays: 90 });
    const variants = new SandboxProvider({ seed: 9, historyDays: 90, wireVariants: true });
    const client = (baseUrl: string, timeZone?: string) =>
      new ProviderClient({
        apiKey: 'sandbox-key',
        baseUrl,
        rateLimit: false,
        maxRetries: 0,
        ...(timeZone ? { timeZone } : {}),
      });
    server.use(
      ...createProviderHandlers(canonical, { baseUrl: 'https://canonical.test/api/v1' }),
      ...createProviderHandlers(variants, { baseUrl: 'https://variants.test/api/v1' }),
    );
    const a = await snapshot(client('https://canonical.test/api/v1'));
    const b = await snapshot(client('https://variants.test/api/v1'));
    expect(b).toEqual(a);
    // The variants write a date as midnight UTC or as unix seconds: read in a zone west of UTC (or
    // east), each is still its day, not the evening before.
    for (const zone of ['America/New_York', 'Asia/Tokyo'])
      expect(await snapshot(client('https://variants.test/api/v1', zone)), zone).toEqual(a);

    for (const account of canonical.listAccounts().filter((x) => x.status === 'ACTIVE')) {
      const truth = [
        ...canonical.transactionsOf(account.id, {
          from: '2026-05-01',
          to: '2026-06-30',
          includePending: true,
        }),
      ];
      const got = a.result[account.id]!.transactions;
      const sig = (t: { id: string | null; amount: string; date: string; isPending: boolean }) =>
        `${t.id}|${toDecimalString(t.amount)}|${t.date}|${t.isPending}`;
      expect(got.map(sig).sort()).toEqual(truth.map(sig).sort());
      expect(a.result[account.id]!.balance).toMatchObject({
        amount: toDecimalString(canonical.balanceOf(account.id).amount),
      });
    }
  });

  it('walks a capped sandbox window by window and still gets every row', async () => {
    const sandbox = new SandboxProvider({ seed: 3, historyDays: 60, maxRowsPerResponse: 20 });
    server.use(...createProviderHandlers(sandbox));
    const client = new ProviderClient({
      apiKey: 'sandbox-key',
      rateLimit: false,
      maxRetries: 0,
      windowDays: 30,
    });
    const got = await client
      .listTransactions(4711, { from: '2026-05-01', includePending: true, to: '2026-06-30' })
      .toArray({ limit: 10_000 });
    expect(got).toHaveLength(sandbox.countTransactions(4711, { from: '2026-05-01', includePending: true }));
  });

  it('follows the bare host redirect to the sandbox', async () => {
    const sandbox = new SandboxProvider();
    server.use(...createBareHostRedirectHandlers(), ...createProviderHandlers(sandbox));
    const client = new ProviderClient({
      apiKey: 'sandbox-key',
      baseUrl: 'https://lunchflow.app/api/v1',
      rateLimit: false,
    });
    expect((await client.listAccounts()).length).toBe(sandbox.listAccounts().length);
  });
});
