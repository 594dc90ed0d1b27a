/**
 * Two first syncs of one connection into one database at once (a cron `finsync sync` beside `watch`,
 * two servers, no leases): whatever the two runs' kept sums lost to each other, the balance check's
 * first anchor is taken on the rows stored, so the opening balances are those of a sync alone.
 */
import { SandboxProvider, startSandboxServer } from '@finsync/provider/sandbox';
import { SyncEngine } from '@finsync/sync';
import { describe, expect, it } from 'vitest';
import { SqliteStorage } from '../src/index.js';
import { tempDatabase } from './helpers.js';

async function syncs(options: { concurrent: boolean }) {
  const sandbox = new SandboxProvider({ seed: 1, today: '2026-06-30', historyDays: 1500 });
  const server = await startSandboxServer(sandbox);
  const filename = tempDatabase();
  const warnings: string[] = [];
  const logger = { warn: (message: string) => warnings.push(message) };
  const engines = [0, 1].map(() => {
    const storage = new SqliteStorage({ filename });
    // Small commits, so the two runs' commits interleave.
    const engine = new SyncEngine({
      storage,
      clock: { today: () => sandbox.today },
      batchSize: 200,
      logger,
    });
    return { storage, engine };
  });
  try {
    for (const { engine } of engines)
      await engine.addConnection({
        id: 'c',
        apiKey: 'sandbox-key',
        clientOptions: { baseUrl: server.baseUrl, rateLimit: false, maxRetries: 0 },
      });
    const [a, b] = engines as [(typeof engines)[0], (typeof engines)[0]];
    const first = a.engine.sync('c');
    if (options.concurrent) {
      // The second begins once the first has committed rows: it counts them, then keeps its own sums.
      while ((await a.storage.countTransactions('c')) === 0) await new Promise((r) => setTimeout(r, 5));
      await b.engine.sync('c');
    }
    await first;
    for (let day = 0; day < 2; day += 1) {
      sandbox.advanceDays(1);
      await a.engine.sync('c');
    }
    const accounts = (await a.storage.listAccounts('c')).map((account) => ({
      account: account.id,
      status: account.reconciliation?.status,
      openingBalance: account.reconciliation?.openingBalance,
      historyFrom: account.reconciliation?.historyFrom,
    }));
    return { accounts, warnings };
  } finally {
    for (const { engine, storage } of engines) {
      await engine.stop();
      await storage.close();
    }
    await server.close();
  }
}

describe('two first syncs of one connection at once', () => {
  it('leave the opening balances of a sync alone', async () => {
    const alone = await syncs({ concurrent: false });
    expect(alone.accounts.some((a) => a.status === 'balanced')).toBe(true);
    // A sync alone counts as many rows as it stores: no recount.
    expect(alone.warnings).toEqual([]);
    const concurrent = await syncs({ concurrent: true });
    expect(concurrent.accounts).toEqual(alone.accounts);
  }, 60_000);
});
