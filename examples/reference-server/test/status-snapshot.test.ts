/**
 * `GET /api/v1/sync/status` shows a run that ends while it is read either as running or as the last
 * result, never neither: read the other way round, the status showed the run before's result with
 * nothing running, and a client polling until `running` is null took it for the run it had started.
 */
import { describe, expect, it, vi } from 'vitest';
import { SANDBOX, startReferenceServer, type RunningServer } from '../src/server.js';
import { createUser } from '../src/users.js';
import { BACKENDS, testDatabase } from './helpers.js';

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`the sync status ${backend.title}`, () => {
    it('shows a run that ends while the status is read as running or as its result, never neither', async () => {
      const db = testDatabase(backend);
      try {
        const server = await startReferenceServer({
          dataDir: db.dataDir,
          database: db.database,
          port: 0,
          scheduler: false,
          sandbox: { seed: 5, historyDays: 20, transactionsPerDay: 3 },
        });
        try {
          await runEndingWhileStatusIsRead(server);
        } finally {
          vi.restoreAllMocks();
          await server.close({ graceMs: 0 });
        }
      } finally {
        await db.cleanup();
      }
    });
  });
}

async function runEndingWhileStatusIsRead({ runtime }: RunningServer): Promise<void> {
  const user = await createUser(runtime.store, 'alice');
  await runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
  const before = await runtime.syncUser(user.id);
  const { store } = runtime;

  // The next run's result waits to be stored until the status has read the last result.
  let storing!: () => void;
  const reachedSave = new Promise<void>((resolve) => (storing = resolve));
  let letSave!: () => void;
  const saveGate = new Promise<void>((resolve) => (letSave = resolve));
  let stored!: () => void;
  const saved = new Promise<void>((resolve) => (stored = resolve));
  const saveLastSync = store.saveLastSync.bind(store);
  vi.spyOn(store, 'saveLastSync').mockImplementation(async (userId, summary) => {
    storing();
    await saveGate;
    await saveLastSync(userId, summary);
    stored();
  });
  const run = await runtime.startSync(user.id);
  await reachedSave; // the engine run is over; its result is being stored

  // The status reads the last result (still the run before's), then the result is stored and the
  // run leaves `running` before the status goes on.
  const lastSync = store.lastSync.bind(store);
  vi.spyOn(store, 'lastSync').mockImplementation(async (userId) => {
    const last = await lastSync(userId);
    letSave();
    await saved;
    await new Promise((resolve) => setImmediate(resolve));
    return last;
  });
  const status = await runtime.status(user.id);
  expect(status.last_sync?.run_id).toBe(before.run_id);
  expect(status.running?.run_id).toBe(run.run_id);

  vi.restoreAllMocks();
  const after = await runtime.status(user.id);
  expect(after.running).toBeNull();
  expect(after.last_sync).toMatchObject({ run_id: run.run_id, ok: true });
}
