/**
 * The storage conformance suite. Every adapter, ours and third parties', runs it:
 *
 * ```ts
 * import { runStorageConformance } from '@finsync/sync/testing';
 * runStorageConformance('MyStorage', async () => ({ storage: new MyStorage(...), cleanup: async () => {} }));
 * ```
 * It needs vitest (a peer dependency of this entry point only).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Change, FeedEntry, MirrorTransaction } from '../model.js';
import type { Storage, WriteBatch } from '../storage/types.js';
import {
  account,
  accountState,
  added,
  connectionState,
  holding,
  modified,
  removed,
  transaction,
} from './fixtures.js';

/**
 * A conflict, told by its name: this suite runs as ESM inside vitest, and an adapter published as
 * CommonJS throws the CommonJS build's class, which is another class object with the same name.
 */
const CONFLICT = { name: 'StorageConflictError' };

/** What the factory given to {@link runStorageConformance} makes for each test: a fresh, empty storage. */
export interface ConformanceSubject {
  /** The storage under test, not yet initialised (the suite calls `init()`). */
  storage: Storage;
  /** Drops whatever the storage created (files, schemas). Called after `close()`. */
  cleanup?: () => Promise<void>;
  /** Opens a second storage over the same data, to prove durability. Optional. */
  reopen?: () => Promise<Storage>;
}

/**
 * Registers the conformance tests (a vitest `describe` block named after `name`). `create` is called
 * before each test and must return a subject over empty data.
 */
