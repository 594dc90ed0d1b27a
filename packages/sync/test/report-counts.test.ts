/**
 * A report counts what is in the mirror: the rows of a commit that failed are not counted, and a run
 * stopped in the middle of an account still reports what that account committed.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStorage, type Storage, type WriteBatch } from '../src/index.js';
import { engineOverCraftedProvider } from './crafted-provider.js';
import { createHarness, useMsw } from './harness.js';

useMsw();

/** Commits of transactions fail after the first `allowed`, as a database gone read-only or busy would. */
class FailingAfter extends MemoryStorage {
  commits = 0;
  constructor(readonly allowed: number) {
    super();
  }
  override async apply(batch: WriteBatch): Promise<void> {
    if (batch.changes.some((change) => change.entity === 'transaction')) {
      this.commits += 1;
      if (this.commits > this.allowed) throw new Error('attempt to write a readonly database');
    }
    return super.apply(batch);
  }
}

async function storedPerAccount(storage: Storage, accountIds: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const id of accountIds) counts.set(id, await storage.countTransactions('c1', id));
  return counts;
}

describe('what a report counts', () => {
  it('counts no row of a commit that failed: added is what the mirror holds', async () => {
    const storage = new FailingAfter(1);
    const h = await createHarness({
      storage,
      sandbox: { historyDays: 200, transactionsPerDay: 3 },
      engine: { startDate: '2026-01-01', windowDays: 15, batchSize: 50 },
    });
    const report = await h.engine.sync('c1');
    expect(report.ok).toBe(false);
    const stored = await storedPerAccount(
      storage,
      report.accounts.map((a) => a.accountId),
    );
    for (const account of report.accounts)
      expect(account.added, account.accountId).toBe(stored.get(account.accountId));
    // One commit landed: some rows, and not the many the failed commits carried.
    const added = report.accounts.reduce((n, a) => n + a.added, 0);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(50);
  });

  it('a run stopped inside an account reports that account, with what it committed and why it stopped', async () => {
    const h = await createHarness({
      sandbox: { historyDays: 150 },
      engine: { startDate: '2026-01-01', windowDays: 15 },
    });
    h.sandbox.faults.add({ kind: 'latency', ms: 20 });
    const controller = new AbortController();
    // Stopped once the second account has fetched rows of its own (its first windows may be empty).
    let fetchedBeforeIt: number | undefined;
    h.engine.on('progress', (progress) => {
      if (progress.accountsDone !== 1) return;
      fetchedBeforeIt ??= progress.transactionsFetched;
      if (progress.transactionsFetched > fetchedBeforeIt) controller.abort();
    });
    const report = await h.engine.sync('c1', { signal: controller.signal });
    expect(report.ok).toBe(false);
    const account = report.accounts.at(-1);
    expect(account!.issues.map((i) => i.error.name)).toEqual(['RequestAbortedError']);
    expect(report.issues.at(-1)).toBe(account!.issues[0]);
    const stored = await h.storage.countTransactions('c1', account!.accountId);
    expect(stored).toBeGreaterThan(0);
    expect(account!.added).toBe(stored);
  });

  it('a run a rate limit stops at the holdings stores the balance and check it read first, and says so', async () => {
    const h = await createHarness({ sandbox: { historyDays: 30 } });
    // A 429 at the first holdings answer stops the connection; the account's balance, read before
    // it, is stored first (its verdict is about the rows this run committed).
    h.sandbox.faults.add({ kind: 'status', status: 429, match: { endpoint: 'holdings' } });
    const report = await h.engine.sync('c1');
    const stopped = report.accounts.at(-1)!;
    expect(stopped.issues.map((i) => i.stage)).toEqual(['holdings']);
    expect(stopped).toMatchObject({ balance: 'updated', holdings: 'failed' });
    const stored = (await h.storage.listAccounts('c1')).find((a) => a.id === stopped.accountId)!;
    expect(stored.balance?.amount).toBe(h.sandbox.balanceOf(stopped.accountId).amount);
    expect(stopped.reconciliation).toEqual(stored.reconciliation);
    expect(stopped.added).toBe(await h.storage.countTransactions('c1', stopped.accountId));
  });

  it('a run Ctrl-C stops before the closing write of an account reports its balance as not stored, as the mirror has it', async () => {
    const h = await createHarness({ sandbox: { historyDays: 30 } });
    const controller = new AbortController();
    h.sandbox.faults.add({ kind: 'latency', ms: 2_000, match: { endpoint: 'holdings' } });
    const running = h.engine.sync('c1', { signal: controller.signal });
    h.engine.on('progress', (progress) => {
      if (progress.transactionsFetched > 0) setTimeout(() => controller.abort(), 300);
    });
    const report = await running;
    const stopped = report.accounts.at(-1)!;
    expect(stopped.issues.map((i) => i.error.name)).toEqual(['RequestAbortedError']);
    expect(stopped.reconciliation).toBeNull();
    const stored = (await h.storage.listAccounts('c1')).find((a) => a.id === stopped.accountId)!;
    expect(stored.balance).toBeNull();
  });

  it('counts the rows a currency fill changed before a later commit of it failed', async () => {
    // Rows listed without a currency take the account's from its first balance, in commits of 10.
    const rows = Array.from({ length: 30 }, (_, i) => ({
      accountId: 4711,
      id: `tx${i}`,
      amount: -1 - i,
      date: `2026-03-${String(1 + (i % 10)).padStart(2, '0')}`,
      merchant: 'Shop',
      description: 'x',
      isPending: false,
    }));
    const { engine, storage } = await engineOverCraftedProvider(
      () => ({ transactions: rows, total: rows.length }),
      {
        today: '2026-03-15',
        tuning: { batchSize: 10 },
      },
    );
    const apply = storage.apply.bind(storage);
    let fills = 0;
    storage.apply = async (batch: WriteBatch) => {
      const fill =
        batch.changes.length > 0 &&
        batch.accountStates === undefined &&
        batch.changes.every((c) => c.entity === 'transaction' && c.op === 'modified');
      if (fill && ++fills > 1) throw new Error('database is locked');
      return apply(batch);
    };
    const report = await engine.sync('c1');
    const filled = (await storage.findTransactions('c1', '4711')).filter((r) => r.currency === 'GBP').length;
    expect(filled).toBe(10);
    expect(report.accounts[0]!.modified).toBe(filled);
  });

  it('an account whose closing write fails reports its balance as not taken, as the mirror has it', async () => {
    // The closing write carries the account's balance and state, and no transaction.
    class ClosingFails extends MemoryStorage {
      override async apply(batch: WriteBatch): Promise<void> {
        const closing =
          batch.accountStates !== undefined &&
          !batch.changes.some((change) => change.entity === 'transaction');
        if (closing) throw new Error('database is locked');
        return super.apply(batch);
      }
    }
    const h = await createHarness({ storage: new ClosingFails(), sandbox: { historyDays: 20 } });
    const report = await h.engine.sync('c1');
    const stored = new Map((await h.storage.listAccounts('c1')).map((a) => [a.id, a]));
    for (const account of report.accounts.filter((a) => a.state === 'active')) {
      expect(
        account.issues.map((i) => i.stage),
        account.accountId,
      ).toContain('storage');
      expect(stored.get(account.accountId)!.balance, account.accountId).toBeNull();
      expect(account.balance, account.accountId).not.toBe('updated');
      expect(account.reconciliation).toBeNull();
    }
  });
});
