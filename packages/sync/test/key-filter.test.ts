import { addDays } from '@finsync/provider';
import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { KeyFilter } from '../src/engine/key-filter.js';
import {
  MemoryStorage,
  type ConnectionReport,
  type MirrorTransaction,
  type TransactionQuery,
} from '../src/index.js';
import {
  BASE,
  createHarness,
  expectFeedReplaysToMirror,
  expectMirrorMatchesProvider,
  server,
  useMsw,
} from './harness.js';

useMsw();

describe('KeyFilter', () => {
  it('never forgets a key it was given', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 40 }), { maxLength: 300 }), (keys) => {
        const filter = new KeyFilter();
        for (const key of keys) filter.add(key);
        for (const key of keys) expect(filter.mayHave(key)).toBe(true);
      }),
    );
  });

  it('grows past its first size and says "maybe" to almost no key it was not given', () => {
    const filter = new KeyFilter();
    // Keys shaped like the engine's: the provider's id behind a prefix, differing in a few characters.
    const given = Array.from({ length: 200_000 }, (_, i) => `id:tx_${i.toString(36)}_a`);
    for (const key of given) filter.add(key);
    expect(given.every((key) => filter.mayHave(key))).toBe(true);
    // About 2e-5 by design: a tenfold regression fails.
    let maybe = 0;
    const others = 1_000_000;
    for (let i = 0; i < others; i++) if (filter.mayHave(`id:tx_${i.toString(36)}_b`)) maybe += 1;
    expect(maybe / others).toBeLessThan(1e-4);
  });
});

/** Counts the keys the engine looks up by key (the rows it could not find in a window's reads). */
class CountingLookups extends MemoryStorage {
  keysLookedUp = 0;
  override async findTransactions(
    connectionId: string,
    accountId: string,
    query?: TransactionQuery,
  ): Promise<MirrorTransaction[]> {
    this.keysLookedUp += query?.keys?.length ?? 0;
    return super.findTransactions(connectionId, accountId, query);
  }
}

/** A store that counts lookups, fed whole histories read back in pages of 40 rows. */
async function spilledHarness(historyDays: number) {
  const storage = new CountingLookups();
  const h = await createHarness({
    storage,
    sandbox: { historyDays, transactionsPerDay: 3 },
    client: { spill: { afterRows: 10, pageRows: 40 } },
    engine: { batchSize: 50 },
  });
  return { h, storage };
}

/** A figure summed over a run's accounts. */
const total = (report: ConnectionReport, figure: 'fetched' | 'added') =>
  report.accounts.reduce((sum, account) => sum + account[figure], 0);

describe('a first sync into an empty store', () => {
  it('looks up almost none of the keys it writes, and a later sync of the filled store looks them up as before', async () => {
    // Every page's keys are new to the store.
    const { h, storage } = await spilledHarness(400);
    const first = await h.engine.sync('c1');
    expect(first.ok).toBe(true);
    const fetched = total(first, 'fetched');
    expect(fetched).toBeGreaterThan(2_000);
    // Only the filter's rare false positives (about one key in 50,000) are looked up.
    expect(storage.keysLookedUp).toBeLessThanOrEqual(5);
    await expectMirrorMatchesProvider(h);

    // Days later, holds have posted under new ids: those keys are new to the window's reads, and the
    // store, which held rows when this run began, is asked about every one of them.
    h.sandbox.advanceDays(5);
    storage.keysLookedUp = 0;
    const later = await h.engine.sync('c1');
    expect(later.ok).toBe(true);
    const added = total(later, 'added');
    expect(added).toBeGreaterThan(0);
    expect(storage.keysLookedUp).toBeGreaterThan(0);
    await expectMirrorMatchesProvider(h);
    await expectFeedReplaysToMirror(storage);
  });

  it('an account that held rows when its first sync began still finds a stored row the provider moved to another date', async () => {
    const { h, storage } = await spilledHarness(200);
    await h.engine.sync('c1');
    const [account] = await storage.listAccounts('c1');
    const stored = await storage.findTransactions('c1', account!.id);
    const moved = stored.find((row) => !row.isPending && row.providerId !== null && row.date > '2026-03-01')!;
    const before = await storage.countTransactions('c1', account!.id);
    // The provider now lists that id 60 days earlier: a window's reads no longer find it.
    server.use(
      http.get(`${BASE}/accounts/${account!.id}/transactions`, async ({ request }) => {
        const body = (await (await h.sandbox.handle(request)).json()) as {
          transactions: Array<{ id: string | null; date: string }>;
        };
        for (const row of body.transactions)
          if (row.id === moved.providerId) row.date = addDays(row.date, -60);
        return HttpResponse.json(body);
      }),
    );
    // As a store written before the balance check existed: rows, but no ledger and no watermark, so
    // the whole history is read again from the start.
    for (const state of await storage.listAccountStates('c1'))
      await storage.apply({ changes: [], accountStates: [{ ...state, ledger: null, watermark: null }] });
    storage.keysLookedUp = 0;
    const again = await h.engine.sync('c1');
    expect(again.ok).toBe(true);
    expect(storage.keysLookedUp).toBeGreaterThan(0);
    // One row, modified in place under its new date: not a second one.
    expect(await storage.countTransactions('c1', account!.id)).toBe(before);
    const after = (await storage.findTransactions('c1', account!.id)).filter((row) => row.key === moved.key);
    expect(after.map((row) => row.date)).toEqual([addDays(moved.date, -60)]);
    await expectFeedReplaysToMirror(storage);
  });
});
