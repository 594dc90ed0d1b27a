import { describe, expect, it } from 'vitest';
import { MemoryStorage, type WriteBatch } from '../src/index.js';
import { createHarness, expectMirrorMatchesProvider, useMsw } from './harness.js';

useMsw();

/** A memory storage that remembers every batch it committed. */
class RecordingStorage extends MemoryStorage {
  batches: WriteBatch[] = [];
  override async apply(batch: WriteBatch): Promise<void> {
    this.batches.push(batch);
    return super.apply(batch);
  }
}

describe('a routine re-sync with nothing new', () => {
  it('commits once per account (its closing state) and once for the connection, and changes nothing', async () => {
    const storage = new RecordingStorage();
    const h = await createHarness({ storage, sandbox: { lingeringHolds: false } });
    await h.engine.sync('c1');
    const accounts = (await storage.listAccounts('c1')).filter((a) => a.state === 'active');
    const seqBefore = await storage.lastSeq();
    storage.batches = [];

    const report = await h.engine.sync('c1');

    expect(report.ok).toBe(true);
    expect(await storage.lastSeq()).toBe(seqBefore);
    expect(storage.batches.every((b) => b.changes.length === 0)).toBe(true);
    // One closing write per account and the connection's state at the end; the windows that
    // changed nothing commit nothing of their own.
    expect(storage.batches).toHaveLength(accounts.length + 1);
    const closing = storage.batches.flatMap((b) => b.accountStates ?? []);
    expect(new Set(closing.map((s) => s.accountId))).toEqual(new Set(accounts.map((a) => a.id)));
    await expectMirrorMatchesProvider(h);
  });

  it('still stores the moved watermark when a later day brings nothing new to an account', async () => {
    const storage = new RecordingStorage();
    const h = await createHarness({ storage, sandbox: { lingeringHolds: false, transactionsPerDay: 0.01 } });
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    await h.engine.sync('c1');
    for (const state of await storage.listAccountStates('c1'))
      if (state.watermark !== null) expect(state.watermark).toBe(h.sandbox.today);
  });
});

describe('a routine re-sync of a new day', () => {
  it("commits a moved balance and changed holdings with the account's closing state, in one write", async () => {
    const storage = new RecordingStorage();
    const h = await createHarness({ storage });
    await h.engine.sync('c1');
    h.sandbox.advanceDays(1);
    storage.batches = [];

    const report = await h.engine.sync('c1');

    expect(report.ok).toBe(true);
    const moved = report.accounts.filter((a) => a.balance === 'updated').map((a) => a.accountId);
    expect(moved.length).toBeGreaterThan(0);
    const held = report.accounts.filter((a) => a.holdings === 'updated').map((a) => a.accountId);
    expect(held.length).toBeGreaterThan(0);
    const touched = new Set<string>([...moved, ...held]);
    for (const accountId of touched) {
      const writes = storage.batches.filter((b) => b.accountStates?.some((s) => s.accountId === accountId));
      const closing = writes.at(-1)!;
      // The account record and the holdings ride in the account's last write, which stores its state.
      const outside = storage.batches
        .filter((b) => b !== closing)
        .flatMap((b) => b.changes)
        .filter((c) => c.entity !== 'transaction' && c.connectionId === 'c1' && c.accountId === accountId);
      expect(outside, accountId).toEqual([]);
      if (moved.includes(accountId))
        expect(
          closing.changes.some((c) => c.entity === 'account' && c.key === accountId),
          accountId,
        ).toBe(true);
      if (held.includes(accountId))
        expect(
          closing.changes.some((c) => c.entity === 'holding'),
          accountId,
        ).toBe(true);
    }
    await expectMirrorMatchesProvider(h);
  });
});
