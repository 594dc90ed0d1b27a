import type { TransactionPage } from '@finsync/provider';
import { describe, expect, it } from 'vitest';
import { coalescePages } from '../src/engine/coalesce.js';
import type { Storage, WriteBatch } from '../src/index.js';
import { MemoryStorage } from '../src/index.js';
import { createHarness, expectFeedReplaysToMirror, expectMirrorMatchesProvider, useMsw } from './harness.js';

useMsw();

function page(from: string | null, to: string | null, rows: number, shortfall = 0): TransactionPage {
  const transactions = Array.from({ length: rows }, (_, i) => ({
    id: `${from}-${i}`,
    accountId: 'a',
    amount: '-1.00',
    currency: 'GBP',
    date: from ?? '2026-01-01',
    merchant: null,
    description: 'x',
    isPending: false,
  }));
  return { from, to, transactions, total: rows + shortfall, shortfall };
}

async function collect(pages: TransactionPage[], minRows: number) {
  const out: TransactionPage[] = [];
  for await (const p of coalescePages(
    (async function* () {
      yield* pages;
    })(),
    minRows,
  ))
    out.push(p);
  return out.map((p) => ({ from: p.from, to: p.to, rows: p.transactions.length, shortfall: p.shortfall }));
}

describe('coalescePages', () => {
  it('joins adjacent windows until the group holds at least minRows', async () => {
    const pages = [
      page('2026-01-01', '2026-01-10', 30),
      page('2026-01-11', '2026-01-20', 30),
      page('2026-01-21', '2026-01-30', 30),
      page('2026-01-31', '2026-02-09', 30),
    ];
    expect(await collect(pages, 50)).toEqual([
      { from: '2026-01-01', to: '2026-01-20', rows: 60, shortfall: 0 },
      { from: '2026-01-21', to: '2026-02-09', rows: 60, shortfall: 0 },
    ]);
    // The provider's pages are left as they were.
    expect(pages.map((p) => [p.to, p.transactions.length])).toEqual([
      ['2026-01-10', 30],
      ['2026-01-20', 30],
      ['2026-01-30', 30],
      ['2026-02-09', 30],
    ]);
  });

  it('keeps a window the provider cut short on its own, and never joins across a gap', async () => {
    expect(
      await collect(
        [
          page('2026-01-01', '2026-01-10', 5),
          page('2026-01-11', '2026-01-11', 5, 3),
          page('2026-01-12', '2026-01-20', 5),
          page('2026-01-22', '2026-01-30', 5),
        ],
        100,
      ),
    ).toEqual([
      { from: '2026-01-01', to: '2026-01-10', rows: 5, shortfall: 0 },
      { from: '2026-01-11', to: '2026-01-11', rows: 5, shortfall: 3 },
      { from: '2026-01-12', to: '2026-01-20', rows: 5, shortfall: 0 },
      { from: '2026-01-22', to: '2026-01-30', rows: 5, shortfall: 0 },
    ]);
  });

  it('joins the pages of a spilled whole history, whose first window is open at the start', async () => {
    expect(await collect([page(null, '2026-01-10', 5), page('2026-01-11', '2026-01-20', 5)], 100)).toEqual([
      { from: null, to: '2026-01-20', rows: 10, shortfall: 0 },
    ]);
  });
});

/** Counts the commits that carry changes. */
class CountingStorage extends MemoryStorage {
  commitsWithChanges = 0;
  override async apply(batch: WriteBatch): Promise<void> {
    if (batch.changes.length > 0) this.commitsWithChanges += 1;
    return super.apply(batch);
  }
}

describe('a first sync walked in small windows', () => {
  const options = (storage: Storage, batchSize: number) => ({
    storage,
    sandbox: { historyDays: 120, transactionsPerDay: 3 },
    engine: { startDate: '2026-01-01', windowDays: 7, batchSize },
  });

  it('commits a batch of windows at a time, and mirrors exactly what the provider holds', async () => {
    const storage = new CountingStorage();
    const h = await createHarness(options(storage, 2_000));
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(true);
    const requests = h.sandbox.requests.filter((r) => r.path.endsWith('/transactions')).length;
    expect(requests).toBeGreaterThan(10);
    expect(storage.commitsWithChanges).toBeLessThan(requests / 5);
    await expectMirrorMatchesProvider(h, { from: '2026-01-01' });
    await expectFeedReplaysToMirror(storage);

    // Days later, holds have posted under new ids across the old windows' edges: still exact.
    h.sandbox.advanceDays(9);
    expect((await h.engine.sync('c1')).ok).toBe(true);
    await expectMirrorMatchesProvider(h, { from: '2026-01-01' });
    await expectFeedReplaysToMirror(storage);
  });

  it('ends with the same mirror whether windows are joined or not', async () => {
    const joined = await createHarness(options(new MemoryStorage(), 2_000));
    const alone = await createHarness(options(new MemoryStorage(), 1));
    for (const h of [joined, alone]) expect((await h.engine.sync('c1')).ok).toBe(true);
    const rows = async (s: Storage) => {
      const all = [];
      for await (const row of s.scanTransactions('c1')) all.push(row);
      return all.sort((a, b) => (a.key < b.key ? -1 : 1));
    };
    expect(await rows(joined.storage)).toEqual(await rows(alone.storage));
  });
});
