import { describe, expect, it } from 'vitest';
import {
  MemoryStorage,
  type ConnectionReport,
  type Storage,
  type TransactionQuery,
  type WriteBatch,
} from '../src/index.js';
import { createHarness, expectMirrorMatchesProvider, useMsw, type Harness } from './harness.js';

useMsw();

/** A memory store that counts the reads of an account's holds (every pending row, no other filter). */
class CountedHoldReads extends MemoryStorage {
  holdReads = 0;
  override findTransactions(connectionId: string, accountId: string, query?: TransactionQuery) {
    if (query?.pending === true && query.from === undefined && query.to === undefined && !query.keys)
      this.holdReads += 1;
    return super.findTransactions(connectionId, accountId, query);
  }
}

const SANDBOX = {
  seed: 11,
  historyDays: 30,
  transactionsPerDay: 3,
  lingeringHolds: true,
  holdsSettleElsewise: true,
  holdsRelisted: true,
};

/** One run under worker `w1`'s lease, as a `SyncWorker` runs it: claimed, fenced, released. */
async function leasedSync(h: Harness): Promise<ConnectionReport> {
  const queue = h.storage as MemoryStorage;
  const now = new Date(`${h.sandbox.today}T12:00:00Z`);
  expect(await queue.claimDue('w1', { limit: 1, leaseMs: 60_000, now })).toEqual(['c1']);
  const report = await h.engine.sync('c1', { workerId: 'w1' });
  await queue.releaseLease('c1', 'w1', now);
  return report;
}

async function everything(storage: Storage) {
  const accounts = await storage.listAccounts('c1');
  return {
    accounts,
    states: await storage.listAccountStates('c1'),
    rows: await Promise.all(accounts.map((a) => storage.findTransactions('c1', a.id))),
    superseded: await Promise.all(accounts.map((a) => storage.listSuperseded('c1', a.id))),
  };
}

describe("an account's stored holds, kept from the diff for the balance check under a lease", () => {
  it('a leased re-sync that changes nothing reads each account’s holds twice, not three times; without a lease, or on a store that ignores leases, three times', async () => {
    const leased = await createHarness({ sandbox: SANDBOX, storage: new CountedHoldReads() });
    const unleased = await createHarness({ sandbox: SANDBOX, storage: new CountedHoldReads() });
    // A store without leases ignores the fence: a `workerId` does not make its run the only writer.
    const noLeases = new Proxy(new CountedHoldReads(), {
      get(target, property) {
        if (property === 'claimDue') return undefined;
        if (property === 'apply') return (batch: WriteBatch) => target.apply({ ...batch, fence: undefined });
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const ignored = await createHarness({ sandbox: SANDBOX, storage: noLeases });
    expect((await leasedSync(leased)).ok).toBe(true);
    expect((await unleased.engine.sync('c1')).ok).toBe(true);
    expect((await ignored.engine.sync('c1', { workerId: 'w1' })).ok).toBe(true);
    const stores = [leased.storage, unleased.storage, noLeases] as CountedHoldReads[];
    for (const store of stores) store.holdReads = 0;
    // The same day again: nothing new, every account read, its balance checked.
    const report = await leasedSync(leased);
    const synced = report.accounts.filter((a) => a.reconciliation !== null).length;
    expect(synced).toBeGreaterThan(1);
    expect(report.accounts.every((a) => a.added + a.modified + a.removed === 0)).toBe(true);
    // How far back to read and the diff read the store; the balance check takes the diff's read.
    expect(stores[0]!.holdReads).toBe(2 * synced);
    await unleased.engine.sync('c1');
    await ignored.engine.sync('c1', { workerId: 'w1' });
    expect(stores[1]!.holdReads).toBe(3 * synced);
    expect(stores[2]!.holdReads).toBe(3 * synced);
  });

  it('day after day of holds that post, linger, settle at another amount and come back, leased runs store exactly what runs without a lease store', async () => {
    const leased = await createHarness({ sandbox: SANDBOX });
    const unleased = await createHarness({ sandbox: SANDBOX });
    let changedRuns = 0;
    for (let day = 0; day < 14; day += 1) {
      const [a, b] = [await leasedSync(leased), await unleased.engine.sync('c1')];
      expect(a.ok, JSON.stringify(a.issues)).toBe(true);
      expect(b.ok, JSON.stringify(b.issues)).toBe(true);
      if (a.accounts.some((r) => r.added + r.modified + r.removed > 0)) changedRuns += 1;
      expect(a.accounts.map((r) => r.reconciliation)).toEqual(b.accounts.map((r) => r.reconciliation));
      expect(await everything(leased.storage)).toEqual(await everything(unleased.storage));
      await expectMirrorMatchesProvider(leased);
      leased.sandbox.advanceDays(1);
      unleased.sandbox.advanceDays(1);
    }
    // Runs that changed rows (the holds are read again after their commits) and runs that did not.
    expect(changedRuns).toBeGreaterThan(5);
  });
});
