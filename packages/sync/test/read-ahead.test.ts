import { readdirSync } from 'node:fs';
import { addDays } from '@finsync/provider';
import { useTempDirs } from '@finsync/test-utils';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { readAhead } from '../src/engine/read-ahead.js';
import { MemoryStorage, type WriteBatch } from '../src/index.js';
import { BASE, createHarness, expectFeedReplaysToMirror, server, SlowCommits, useMsw } from './harness.js';

useMsw();
const tempDir = useTempDirs('read-ahead');

/** A source that logs when each item is asked for and when it closes. */
function loggedSource(items: number, log: string[], failAt?: number) {
  return (async function* () {
    try {
      for (let i = 0; i < items; i++) {
        log.push(`read ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (i === failAt) throw new Error(`page ${i} is bad`);
        yield i;
      }
    } finally {
      log.push('source closed');
    }
  })();
}

describe('readAhead', () => {
  it('hands out the source items in order and asks for the next while the current is in use', async () => {
    const log: string[] = [];
    const seen: number[] = [];
    for await (const item of readAhead(loggedSource(3, log))) {
      log.push(`use ${item} start`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`use ${item} end`);
      seen.push(item);
    }
    expect(seen).toEqual([0, 1, 2]);
    // Item 1 is read while item 0 is in use, not after.
    expect(log.indexOf('read 1')).toBeLessThan(log.indexOf('use 0 end'));
    expect(log.at(-1)).toBe('use 2 end');
    expect(log).toContain('source closed');
  });

  it('says the source is exhausted while its last item is still in use, once', async () => {
    const log: string[] = [];
    for await (const item of readAhead(loggedSource(3, log), { onExhausted: () => log.push('exhausted') })) {
      log.push(`use ${item} start`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`use ${item} end`);
    }
    expect(log.filter((line) => line === 'exhausted')).toHaveLength(1);
    // Known once the last item is handed out (its read-ahead finds nothing), before it is done with.
    expect(log.indexOf('exhausted')).toBeGreaterThan(log.indexOf('use 1 end'));
    expect(log.indexOf('exhausted')).toBeLessThan(log.indexOf('use 2 end'));
  });

  it('throws a failed read where that item is asked for, after the items before it were used', async () => {
    const log: string[] = [];
    const seen: number[] = [];
    const run = async () => {
      for await (const item of readAhead(loggedSource(3, log, 1))) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push(item);
      }
    };
    await expect(run()).rejects.toThrow('page 1 is bad');
    expect(seen).toEqual([0]);
  });

  it('a consumer that stops early closes the source once the read in flight is done', async () => {
    const log: string[] = [];
    for await (const item of readAhead(loggedSource(5, log))) {
      if (item === 1) break;
    }
    expect(log).toEqual(['read 0', 'read 1', 'read 2', 'source closed']);
  });

  it('reads ahead only beside items it is told to, and still closes the source on an early stop', async () => {
    const log: string[] = [];
    for await (const item of readAhead(loggedSource(5, log), { aheadOf: (n) => n !== 1 })) {
      log.push(`use ${item}`);
      if (item === 2) break;
    }
    // Nothing is read while item 1 is in use; item 3 is asked for as item 2 is handed out.
    expect(log).toEqual(['read 0', 'read 1', 'use 0', 'use 1', 'read 2', 'read 3', 'use 2', 'source closed']);
    const early: string[] = [];
    for await (const item of readAhead(loggedSource(5, early), { aheadOf: () => false }))
      if (item === 0) break;
    expect(early).toEqual(['read 0', 'source closed']);
  });

  it('tells when it abandons a read in flight, and only then', async () => {
    let abandoned = 0;
    const onAbandon = () => (abandoned += 1);
    for await (const item of readAhead(loggedSource(5, []), { onAbandon })) if (item === 1) break;
    expect(abandoned).toBe(1);
    for await (const item of readAhead(loggedSource(5, []), { aheadOf: () => false, onAbandon }))
      if (item === 1) break;
    for await (const _ of readAhead(loggedSource(2, []), { onAbandon }));
    expect(abandoned).toBe(1);
  });

  it('a consumer that fails closes the source too, and its own error is the one thrown', async () => {
    const log: string[] = [];
    const run = async () => {
      for await (const item of readAhead(loggedSource(5, log))) {
        if (item === 0) throw new Error('commit failed');
      }
    };
    await expect(run()).rejects.toThrow('commit failed');
    expect(log).toEqual(['read 0', 'read 1', 'source closed']);
  });
});

/**
 * Fails each account's second commit of transactions, every other commit goes through, and each
 * takes time: the next page is read while it is under way.
 */
class FailingSecondCommit extends SlowCommits {
  readonly commits = new Map<string, number>();
  override async apply(batch: WriteBatch): Promise<void> {
    const account = batch.changes.find((change) => change.entity === 'transaction')?.accountId;
    if (account !== undefined) {
      const count = (this.commits.get(account) ?? 0) + 1;
      this.commits.set(account, count);
      if (count === 2) {
        // It fails when it would have landed, after the next page was read.
        await new Promise((resolve) => setTimeout(resolve, this.commitMs));
        throw new Error('disk full');
      }
    }
    return super.apply(batch);
  }
}

describe('reading pages ahead in a sync', () => {
  it('a commit that fails while the next page of a spilled answer is read stops the account, leaves no file, and keeps what committed', async () => {
    const directory = tempDir();
    const storage = new FailingSecondCommit();
    const h = await createHarness({
      storage,
      sandbox: { historyDays: 120, transactionsPerDay: 3 },
      // Pages of 40 rows, each committed on its own (pages under half a batch would be joined).
      client: { spill: { afterRows: 10, pageRows: 40, directory } },
      engine: { batchSize: 50 },
    });
    const report = await h.engine.sync('c1');

    const failed = report.accounts.filter((account) => account.issues.length > 0);
    expect(failed.length).toBeGreaterThan(0);
    expect(readdirSync(directory)).toEqual([]);
    // Every account with a second commit stopped at it: nothing was committed after the failure.
    for (const [accountId, commits] of storage.commits) {
      if (commits < 2) continue;
      expect(commits, accountId).toBe(2);
      expect(failed.map((account) => account.accountId)).toContain(accountId);
    }
    for (const account of failed) {
      expect(account.issues.map((issue) => issue.message)).toEqual([expect.stringContaining('disk full')]);
      // Its first page's commit stands.
      expect(await storage.countTransactions('c1', account.accountId)).toBeGreaterThan(0);
    }
    await expectFeedReplaysToMirror(storage);
  });
});

/** Aborts the run at its first commit of transactions, which it lets through. */
class AbortAtFirstCommit extends MemoryStorage {
  transactionCommits = 0;
  readonly controller = new AbortController();
  override async apply(batch: WriteBatch): Promise<void> {
    if (batch.changes.some((change) => change.entity === 'transaction')) {
      this.transactionCommits += 1;
      if (this.transactionCommits === 1) this.controller.abort();
    }
    return super.apply(batch);
  }
}

describe('aborting a sync with a page read ahead', () => {
  it('commits nothing after the abort, though the next page was already read', async () => {
    const storage = new AbortAtFirstCommit();
    const h = await createHarness({
      storage,
      sandbox: { historyDays: 120, transactionsPerDay: 3 },
      client: { spill: { afterRows: 10, pageRows: 40, directory: tempDir() } },
      engine: { batchSize: 50 },
    });
    const report = await h.engine.sync('c1', { signal: storage.controller.signal });
    expect(report.ok).toBe(false);
    expect(storage.transactionCommits).toBe(1);
  });
});

/** Fails every commit of transactions of one account. */
class FailingAccount extends MemoryStorage {
  constructor(readonly accountId: string) {
    super();
  }
  override async apply(batch: WriteBatch): Promise<void> {
    if (
      batch.changes.some((change) => change.entity === 'transaction' && change.accountId === this.accountId)
    )
      throw new Error('disk full');
    return super.apply(batch);
  }
}

describe('a run that stops with a page being read ahead', () => {
  it('aborts that read instead of walking on through the windows it would have joined', async () => {
    // Account 4711: 30 rows in the first five-day window, one in each after. The next page joins
    // windows until it holds half a batch (20 rows), so reading it ahead walks many windows.
    const h = await createHarness({
      storage: new FailingAccount('4711'),
      // 2 April to 30 June is 90 days: eighteen whole windows, the first from 2 April.
      engine: { startDate: '2026-04-02', windowDays: 5, batchSize: 40 },
    });
    const requests: string[] = [];
    server.use(
      http.get(`${BASE}/accounts/4711/transactions`, async ({ request }) => {
        const from = new URL(request.url).searchParams.get('from')!;
        requests.push(from);
        await new Promise((resolve) => setTimeout(resolve, 10));
        const count = from === '2026-04-02' ? 30 : 1;
        const transactions = Array.from({ length: count }, (_, i) => ({
          id: `tx_${from}_${i}`,
          accountId: '4711',
          amount: -1 - i,
          currency: 'GBP',
          date: addDays(from, i % 5),
          merchant: 'Shop',
          description: 'SHOP',
          isPending: false,
        }));
        return HttpResponse.json({ transactions, total: transactions.length });
      }),
    );
    const report = await h.engine.sync('c1');
    const failed = report.accounts.find((account) => account.accountId === '4711')!;
    expect(failed.issues.map((issue) => issue.message)).toEqual([expect.stringContaining('disk full')]);
    // The first window, then at most the window in flight when the commit failed and the one the
    // client's walk asks for beside it (of 18).
    expect(requests.length).toBeLessThanOrEqual(4);
  });
});
