import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX, startReferenceServer, type RunningServer } from '../src/server.js';
import { createApiKey, createUser } from '../src/users.js';
import type { SandboxOptions } from '@finsync/provider/sandbox';

export interface TestServer {
  server: RunningServer;
  dataDir: string;
  keys: { alice: string; aliceReadOnly: string; bob: string };
  users: { alice: string; bob: string };
  request(
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startTestServer(sandbox: SandboxOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'finsync-ref-'));
  const server = await startReferenceServer({
    dataDir,
    port: 0,
    sandbox: { seed: 21, historyDays: 45, transactionsPerDay: 3, ...sandbox },
    syncIntervalMs: 24 * 3_600_000,
  });
  const { db } = server.core;
  const alice = createUser(db, 'alice');
  const bob = createUser(db, 'bob');
  const keys = {
    alice: createApiKey(db, alice.id, { name: 'test' }).key,
    aliceReadOnly: createApiKey(db, alice.id, { name: 'ro', scope: 'read' }).key,
    bob: createApiKey(db, bob.id, { name: 'test' }).key,
  };
  const sandboxKey = sandbox.apiKey ?? 'sandbox-key';
  await server.core.setProviderKey(alice.id, sandboxKey, SANDBOX);
  await server.core.setProviderKey(bob.id, sandboxKey, SANDBOX);
  await server.core.syncUser(alice.id);
  await server.core.syncUser(bob.id);
  return {
    server,
    dataDir,
    keys,
    users: { alice: alice.id, bob: bob.id },
    async request(key, method, path, body) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(key ? { 'X-Api-Key': key } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