export function runStorageConformance(name: string, create: () => Promise<ConformanceSubject>): void {
  describe(`${name}: storage conformance`, () => {
    let subject: ConformanceSubject;
    let storage: Storage;

    beforeEach(async () => {
      subject = await create();
      storage = subject.storage;
      await storage.init();
    });

    afterEach(async () => {
      await storage.close();
      await subject.cleanup?.();
    });

    it('init is idempotent and a new storage is empty', async () => {
      await storage.init();
      expect(await storage.listConnections()).toEqual([]);
      expect(await storage.lastSeq()).toBe(0);
      expect(await storage.readChanges({ limit: 10 })).toEqual([]);
    });

    it('stores connection and account sync state without feed entries', async () => {
      const state = connectionState('c1', {
        status: 'paused',
        pausedUntil: '2026-01-01T01:00:00.000Z',
        statusReason: 'rate limited',
      });
      await storage.apply({
        changes: [],
        connections: [state],
        accountStates: [accountState('c1', 'a1', { watermark: '2026-03-01', holdingsSupported: false })],
      });
      expect(await storage.getConnection('c1')).toEqual(state);
      expect(await storage.getConnection('nope')).toBeUndefined();
      expect(await storage.listAccountStates('c1')).toEqual([
        accountState('c1', 'a1', { watermark: '2026-03-01', holdingsSupported: false }),
      ]);
      await storage.apply({ changes: [], connections: [{ ...state, status: 'active', pausedUntil: null }] });
      expect((await storage.getConnection('c1'))?.status).toBe('active');
      expect(await storage.lastSeq()).toBe(0);
    });

    it('applies mirror changes and appends each to the feed in order', async () => {
      const a = account('c1', 'a1');
      const t1 = transaction('c1', 'a1', 'id:tx_1');
      const t2 = transaction('c1', 'a1', 'h:abc:0', {
        isPending: true,
        providerId: null,
        date: '2026-03-15',
        amount: '-6.15',
      });
      const h = holding('c1', 'a1', 'id:hld_1');
      await storage.apply({
        changes: [
          { entity: 'account', op: 'added', connectionId: 'c1', accountId: 'a1', key: 'a1', record: a },
          added(t1),
          added(t2),
          { entity: 'holding', op: 'added', connectionId: 'c1', accountId: 'a1', key: h.key, record: h },
        ],
      });
      expect(await storage.listAccounts('c1')).toEqual([a]);
      expect(await storage.findTransactions('c1', 'a1')).toEqual([t1, t2]);
      expect(await storage.listHoldings('c1', 'a1')).toEqual([h]);
      const feed = await storage.readChanges({ limit: 10 });
      expect(feed.map((e) => [e.entity, e.op, e.key])).toEqual([
        ['account', 'added', 'a1'],
        ['transaction', 'added', 'id:tx_1'],
        ['transaction', 'added', 'h:abc:0'],
        ['holding', 'added', 'id:hld_1'],
      ]);
      expect(feed[1]!.record).toEqual(t1);
      expect(feed.every((e, i) => i === 0 || e.seq > feed[i - 1]!.seq)).toBe(true);
      expect(feed.every((e) => !Number.isNaN(Date.parse(e.at)))).toBe(true);
      expect(await storage.lastSeq()).toBe(feed.at(-1)!.seq);
    });

    it('keeps exact decimal strings and nulls', async () => {
      const t = transaction('c1', 'a1', 'id:big', {
        amount: '-12345678901234.56789',
        merchant: null,
        description: null,
        currency: null,
      });
      await storage.apply({ changes: [added(t)] });
      expect(await storage.findTransactions('c1', 'a1')).toEqual([t]);
    });

    it('modifies and removes, and a removed key can be added again', async () => {
      const t = transaction('c1', 'a1', 'id:tx_1', { isPending: true });
      await storage.apply({ changes: [added(t)] });
      await storage.apply({ changes: [modified({ ...t, isPending: false, amount: '-25' })] });
      expect(await storage.findTransactions('c1', 'a1')).toEqual([{ ...t, isPending: false, amount: '-25' }]);
      await storage.apply({ changes: [removed(t)] });
      expect(await storage.countTransactions('c1')).toBe(0);
      await storage.apply({ changes: [added(t)] });
      expect(await storage.countTransactions('c1', 'a1')).toBe(1);
      const feed = await storage.readChanges({ limit: 10 });
      expect(feed.map((e) => e.op)).toEqual(['added', 'modified', 'removed', 'added']);
      expect(feed[2]!.record).toBeNull();
    });

    it('carries the replaces / replacedBy link of a pending row and its posted twin', async () => {
      const pending = transaction('c1', 'a1', 'h:p:0', { isPending: true, providerId: null });
      await storage.apply({ changes: [added(pending)] });
      const posted = transaction('c1', 'a1', 'id:tx_9', { date: '2026-03-16' });
      await storage.apply({
        changes: [
          { ...added(posted), replaces: pending.key },
          { ...removed(pending), replacedBy: posted.key },
        ],
      });
      const feed = await storage.readChanges({ after: 1, limit: 10 });
      expect(feed[0]).toMatchObject({ op: 'added', key: 'id:tx_9', replaces: 'h:p:0' });
      expect(feed[1]).toMatchObject({ op: 'removed', key: 'h:p:0', replacedBy: 'id:tx_9' });
      expect('reason' in feed[0]!).toBe(false);
    });

    it('keeps the reason of a link on both of its feed entries', async () => {
      const old = transaction('c1', 'a1', 'id:tx_1');
      await storage.apply({ changes: [added(old)] });
      const now = transaction('c1', 'a1', 'id:tx_2');
      await storage.apply({
        changes: [
          { ...added(now), replaces: old.key, reason: 'id-changed' },
          { ...removed(old), replacedBy: now.key, reason: 'id-changed' },
        ],
      });
      const feed = await storage.readChanges({ after: 1, limit: 10 });
      expect(feed.map((e) => ('reason' in e ? e.reason : undefined))).toEqual(['id-changed', 'id-changed']);
    });

    it('records, replaces and forgets superseded rows with the batch, per account', async () => {
      const hold = transaction('c1', 'a1', 'h:p:0', { isPending: true, providerId: null });
      const row = (key: string, replacedBy: string) => ({
        connectionId: 'c1',
        accountId: 'a1',
        key,
        record: { ...hold, key },
        replacedBy,
        reason: 'posted' as const,
      });
      await storage.apply({ changes: [], superseded: [row('h:p:0', 'id:tx_1'), row('h:p:1', 'id:tx_2')] });
      expect(await storage.listSuperseded('c1', 'a1')).toEqual([
        row('h:p:0', 'id:tx_1'),
        row('h:p:1', 'id:tx_2'),
      ]);
      expect(await storage.listSuperseded('c1', 'a2')).toEqual([]);
      expect(await storage.listSuperseded('c2', 'a1')).toEqual([]);
      // Forgetting comes before recording, so one batch can move a key to a new successor.
      await storage.apply({
        changes: [],
        releasedSuperseded: [
          { connectionId: 'c1', accountId: 'a1', key: 'h:p:0' },
          { connectionId: 'c1', accountId: 'a1', key: 'h:p:1' },
          { connectionId: 'c1', accountId: 'a1', key: 'h:never' },
        ],
        superseded: [row('h:p:1', 'id:tx_9')],
      });
      expect(await storage.listSuperseded('c1', 'a1')).toEqual([row('h:p:1', 'id:tx_9')]);
      // A batch that fails leaves them as they were.
      await expect(
        storage.apply({ changes: [removed(hold)], superseded: [row('h:p:5', 'id:tx_5')] }),
      ).rejects.toMatchObject(CONFLICT);
      expect(await storage.listSuperseded('c1', 'a1')).toEqual([row('h:p:1', 'id:tx_9')]);
      await storage.removeConnection('c1');
      expect(await storage.listSuperseded('c1', 'a1')).toEqual([]);
    });

    it('keeps an account’s balance check and its ledger exactly', async () => {
      const reconciliation = {
        status: 'mismatch' as const,
        basis: 'posted' as const,
        openingBalance: '1250.07',
        historyFrom: '2025-01-01',
        since: '2026-03-02',
        difference: '-12.5',
      };
      const a = account('c1', 'a1', { reconciliation });
      await storage.apply({
        changes: [
          { entity: 'account', op: 'added', connectionId: 'c1', accountId: 'a1', key: 'a1', record: a },
        ],
      });
      expect(await storage.listAccounts('c1')).toEqual([a]);
      const ledger = {
        postedTotal: '-98765432109876.54321',
        historyFrom: '2025-01-01',
        anchor: {
          on: '2026-03-01',
          openingPosted: '1250.07',
          openingWithPending: '1262.57',
          basis: 'posted' as const,
          historyFrom: '2025-01-01',
        },
        olderHistoryDelta: '0',
        changedFrom: '2026-02-27',
      };
      await storage.apply({ changes: [], accountStates: [accountState('c1', 'a1', { ledger })] });
      expect(await storage.listAccountStates('c1')).toEqual([accountState('c1', 'a1', { ledger })]);
      const feed = await storage.readChanges({ limit: 10 });
      expect(feed[0]!.record).toEqual(a);
    });

    it('rejects a contradicting batch as a whole and writes nothing of it', async () => {
      const t = transaction('c1', 'a1', 'id:tx_1');
      await storage.apply({ changes: [added(t)] });
      const before = await storage.lastSeq();
      const fresh = transaction('c1', 'a1', 'id:tx_2');
      const attempts: Change[][] = [
        [added(fresh), added(t)],
        [added(fresh), modified(transaction('c1', 'a1', 'id:missing'))],
        [added(fresh), removed(transaction('c1', 'a1', 'id:missing'))],
        [added(fresh), added(fresh)],
      ];
      for (const changes of attempts) {
        await expect(
          storage.apply({
            changes,
            connections: [connectionState('c-should-not-exist')],
            accountStates: [accountState('c1', 'zz')],
          }),
        ).rejects.toMatchObject(CONFLICT);
      }
      expect(await storage.findTransactions('c1', 'a1')).toEqual([t]);
      expect(await storage.lastSeq()).toBe(before);
      expect(await storage.getConnection('c-should-not-exist')).toBeUndefined();
      expect(await storage.listAccountStates('c1')).toEqual([]);
    });

    it('writes nothing of a batch whose state rows are malformed (a JavaScript caller’s mistake)', async () => {
      const before = await storage.lastSeq();
      const fresh = transaction('c1', 'a1', 'id:tx_malformed');
      const malformed = [
        { accountStates: [accountState('c1', 'a1'), undefined] },
        { releasedSuperseded: [null] },
      ] as unknown as Array<Partial<WriteBatch>>;
      for (const rest of malformed) {
        await expect(
          storage.apply({ changes: [added(fresh)], connections: [connectionState('c-malformed')], ...rest }),
        ).rejects.toThrow();
      }
      expect(await storage.findTransactions('c1', 'a1')).toEqual([]);
      expect(await storage.lastSeq()).toBe(before);
      expect(await storage.getConnection('c-malformed')).toBeUndefined();
      expect(await storage.listAccountStates('c1')).toEqual([]);
    });

    it('a batch may remove then re-add, or add then modify, the same key', async () => {
      const t = transaction('c1', 'a1', 'id:tx_1');
      await storage.apply({ changes: [added(t), modified({ ...t, amount: '-1' })] });
      await storage.apply({ changes: [removed(t), added({ ...t, amount: '-2' })] });
      expect((await storage.findTransactions('c1', 'a1'))[0]?.amount).toBe('-2');
    });

    it('queries a window by date, pending flag and account, ordered by date then key', async () => {
      const rows: MirrorTransaction[] = [
        transaction('c1', 'a1', 'id:b', { date: '2026-03-02' }),
        transaction('c1', 'a1', 'id:a', { date: '2026-03-02' }),
        transaction('c1', 'a1', 'id:c', { date: '2026-03-01' }),
        transaction('c1', 'a1', 'h:p:0', { date: '2026-03-03', isPending: true, providerId: null }),
        transaction('c1', 'a1', 'id:d', { date: '2026-03-05' }),
        transaction('c1', 'a2', 'id:e', { date: '2026-03-02' }),
        transaction('c2', 'a1', 'id:f', { date: '2026-03-02' }),
      ];
      await storage.apply({ changes: rows.map(added) });
      const keys = (list: MirrorTransaction[]) => list.map((t) => t.key);
      expect(
        keys(await storage.findTransactions('c1', 'a1', { from: '2026-03-02', to: '2026-03-03' })),
      ).toEqual(['id:a', 'id:b', 'h:p:0']);
      expect(keys(await storage.findTransactions('c1', 'a1', { pending: true }))).toEqual(['h:p:0']);
      expect(
        keys(await storage.findTransactions('c1', 'a1', { pending: false, from: '2026-03-03' })),
      ).toEqual(['id:d']);
      expect(keys(await storage.findTransactions('c1', 'a1', { to: '2026-03-01' }))).toEqual(['id:c']);
      // By key, within the account and connection only, combined with the other filters.
      expect(
        keys(await storage.findTransactions('c1', 'a1', { keys: ['id:d', 'id:e', 'id:f', 'id:c', 'id:x'] })),
      ).toEqual(['id:c', 'id:d']);
      expect(
        keys(await storage.findTransactions('c1', 'a1', { keys: ['id:d', 'id:c'], from: '2026-03-02' })),
      ).toEqual(['id:d']);
      expect(await storage.findTransactions('c1', 'a1', { keys: [] })).toEqual([]);
      await expect(
        storage.findTransactions('c1', 'a1', { keys: Array.from({ length: 10_001 }, (_, i) => `id:${i}`) }),
      ).rejects.toThrow(RangeError);
      expect(await storage.countTransactions('c1')).toBe(6);
      expect(await storage.countTransactions('c1', 'a1')).toBe(5);
      const scanned: string[] = [];
      for await (const row of storage.scanTransactions('c1')) scanned.push(`${row.accountId}/${row.key}`);
      expect(scanned.sort()).toEqual(['a1/h:p:0', 'a1/id:a', 'a1/id:b', 'a1/id:c', 'a1/id:d', 'a2/id:e']);
    });

    it('orders ids and keys by code point: a character past U+FFFF after U+E000–U+FFFF', async () => {
      // UTF-16 order (JavaScript's `<`) puts the emoji first; UTF-8 bytes and code points do not.
      const [emoji, fullwidth] = ['id:\u{1F600}', 'id:\uFF21'];
      await storage.apply({
        changes: [
          ...[emoji, fullwidth].map((key) => added(transaction('c1', 'a1', key))),
          ...['\u{1F600}', '\uFF21'].map((id): Change => {
            const record = account('c1', id);
            return { entity: 'account', op: 'added', connectionId: 'c1', accountId: id, key: id, record };
          }),
        ],
      });
      const keys = (list: MirrorTransaction[]) => list.map((t) => t.key);
      expect(keys(await storage.findTransactions('c1', 'a1'))).toEqual([fullwidth, emoji]);
      const scanned: string[] = [];
      for await (const row of storage.scanTransactions('c1')) scanned.push(row.key);
      expect(scanned).toEqual([fullwidth, emoji]);
      expect((await storage.listAccounts('c1')).map((a) => a.id)).toEqual(['\uFF21', '\u{1F600}']);
    });

    it('keeps connections apart: same account ids and keys in two connections', async () => {
      await storage.apply({
        changes: [
          added(transaction('c1', 'a1', 'id:x')),
          added(transaction('c2', 'a1', 'id:x', { amount: '-99' })),
        ],
        connections: [connectionState('c1'), connectionState('c2')],
      });
      expect((await storage.findTransactions('c2', 'a1'))[0]?.amount).toBe('-99');
      expect(
        (await storage.readChanges({ limit: 10, connectionId: 'c2' })).map((e) => e.connectionId),
      ).toEqual(['c2']);
      await storage.removeConnection('c1');
      expect(await storage.getConnection('c1')).toBeUndefined();
      expect(await storage.countTransactions('c1')).toBe(0);
      expect(await storage.countTransactions('c2')).toBe(1);
      expect((await storage.readChanges({ limit: 10 })).every((e) => e.connectionId === 'c2')).toBe(true);
      expect((await storage.listConnections()).map((c) => c.id)).toEqual(['c2']);
    });

    it('pages the feed with a cursor and misses nothing', async () => {
      const rows = Array.from({ length: 25 }, (_, i) =>
        transaction('c1', 'a1', `id:${String(i).padStart(3, '0')}`),
      );
      for (let i = 0; i < rows.length; i += 5)
        await storage.apply({ changes: rows.slice(i, i + 5).map(added) });
      const seen: FeedEntry[] = [];
      let after = 0;
      for (;;) {
        const page = await storage.readChanges({ after, limit: 7 });
        if (page.length === 0) break;
        seen.push(...page);
        after = page.at(-1)!.seq;
      }
      expect(seen.map((e) => e.key)).toEqual(rows.map((r) => r.key));
      expect(new Set(seen.map((e) => e.seq)).size).toBe(25);
    });

    it('reads the feed alike for any cursor and limit, and refuses ones that are not numbers', async () => {
      await storage.apply({
        changes: ['id:1', 'id:2', 'id:3'].map((k) => added(transaction('c1', 'a1', k))),
      });
      const all = await storage.readChanges({ limit: 10 });
      // A fractional cursor reads as the seq below it; a fractional limit rounds up; 0 reads nothing.
      expect(await storage.readChanges({ after: all[0]!.seq + 0.5, limit: 1.5 })).toEqual(all.slice(1, 3));
      expect(await storage.readChanges({ limit: 0 })).toEqual([]);
      expect(await storage.readChanges({ limit: Number.MAX_SAFE_INTEGER * 4 })).toEqual(all);
      for (const bad of [
        { after: Number.NaN, limit: 10 },
        { after: -1, limit: 10 },
        { after: '1', limit: 10 },
        { limit: Number.NaN },
        { limit: -5 },
        { limit: '3' },
      ])
        await expect(storage.readChanges(bad as never), JSON.stringify(bad)).rejects.toThrow(RangeError);
      // Text PostgreSQL cannot hold finds nothing, as an unknown id does elsewhere.
      expect(await storage.readChanges({ limit: 10, connectionId: 'c1\u0000' })).toEqual([]);
      expect(await storage.getConnection('c1\u0000')).toBeUndefined();
      expect(await storage.listAccounts('c1\u0000')).toEqual([]);
      expect(await storage.findTransactions('c1', 'a1', { keys: ['id:1', 'id:\u0000'] })).toEqual([
        expect.objectContaining({ key: 'id:1' }),
      ]);
      await storage.removeConnection('c1\u0000');
    });

    it('serializes concurrent batches: every commit lands whole, with unique increasing seqs', async () => {
      const batches = Array.from({ length: 20 }, (_, b) =>
        Array.from({ length: 10 }, (_, i) => transaction('c1', `a${b % 3}`, `id:${b}-${i}`)),
      );
      await Promise.all(batches.map((rows) => storage.apply({ changes: rows.map(added) })));
      const feed = await storage.readChanges({ limit: 1_000 });
      expect(feed).toHaveLength(200);
      expect(new Set(feed.map((e) => e.seq)).size).toBe(200);
      // Each batch's entries are contiguous in the feed: no interleaving inside a commit.
      const batchOf = (e: FeedEntry) => e.key.slice(3).split('-')[0];
      for (let i = 0; i < feed.length; i += 10) {
        expect(new Set(feed.slice(i, i + 10).map(batchOf)).size).toBe(1);
      }
      expect(await storage.countTransactions('c1')).toBe(200);
    });

    it('replaying the feed rebuilds the mirror', async () => {
      const t1 = transaction('c1', 'a1', 'id:1');
      const t2 = transaction('c1', 'a1', 'id:2');
      await storage.apply({ changes: [added(t1), added(t2)] });
      await storage.apply({ changes: [modified({ ...t1, amount: '-7.5' }), removed(t2)] });
      await storage.apply({ changes: [added({ ...t2, amount: '-1' })] });
      const replayed = new Map<string, MirrorTransaction>();
      for (const entry of await storage.readChanges({ limit: 100 })) {
        if (entry.entity !== 'transaction') continue;
        if (entry.op === 'removed') replayed.delete(entry.key);
        else replayed.set(entry.key, entry.record!);
      }
      expect([...replayed.values()].sort((a, b) => (a.key < b.key ? -1 : 1))).toEqual(
        (await storage.findTransactions('c1', 'a1')).sort((a, b) => (a.key < b.key ? -1 : 1)),
      );
    });

    it('returns copies: changing a returned record changes nothing stored', async () => {
      const t = transaction('c1', 'a1', 'id:1');
      await storage.apply({ changes: [added(t)] });
      const [copy] = await storage.findTransactions('c1', 'a1');
      copy!.amount = '0';
      t.amount = '1';
      expect((await storage.findTransactions('c1', 'a1'))[0]?.amount).toBe('-23.4');
    });

    it('survives reopening, when the adapter is durable', async () => {
      if (!subject.reopen) return;
      const t = transaction('c1', 'a1', 'id:durable');
      await storage.apply({ changes: [added(t)], connections: [connectionState('c1')] });
      const seq = await storage.lastSeq();
      const again = await subject.reopen();
      await again.init();
      try {
        expect(await again.findTransactions('c1', 'a1')).toEqual([t]);
        expect(await again.lastSeq()).toBe(seq);
        expect(await again.getConnection('c1')).toEqual(connectionState('c1'));
      } finally {
        await again.close();
      }
    });
  });
}
