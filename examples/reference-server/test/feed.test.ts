/** Applying the engine's links to the app's rows: edits move with the purchase, deletions stay made. */
import { randomUUID } from 'node:crypto';
import type { FeedEntry, MirrorTransaction, SyncEngine } from '@finsync/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedApplier, FeedApplyStopped } from '../src/feed.js';
import {
  createTransaction,
  deleteTransaction,
  listDeletedTransactions,
  restoreTransaction,
} from '../src/lifecycle.js';
import { listTransactions } from '../src/transactions.js';
import { openStores, type OpenedStores } from '../src/store/open.js';
import { BACKENDS, testDatabase, type TestDatabase } from './helpers.js';

const record = (key: string, overrides: Partial<MirrorTransaction> = {}): MirrorTransaction => ({
  connectionId: 'c',
  accountId: 'acc',
  key,
  providerId: key.startsWith('id:') ? key.slice(3) : null,
  amount: '-5.69',
  currency: 'GBP',
  date: '2026-06-29',
  merchant: 'Corner Cafe',
  description: 'CARD PAYMENT TO CORNER CAFE',
  isPending: false,
  ...overrides,
});

/** An engine whose feed is whatever the test appends. */
function scriptedEngine(userId: string) {
  const feed: FeedEntry[] = [];
  const engine = {
    readChanges: async ({ after = 0, limit }: { after?: number; limit: number }) =>
      feed.filter((e) => e.seq > after).slice(0, limit),
  } as unknown as SyncEngine;
  const push = (entry: Record<string, unknown>) =>
    feed.push({
      connectionId: userId,
      accountId: 'acc',
      entity: 'transaction',
      at: '',
      seq: feed.length + 1,
      ...entry,
    } as FeedEntry);
  return { engine, push };
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`feed links ${backend.title}`, () => {
    let db: TestDatabase;
    let opened: OpenedStores;
    let userId: string;
    let accountId: string;
    // One feed for the suite: the app's cursor persists between tests, as it does between runs.
    let push: ReturnType<typeof scriptedEngine>['push'];
    let engine: SyncEngine;
    let applier: FeedApplier;

    beforeAll(async () => {
      db = testDatabase(backend);
      opened = openStores(db.database, db.dataDir);
      userId = randomUUID();
      accountId = randomUUID();
      await opened.store.atomically(async (unit) => {
        await unit.insertUser({ id: userId, name: `u-${userId}`, created_at: new Date().toISOString() });
        await unit.insertAccount({
          id: accountId,
          user_id: userId,
          provider_account_id: 'acc',
          name: 'Current',
          account_type: 'depository',
          currency: 'GBP',
          balance: null,
          state: 'active',
          institution_name: null,
        });
      });
      const scripted = scriptedEngine(userId);
      push = scripted.push;
      engine = scripted.engine;
      applier = new FeedApplier(opened.store, engine);
    });
    afterAll(async () => {
      await opened?.store.close();
      await opened?.storage.close();
      await db?.cleanup();
    });

    const deletedIds = async () =>
      (
        (await listDeletedTransactions(opened.store, userId, { per_page: 100 })).transactions as Array<{
          id: string;
        }>
      ).map((t) => t.id);
    const rowOf = async (key: string) =>
      opened.store.atomically(async (unit) => unit.findFeedTransaction(accountId, key));

    it('a hold replaced by a posted row the app already has: its edits move there, and it goes', async () => {
      const hold = record('h:aa:0', {
        isPending: true,
        providerId: null,
        description: 'Pending authorisation',
      });
      push({ op: 'added', key: hold.key, record: hold });
      push({ op: 'added', key: 'id:tx_1', record: record('id:tx_1') });
      await applier.apply(userId);
      const holdRow = (await rowOf(hold.key))!;
      await opened.store.atomically(async (unit) => {
        await unit.updateTransaction(holdRow.id, { name: 'Lunch with Sam', locked: ['name'] });
      });
      push({ op: 'removed', key: hold.key, record: null, replacedBy: 'id:tx_1', reason: 'posted' });
      await applier.apply(userId);
      expect(await rowOf(hold.key)).toBeUndefined();
      expect(await rowOf('id:tx_1')).toMatchObject({
        name: 'Lunch with Sam',
        locked: ['name'],
        deleted: false,
      });
    });

    it('a hold the user kept, linked to a posted row the user deleted as its duplicate: the purchase stays shown', async () => {
      const hold = record('h:cc:0', { isPending: true, providerId: null, amount: '-38.58' });
      push({ op: 'added', key: hold.key, record: hold });
      push({ op: 'added', key: 'id:tx_5', record: record('id:tx_5', { amount: '-38.58' }) });
      await applier.apply(userId);
      const holdRow = (await rowOf(hold.key))!;
      const posted = (await rowOf('id:tx_5'))!;
      await opened.store.atomically(async (unit) => {
        await unit.updateTransaction(holdRow.id, { notes: 'Team lunch', locked: ['notes'] });
      });
      await deleteTransaction(opened.store, userId, posted.id);
      push({ op: 'removed', key: hold.key, record: null, replacedBy: 'id:tx_5', reason: 'posted' });
      await applier.apply(userId);
      expect(await rowOf(hold.key)).toBeUndefined();
      expect(await rowOf('id:tx_5')).toMatchObject({ id: posted.id, deleted: false, notes: 'Team lunch' });
      expect(await opened.store.getTransaction(userId, posted.id)).toMatchObject({ notes: 'Team lunch' });
    });

    it('a row the user deleted stays a tombstone through removal and comes back deleted', async () => {
      push({ op: 'added', key: 'id:tx_2', record: record('id:tx_2', { amount: '-7' }) });
      await applier.apply(userId);
      const row = (await rowOf('id:tx_2'))!;
      await opened.store.atomically((unit) => unit.setDeleted(row.id, new Date().toISOString()));
      push({ op: 'removed', key: 'id:tx_2', record: null });
      push({ op: 'added', key: 'id:tx_2', record: record('id:tx_2', { amount: '-7.5' }) });
      await applier.apply(userId);
      expect(await rowOf('id:tx_2')).toMatchObject({ id: row.id, deleted: true, amount: '7.5' });
      expect(await opened.store.getTransaction(userId, row.id)).toBeUndefined();
      // A row nobody deleted is removed for good.
      push({ op: 'added', key: 'id:tx_3', record: record('id:tx_3') });
      push({ op: 'removed', key: 'id:tx_3', record: null });
      await applier.apply(userId);
      expect(await rowOf('id:tx_3')).toBeUndefined();
    });

    it('a row the user edited survives the provider dropping it for a while: same id, same edits', async () => {
      push({ op: 'added', key: 'id:tx_4', record: record('id:tx_4', { amount: '-12' }) });
      await applier.apply(userId);
      const row = (await rowOf('id:tx_4'))!;
      await opened.store.atomically((unit) =>
        unit.updateTransaction(row.id, { notes: 'Split with Sam', locked: ['notes'] }),
      );
      // The bank drops the row for one read: it is shown nowhere, not even among the deleted.
      push({ op: 'removed', key: 'id:tx_4', record: null });
      await applier.apply(userId);
      expect(await rowOf('id:tx_4')).toMatchObject({ id: row.id, gone: true, deleted: false });
      expect(await opened.store.getTransaction(userId, row.id)).toBeUndefined();
      expect(await deletedIds()).not.toContain(row.id);
      // Listed again: the same row, with the user's notes and the provider's new amount.
      push({ op: 'added', key: 'id:tx_4', record: record('id:tx_4', { amount: '-12.5' }) });
      await applier.apply(userId);
      expect(await rowOf('id:tx_4')).toMatchObject({
        id: row.id,
        gone: false,
        deleted: false,
        notes: 'Split with Sam',
        amount: '12.5',
      });
      expect(await opened.store.getTransaction(userId, row.id)).toMatchObject({ notes: 'Split with Sam' });
    });

    it('a deleted row the provider stopped listing leaves the deleted list and cannot be restored', async () => {
      push({ op: 'added', key: 'h:bb:0', record: record('h:bb:0', { isPending: true, providerId: null }) });
      await applier.apply(userId);
      const row = (await rowOf('h:bb:0'))!;
      await deleteTransaction(opened.store, userId, row.id);
      expect(await deletedIds()).toContain(row.id);
      // The bank releases the hold: nothing could bring it back, so nothing is offered.
      push({ op: 'removed', key: 'h:bb:0', record: null });
      await applier.apply(userId);
      expect(await deletedIds()).not.toContain(row.id);
      await expect(restoreTransaction(opened.store, userId, row.id)).rejects.toMatchObject({ status: 404 });
      // Listed again after all, it is still the user's deletion.
      push({ op: 'added', key: 'h:bb:0', record: record('h:bb:0', { isPending: true, providerId: null }) });
      await applier.apply(userId);
      expect(await rowOf('h:bb:0')).toMatchObject({ id: row.id, gone: false, deleted: true });
      expect(await deletedIds()).toContain(row.id);
    });

    it('a re-issued id and a revert keep the app row, its id and its deletion', async () => {
      push({ op: 'added', key: 'id:old', record: record('id:old', { amount: '-9' }) });
      await applier.apply(userId);
      const row = (await rowOf('id:old'))!;
      await opened.store.atomically((unit) => unit.setDeleted(row.id, new Date().toISOString()));
      push({
        op: 'added',
        key: 'id:new',
        record: record('id:new', { amount: '-9' }),
        replaces: 'id:old',
        reason: 'id-changed',
      });
      push({ op: 'removed', key: 'id:old', record: null, replacedBy: 'id:new', reason: 'id-changed' });
      push({
        op: 'added',
        key: 'id:old',
        record: record('id:old', { amount: '-9' }),
        replaces: 'id:new',
        reason: 'reverted',
      });
      push({ op: 'removed', key: 'id:new', record: null, replacedBy: 'id:old', reason: 'reverted' });
      await applier.apply(userId);
      expect(await rowOf('id:old')).toMatchObject({
        id: row.id,
        deleted: true,
        external_id: 'lunchflow_old',
      });
      expect(await rowOf('id:new')).toBeUndefined();
    });

    /** The user's live rows with this external id. */
    const liveWithKey = async (externalId: string) =>
      (
        (await listTransactions(opened.store, userId, { per_page: 100 })).transactions as Array<{
          id: string;
          name: string;
          notes: string | null;
          external_id: string | null;
        }>
      ).filter((row) => row.external_id === externalId);
    const createWithKey = async (externalId: string, name: string) => {
      const result = await createTransaction(
        opened.store,
        userId,
        {
          transaction: {
            account_id: accountId,
            name,
            amount: '5.69',
            date: '2026-06-29',
            external_id: externalId,
            source: 'lunchflow',
          },
        },
        '2026-07-01',
      );
      return { created: result.created, transaction: result.transaction as { id: string } };
    };

    it('a row created with the key of a row out of sight: listed again, the two are one row, the created one', async () => {
      push({ op: 'added', key: 'id:tx_9', record: record('id:tx_9') });
      await applier.apply(userId);
      const synced = (await rowOf('id:tx_9'))!;
      await opened.store.atomically((unit) =>
        unit.updateTransaction(synced.id, { notes: 'Coffee with Ana', locked: ['notes'] }),
      );
      push({ op: 'removed', key: 'id:tx_9', record: null });
      await applier.apply(userId);
      // Out of sight, the user imports the purchase by hand under the key the sync gives it.
      const created = await createWithKey('lunchflow_tx_9', 'Imported by hand');
      expect(created.created).toBe(true);
      push({ op: 'added', key: 'id:tx_9', record: record('id:tx_9') });
      await applier.apply(userId);
      const live = await liveWithKey('lunchflow_tx_9');
      expect(live).toEqual([
        expect.objectContaining({
          id: created.transaction.id,
          name: 'Imported by hand',
          notes: 'Coffee with Ana',
        }),
      ]);
      expect(await rowOf('id:tx_9')).toMatchObject({ id: created.transaction.id, gone: false });
    });

    it('a row created with the key of a posting whose hold is shown: the posting makes them one row', async () => {
      const hold = record('h:dd:0', { isPending: true, providerId: null, amount: '-5.69' });
      push({ op: 'added', key: hold.key, record: hold });
      await applier.apply(userId);
      const holdRow = (await rowOf(hold.key))!;
      await opened.store.atomically((unit) =>
        unit.updateTransaction(holdRow.id, { notes: 'Breakfast', locked: ['notes'] }),
      );
      const created = await createWithKey('lunchflow_tx_10', 'From the bank statement');
      push({
        op: 'added',
        key: 'id:tx_10',
        record: record('id:tx_10'),
        replaces: hold.key,
        reason: 'posted',
      });
      push({ op: 'removed', key: hold.key, record: null, replacedBy: 'id:tx_10', reason: 'posted' });
      await applier.apply(userId);
      expect(await liveWithKey('lunchflow_tx_10')).toEqual([
        expect.objectContaining({
          id: created.transaction.id,
          name: 'From the bank statement',
          notes: 'Breakfast',
        }),
      ]);
      expect(await rowOf(hold.key)).toBeUndefined();
      expect(await opened.store.getTransaction(userId, holdRow.id)).toBeUndefined();
    });

    it('a long feed lets other work run between its batches, and stops between two when told (a shutdown)', async () => {
      const before = await opened.store.feedCursor(userId);
      for (let i = 0; i < 1_000; i++)
        push({ op: 'added', key: `id:long_${i}`, record: record(`id:long_${i}`) });
      // A timer set as the application begins fires before it ends: requests are answered meanwhile.
      let ticks = 0;
      const tick = setInterval(() => (ticks += 1), 0);
      const stopping = new FeedApplier(opened.store, engine);
      const applied = stopping.apply(userId);
      await new Promise((resolve) => setImmediate(resolve));
      stopping.stop();
      const error = await applied.catch((e: unknown) => e);
      clearInterval(tick);
      expect(error).toBeInstanceOf(FeedApplyStopped);
      // Stopped at a batch's end: the cursor says where the next start goes on from, and it does.
      const cursor = await opened.store.feedCursor(userId);
      expect(cursor).toBeGreaterThan(before);
      expect(cursor).toBeLessThan(before + 1_000);
      expect(await rowOf(`id:long_${cursor - before - 1}`)).toBeDefined();
      expect(await rowOf(`id:long_${cursor - before}`)).toBeUndefined();
      const ticksWhileStopping = ticks;
      ticks = 0;
      const interval = setInterval(() => (ticks += 1), 0);
      expect(await applier.apply(userId)).toBe(before + 1_000 - cursor);
      clearInterval(interval);
      expect(ticksWhileStopping + ticks).toBeGreaterThan(0);
      expect(ticks).toBeGreaterThan(0);
      expect(await rowOf('id:long_999')).toBeDefined();
    });
  });
}
