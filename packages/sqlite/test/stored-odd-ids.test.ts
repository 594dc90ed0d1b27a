/**
 * A connection an earlier engine stored under an id with a lone UTF-16 surrogate: SQLite keeps the
 * bytes it cannot encode, and lists the id as U+FFFD, under which no lookup finds it. The engine now
 * refuses such ids, and must still let the others sync and this one be removed.
 */
import { ProviderClient } from '@finsync/provider';
import { SyncEngine } from '@finsync/sync';
import { fixtures } from '@finsync/sync/testing';
import { expect, it } from 'vitest';
import { SqliteStorage } from '../src/index.js';

const noAccounts = (async () =>
  new Response(JSON.stringify({ accounts: [], total: 0 }), {
    headers: { 'content-type': 'application/json' },
  })) as typeof fetch;

it('a stored connection no lookup finds again is skipped by sync(), and removed under the id it was added with', async () => {
  const storage = new SqliteStorage({ filename: ':memory:' });
  await storage.init();
  const odd = 'user-\ud800';
  // As an engine before such ids were refused stored it.
  await storage.apply({ changes: [], connections: [fixtures.connectionState(odd)] });
  expect(await storage.getConnection((await storage.listConnections())[0]!.id)).toBeUndefined();
  const warnings: string[] = [];
  const engine = new SyncEngine({ storage, logger: { warn: (message) => warnings.push(message) } });
  await engine.addConnection({
    id: 'good',
    client: new ProviderClient({ apiKey: 'k_test', rateLimit: false, maxRetries: 0, fetch: noAccounts }),
  });
  const report = await engine.sync();
  expect(report.connections.map((c) => [c.connectionId, c.ok])).toEqual([['good', true]]);
  expect(warnings).toContain('a stored connection cannot be found by its listed id; skipped');
  await engine.removeConnection(odd, { purge: true });
  expect((await storage.listConnections()).map((c) => c.id)).toEqual(['good']);
  await storage.close();
});
