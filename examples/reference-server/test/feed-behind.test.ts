/**
 * A run's change feed that the server cannot apply to its own tables (the database busy past its
 * timeout, say) is said in the run's result, leaves no run shown as running, and is applied again
 * within a minute (here a second: the watch follows a shorter sync interval), without a new run.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SyncRuns } from '../src/runs.js';
import { SANDBOX, startReferenceServer, type RunningServer } from '../src/server.js';
import { PostgresAppStore } from '../src/store/postgres.js';
import { SqliteAppStore } from '../src/store/sqlite.js';
import type { AppStore } from '../src/store/types.js';
import { createApiKey, createUser } from '../src/users.js';
import { BACKENDS, testDatabase, type TestDatabase } from './helpers.js';

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`a change feed the server could not apply ${backend.title}`, () => {
    let db: TestDatabase | undefined;
    let server: RunningServer | undefined;
    afterEach(async () => {
      vi.restoreAllMocks();
      await server?.close({ graceMs: 0 });
      await db?.cleanup();
      server = undefined;
      db = undefined;
    });

    /** The server on this test's database; by default its catch-up beat comes every second. */
    const start = (syncIntervalMs: number | undefined = 1_000) =>
      startReferenceServer({
        dataDir: db!.dataDir,
        database: db!.database,
        port: 0,
        scheduler: false,
        ...(syncIntervalMs === undefined ? {} : { syncIntervalMs }),
        sandbox: { seed: 5, historyDays: 20, transactionsPerDay: 3 },
      });

    /** Alice, with the sandbox's provider key, and the result of her first sync. */
    async function syncedUser(runtime: RunningServer['runtime']) {
      const user = await createUser(runtime.store, 'alice');
      await runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
      return { user, first: await runtime.syncUser(user.id) };
    }

    /** The feed's units of work fail, as on a busy database, while `left` (counted down) is above 0. */
    function failApplies(runtime: RunningServer['runtime'], left: number) {
      const failing = { left };
      const atomically = runtime.store.atomically.bind(runtime.store);
      vi.spyOn(runtime.store, 'atomically').mockImplementation(((work, options) =>
        failing.left-- > 0
          ? Promise.reject(new Error('database is locked'))
          : atomically(work, options)) as typeof runtime.store.atomically);
      return failing;
    }

    /** The run results stored fail, as on a busy database, while `left` (counted down) is above 0. */
    function failSaves(runtime: RunningServer['runtime'], left: number) {
      const failing = { left };
      const saveLastSync = runtime.store.saveLastSync.bind(runtime.store);
      vi.spyOn(runtime.store, 'saveLastSync').mockImplementation((userId, text) =>
        failing.left-- > 0 ? Promise.reject(new Error('database is locked')) : saveLastSync(userId, text),
      );
      return failing;
    }

    /** The feed's last entry, and how far this server's tables have applied it. */
    async function feedPosition(runtime: RunningServer['runtime'], userId: string) {
      const feed = await runtime.engine.readChanges({ after: 0, limit: 100_000, connectionId: userId });
      return { last: feed.at(-1)!.seq, cursor: await runtime.store.feedCursor(userId) };
    }

    it("is in the run's result, the run ends, and the rows reach the API within the minute", async () => {
      db = testDatabase(backend);
      server = await start();
      const { runtime } = server;
      const { user, first } = await syncedUser(runtime);
      const key = (await createApiKey(runtime.store, user.id, { name: 't' })).key;
      expect(first.ok).toBe(true);
      const listed = async () => {
        const response = await fetch(`${server!.url}/api/v1/transactions?per_page=1`, {
          headers: { 'X-Api-Key': key },
        });
        return ((await response.json()) as { pagination: { total_count: number } }).pagination.total_count;
      };
      const before = await listed();

      // Two days on, the feed's application fails, as on a busy database, until the checks below are
      // made (a catch-up beat that came first on a slow machine would otherwise apply it meanwhile).
      runtime.sandbox!.advanceDays(2);
      const applies = failApplies(runtime, Infinity);
      const summary = await runtime.syncUser(user.id);
      expect(summary.ok).toBe(false);
      expect(summary.issues).toContainEqual(
        expect.objectContaining({
          stage: 'feed',
          account_id: null,
          error: 'FeedApplyError',
          message: expect.stringMatching(
            /could not be applied to this server's tables \(database is locked\)/,
          ),
        }),
      );
      expect(summary.outcome).toBe('partial');
      const status = await runtime.status(user.id);
      expect(status.running).toBeNull();
      expect(status.last_sync?.run_id).toBe(summary.run_id);
      expect(await listed()).toBe(before);

      // Applied again on the watch's next beat, whose result cannot be stored the first time (the
      // database busy again): the beat after stores it. The rows are listed and the result is whole.
      const saves = failSaves(runtime, 1);
      applies.left = 0;
      await vi.waitFor(
        async () => {
          const caughtUp = await runtime.status(user.id);
          expect(caughtUp.last_sync).toMatchObject({ run_id: summary.run_id, ok: true, outcome: 'success' });
          expect(caughtUp.last_sync!.issues).toEqual([]);
        },
        { timeout: 10_000, interval: 200 },
      );
      expect(saves.left).toBeLessThan(0);
      expect(await listed()).toBeGreaterThan(before);
      const position = await feedPosition(runtime, user.id);
      expect(position.cursor).toBe(position.last);
    }, 30_000);

    it('a run that ends while a catch-up is under way keeps its own result, and its feed is caught up too', async () => {
      db = testDatabase(backend);
      server = await start();
      const { runtime } = server;
      const { user } = await syncedUser(runtime);
      const applies = failApplies(runtime, Infinity);
      runtime.sandbox!.advanceDays(2);
      const a = await runtime.syncUser(user.id);
      expect(a.ok).toBe(false);
      // The next beat's catch-up of A's feed holds on until run B has stored its result, or for 1.5 s
      // when B cannot store it before the catch-up is done (as it should not).
      const finish = SyncRuns.prototype.finish;
      let bStored!: () => void;
      const bFinished = new Promise<void>((resolve) => (bStored = resolve));
      vi.spyOn(SyncRuns.prototype, 'finish').mockImplementation(async function (this: SyncRuns, ...args) {
        const done = await finish.apply(this, args);
        bStored();
        return done;
      });
      const bEnded = Promise.race([bFinished, new Promise<void>((resolve) => setTimeout(resolve, 1_500))]);

      let reached!: () => void;
      const atCatchUp = new Promise<void>((resolve) => (reached = resolve));
      const feedCaughtUp = SyncRuns.prototype.feedCaughtUp;
      let first = true;
      vi.spyOn(SyncRuns.prototype, 'feedCaughtUp').mockImplementation(async function (
        this: SyncRuns,
        userId: string,
        applied: number,
      ) {
        if (first) {
          first = false;
          reached();
          await bEnded;
        }
        return feedCaughtUp.call(this, userId, applied);
      });
      applies.left = 0;
      await atCatchUp;
      // Run B, whose feed cannot be applied either (the database busy again by then).
      applies.left = Infinity;
      runtime.sandbox!.advanceDays(2);
      const bRun = runtime.syncUser(user.id);
      await bEnded;
      applies.left = 0;
      const b = await bRun;
      // B's own result, not A's caught up over it; then B's feed is caught up on a later beat.
      await vi.waitFor(
        async () => {
          const last = (await runtime.status(user.id)).last_sync!;
          expect(last).toMatchObject({ run_id: b.run_id, ok: true, issues: [] });
          const position = await feedPosition(runtime, user.id);
          expect(position.cursor).toBe(position.last);
        },
        { timeout: 10_000, interval: 200 },
      );
    }, 30_000);

    it('a run that applies the feed but cannot store its result has it stored on a later beat', async () => {
      db = testDatabase(backend);
      server = await start();
      const { runtime } = server;
      const { user } = await syncedUser(runtime);
      const applies = failApplies(runtime, Infinity);
      runtime.sandbox!.advanceDays(2);
      expect((await runtime.syncUser(user.id)).ok).toBe(false);
      // Run B applies everything, but its result cannot be stored the first time.
      applies.left = 0;
      failSaves(runtime, 1);
      runtime.sandbox!.advanceDays(1);
      const b = await runtime.syncUser(user.id);
      expect(b.ok).toBe(true);
      await vi.waitFor(
        async () =>
          expect((await runtime.status(user.id)).last_sync).toMatchObject({
            run_id: b.run_id,
            ok: true,
            issues: [],
          }),
        { timeout: 10_000, interval: 200 },
      );
    }, 30_000);

    it('close() waits for each ended run to apply its feed and store its result, each run under its own id', async () => {
      db = testDatabase(backend);
      server = await start(undefined);
      const { runtime } = server;
      const { user } = await syncedUser(runtime);
      // Each unit of work of the feed is slow (a busy database): two runs end while the first applies.
      const atomically = runtime.store.atomically.bind(runtime.store);
      vi.spyOn(runtime.store, 'atomically').mockImplementation((async (work, options) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return atomically(work, options);
      }) as typeof runtime.store.atomically);
      const ids: string[] = [];
      for (let run = 0; run < 2; run++) {
        runtime.sandbox!.advanceDays(1);
        await runtime.engine.sync(user.id);
        ids.push((await runtime.status(user.id)).running!.run_id);
      }
      expect(new Set(ids).size).toBe(2);
      await server.close({ graceMs: 0 });
      server = undefined;
      vi.restoreAllMocks();
      server = await start(undefined);
      const status = await server.runtime.status(user.id);
      expect(status.last_sync).toMatchObject({ run_id: ids[1], ok: true });
      const position = await feedPosition(server.runtime, user.id);
      expect(position.cursor).toBe(position.last);
    }, 30_000);

    it("a shutdown during the beat's catch-up of a feed stops it between two batches; the next start applies the rest", async () => {
      db = testDatabase(backend);
      server = await start();
      const { runtime } = server;
      const { user } = await syncedUser(runtime);
      // The next run's feed cannot be applied once (a busy database); after that each unit of work is
      // slow, so the beat's catch-up of its batches is still under way when the shutdown begins.
      let units = 0;
      const atomically = runtime.store.atomically.bind(runtime.store);
      vi.spyOn(runtime.store, 'atomically').mockImplementation((async (work, options) => {
        units += 1;
        if (units === 1) throw new Error('database is locked');
        await new Promise((resolve) => setTimeout(resolve, 300));
        return atomically(work, options);
      }) as typeof runtime.store.atomically);
      runtime.sandbox!.advanceDays(30);
      expect((await runtime.syncUser(user.id)).ok).toBe(false);
      const behind = await feedPosition(runtime, user.id);
      expect(behind.last - behind.cursor).toBeGreaterThan(500);
      await vi.waitFor(() => expect(units).toBeGreaterThan(1), { timeout: 10_000, interval: 20 });
      await server.close({ graceMs: 0 });
      server = undefined;
      vi.restoreAllMocks();
      // Stopped between two batches, not applied to the end (at least three batches of 250): the
      // shutdown did not wait for it. The failed unit, then one or two of the catch-up's.
      expect(units).toBeLessThan(4);
      server = await start();
      const applied = await feedPosition(server.runtime, user.id);
      await vi.waitFor(async () => {
        const now = await feedPosition(server!.runtime, user.id);
        expect(now.cursor).toBe(now.last);
      });
      expect(applied.last).toBe(behind.last);
    }, 30_000);

    it('left behind by the last run does not stop the next start, and is applied once it can be', async () => {
      db = testDatabase(backend);
      server = await start();
      const { user } = await syncedUser(server.runtime);
      // Every application of the feed fails, as long as the lock is held: the run's rows wait in the feed.
      const proto: AppStore =
        backend.kind === 'postgres' ? PostgresAppStore.prototype : SqliteAppStore.prototype;
      const failing = vi
        .spyOn(proto, 'atomically')
        .mockImplementation(() => Promise.reject(new Error('database is locked')));
      server.runtime.sandbox!.advanceDays(2);
      expect((await server.runtime.syncUser(user.id)).ok).toBe(false);
      await server.close({ graceMs: 0 });
      server = undefined;
      const behind = await (async () => {
        const probe = await start();
        try {
          // Started although the feed could not be applied at start.
          return await feedPosition(probe.runtime, user.id);
        } finally {
          await probe.close({ graceMs: 0 });
        }
      })();
      expect(behind.cursor).toBeLessThan(behind.last);
      failing.mockRestore();
      // The feed applies at this start, but its run's result cannot be stored then: the start goes on,
      // and the next beat stores it.
      const saving = vi.spyOn(proto, 'saveLastSync').mockRejectedValueOnce(new Error('database is locked'));
      server = await start();
      expect(saving).toHaveBeenCalled();
      const { runtime } = server;
      await vi.waitFor(
        async () => {
          expect(await runtime.store.feedCursor(user.id)).toBe(behind.last);
          expect((await runtime.status(user.id)).last_sync).toMatchObject({ ok: true, issues: [] });
        },
        { timeout: 10_000, interval: 200 },
      );
    }, 60_000);
  });
}
