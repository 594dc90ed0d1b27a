/**
 * A user's provider key replaced while the server runs: through the API during a sync, or from the
 * command line (another process on the same data). The server syncs with the new key from then on,
 * and a run with the old one cannot leave the user waiting for a key they already gave.
 */
import { useTempDirs } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { SANDBOX } from '../src/provider-keys.js';
import { ServerRuntime } from '../src/runtime.js';
import { createUser } from '../src/users.js';

const tempDir = useTempDirs('key-rotation');
const SANDBOX_DATA = { seed: 5, historyDays: 30, transactionsPerDay: 2 };

/** Polls `condition` for up to 30 s: under a loaded CI machine a scheduled run can take seconds to come. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** What `npm run admin -- set-provider-key alice` does: a runtime on the same data, never started. */
async function storeFromCommandLine(dataDir: string, userId: string, key: string): Promise<void> {
  const cli = new ServerRuntime({ dataDir, sandbox: false });
  await cli.setProviderKey(userId, key, SANDBOX);
  await cli.close({ graceMs: 0 });
}

describe('a provider key replaced while the server runs', () => {
  it('through the API during a sync: the run with the old key stops, and the user stays active', async () => {
    const runtime = new ServerRuntime({
      dataDir: tempDir(),
      scheduler: false,
      sandbox: { seed: 5, historyDays: 60, transactionsPerDay: 3 },
    });
    await runtime.start();
    try {
      const user = await createUser(runtime.store, 'alice');
      runtime.sandbox!.faults.add({ kind: 'latency', ms: 150, match: { endpoint: 'transactions' } });
      await runtime.setProviderKey(user.id, 'sandbox-key', SANDBOX);
      await until(async () => (await runtime.status(user.id)).connection?.syncing === true, 'the first sync');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The old key is revoked at the provider, and the user sets the new one.
      runtime.sandbox!.setApiKey('rotated-key');
      await runtime.setProviderKey(user.id, 'rotated-key', SANDBOX);
      await until(
        async () => (await runtime.status(user.id)).connection?.syncing === false,
        'the syncs to end',
      );
      expect((await runtime.status(user.id)).connection?.status).toBe('active');
      runtime.sandbox!.faults.clear();
      expect((await runtime.syncUser(user.id)).outcome).toBe('success');
    } finally {
      await runtime.close({ graceMs: 0 });
    }
  }, 90_000);

  it('from the command line: the next scheduled sync uses it', async () => {
    const dataDir = tempDir();
    const server = new ServerRuntime({ dataDir, syncIntervalMs: 300, sandbox: SANDBOX_DATA });
    await server.start();
    try {
      const user = await createUser(server.store, 'alice');
      await server.setProviderKey(user.id, 'sandbox-key', SANDBOX);
      await until(async () => (await server.status(user.id)).last_sync !== null, 'the first sync');
      server.sandbox!.setApiKey('new-key');
      await storeFromCommandLine(dataDir, user.id, 'new-key');
      const storedAt = new Date().toISOString();
      await until(
        async () => ((await server.status(user.id)).connection?.last_run_at ?? '') > storedAt,
        'a scheduled sync after the key was stored',
      );
      await until(
        async () => (await server.status(user.id)).connection?.syncing === false,
        'that sync to end',
      );
      const status = await server.status(user.id);
      expect(status.connection?.status).toBe('active');
      expect(status.last_sync?.outcome).toBe('success');
    } finally {
      await server.close({ graceMs: 0 });
    }
  }, 90_000);

  it('from the command line for a user the provider already refused: picked up and synced with, no restart', async () => {
    const dataDir = tempDir();
    const server = new ServerRuntime({ dataDir, syncIntervalMs: 300, sandbox: SANDBOX_DATA });
    await server.start();
    try {
      const user = await createUser(server.store, 'alice');
      await server.setProviderKey(user.id, 'sandbox-key', SANDBOX);
      await until(async () => (await server.status(user.id)).last_sync !== null, 'the first sync');
      // The key is revoked at the provider: a scheduled run is refused, and the user waits for a key.
      server.sandbox!.setApiKey('new-key');
      await until(
        async () => (await server.status(user.id)).connection?.status === 'reauth_required',
        'the refusal',
      );
      const storedAt = new Date().toISOString();
      await storeFromCommandLine(dataDir, user.id, 'new-key');
      // The scheduler never runs a waiting user: before, this waited for a restart.
      await until(
        async () => (await server.status(user.id)).connection?.status === 'active',
        'the stored key to be picked up',
      );
      await until(
        async () => ((await server.status(user.id)).last_sync?.started_at ?? '') > storedAt,
        'a sync with it',
      );
      expect((await server.status(user.id)).last_sync?.outcome).toBe('success');
      expect((await server.status(user.id)).connection?.status).toBe('active');
    } finally {
      await server.close({ graceMs: 0 });
    }
  }, 90_000);

  it('the refused key itself, first seen by another instance, is not taken for a new one', async () => {
    const dataDir = tempDir();
    const lines: string[] = [];
    const logger = { info: (message: string) => lines.push(message) };
    // B watches for keys; it started before the key was stored, so never registered it.
    const b = new ServerRuntime({ dataDir, syncIntervalMs: 300, sandbox: SANDBOX_DATA, logger });
    await b.start();
    const a = new ServerRuntime({ dataDir, scheduler: false, sandbox: SANDBOX_DATA });
    await a.start();
    try {
      const user = await createUser(a.store, 'alice');
      await a.setProviderKey(user.id, 'sandbox-key', SANDBOX);
      await until(async () => (await a.status(user.id)).last_sync !== null, 'the first sync');
      a.sandbox!.setApiKey('revoked-now');
      const refused = await a.syncUser(user.id);
      expect(refused.outcome).toBe('failed');
      expect((await a.status(user.id)).connection?.status).toBe('reauth_required');
      // Several of B's passes: it opens the stored key, which its own sandbox would take, and must
      // not count it as new (before, it said "picked up" and a skipped run replaced the refusal).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(lines).not.toContain('a provider key stored elsewhere was picked up');
      const status = await a.status(user.id);
      expect(status.connection?.status).toBe('reauth_required');
      expect(status.last_sync?.run_id).toBe(refused.run_id);
    } finally {
      await b.close({ graceMs: 0 });
      await a.close({ graceMs: 0 });
    }
  }, 90_000);
});
