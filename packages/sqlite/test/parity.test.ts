/**
 * Drives SqliteStorage and the reference MemoryStorage through the same history and expects the
 * same answers from every read, `at` timestamps aside: the adapter must be a drop-in replacement.
 */
import { MemoryStorage, type FeedEntry, type Storage, type WriteBatch } from '@finsync/sync';
import { fixtures } from '@finsync/sync/testing';
import { expect, it } from 'vitest';
import { SqliteStorage } from '../src/index.js';
import { tempDatabase } from './helpers.js';

const { account, accountState, added, connectionState, holding, modified, removed, transaction } = fixtures;

const pending = transaction('c1', 'a1', 'h:p:0', { isPending: true, providerId: null, merchant: null });
const posted = transaction('c1', 'a1', 'id:tx_9', { date: '2026-03-16', description: null, currency: null });
const checking = account('c1', 'a1');
const closed = account('c1', 'a2', {
  balance: null,
  upstreamStatus: null,
  state: 'gone',
  institutionName: null,
});
const fund = holding('c1', 'a3', 'id:h1');

const history: WriteBatch[] = [
  {
    changes: [
      { entity: 'account', op: 'added', connectionId: 'c1', accountId: 'a1', key: 'a1', record: checking },
      { entity: 'account', op: 'added', connectionId: 'c1', accountId: 'a2', key: 'a2', record: closed },
      { entity: 'holding', op: 'added', connectionId: 'c1', accountId: 'a3', key: fund.key, record: fund },
      added(pending),
      added(transaction('c1', 'a1', 'id:1', { date: '2026-03-01' })),
      added(transaction('c2', 'a1', 'id:1', { amount: '-1.00' })),
    ],
    connections: [
      connectionState('c1'),
      connectionState('c2', { status: 'reauth_required', statusReason: '401' }),
    ],
    accountStates: [
      accountState('c1', 'a1', { holdingsSupported: false }),
      accountState('c1', 'a3', { holdingsSupported: true }),
    ],
  },
  // Links present, explicitly null, and absent must all come back as they went in.
  {
    changes: [
      { ...added(posted), replaces: pending.key },
      { ...removed(pending), replacedBy: posted.key },
    ],
  },
  { changes: [{ ...modified({ ...posted, amount: '-0.01' }), replaces: null, replacedBy: null }] },
  {
    changes: [
      {
        entity: 'account',
        op: 'modified',
        connectionId: 'c1',
        accountId: 'a1',
        key: 'a1',
        record: { ...checking, balance: null },
      },
      {
        entity: 'holding',
        op: 'modified',
        connectionId: 'c1',
        accountId: 'a3',
        key: fund.key,
        record: { ...fund, price: null },
      },
      { entity: 'account', op: 'removed', connectionId: 'c1', accountId: 'a2', key: 'a2', record: null },
    ],
    connections: [
      connectionState('c1', {
        lastRunAt: '2026-03-17T00:00:00.000Z',
        lastSuccessAt: '2026-03-17T00:00:00.000Z',
      }),
    ],
    accountStates: [
      accountState('c1', 'a1', {
        watermark: '2026-03-16',
        lastError: 'x',
        holdingsCheckedAt: '2026-03-17T00:00:00.000Z',
      }),
    ],
  },
  // Rejected: must leave both storages as they were.
  { changes: [added(transaction('c1', 'a1', 'id:2')), modified(transaction('c1', 'a1', 'id:missing'))] },
  {
    changes: [
      { entity: 'holding', op: 'removed', connectionId: 'c1', accountId: 'a3', key: fund.key, record: null },
    ],
  },
];

async function snapshot(storage: Storage): Promise<unknown> {
  const withoutAt = (entries: FeedEntry[]) => entries.map(({ at: _at, ...rest }) => rest);
  const scanned = [];
  for await (const row of storage.scanTransactions('c1')) scanned.push(row);
  return {
    connections: await storage.listConnections(),
    c1: await storage.getConnection('c1'),
    accounts: await storage.listAccounts('c1'),
    accountStates: await storage.listAccountStates('c1'),
    transactions: await storage.findTransactions('c1', 'a1'),
    pending: await storage.findTransactions('c1', 'a1', { pending: true }),
    window: await storage.findTransactions('c1', 'a1', {
      from: '2026-03-02',
      to: '2026-03-31',
      pending: false,
    }),
    scanned,
    counts: [
      await storage.countTransactions('c1'),
      await storage.countTransactions('c1', 'a1'),
      await storage.countTransactions('c2'),
    ],
    holdings: await storage.listHoldings('c1', 'a3'),
    feed: withoutAt(await storage.readChanges({ limit: 1_000 })),
    feedC2: withoutAt(await storage.readChanges({ limit: 1_000, connectionId: 'c2' })),
    feedPage: withoutAt(await storage.readChanges({ after: 3, limit: 2 })),
    noFeed: await storage.readChanges({ limit: 0 }),
    lastSeq: await storage.lastSeq(),
  };
}

it('answers every read exactly as MemoryStorage does, after each batch', async () => {
  const memory = new MemoryStorage();
  const sqlite = new SqliteStorage({ filename: tempDatabase() });
  await Promise.all([memory.init(), sqlite.init()]);
  for (const batch of history) {
    const [fromMemory, fromSqlite] = await Promise.allSettled([memory.apply(batch), sqlite.apply(batch)]);
    expect(fromSqlite.status).toBe(fromMemory.status);
    if (fromMemory.status === 'rejected' && fromSqlite.status === 'rejected') {
      expect(fromSqlite.reason).toEqual(fromMemory.reason);
      expect((fromSqlite.reason as Error).message).toBe((fromMemory.reason as Error).message);
    }
    expect(await snapshot(sqlite)).toStrictEqual(await snapshot(memory));
  }
  for (const storage of [memory, sqlite]) await storage.removeConnection('c2');
  expect(await snapshot(sqlite)).toStrictEqual(await snapshot(memory));
  await Promise.all([memory.close(), sqlite.close()]);
});
