/**
 * A PATCH target for bench-patch.ts, in its own process: either the reference server (auth, the
 * body checks, the locked-field write, rendering) or a bare Hono handler doing the same SQLite update
 * on the same schema. Prints `{ url, key, id }` and serves until SIGTERM.
 *
 * Usage: server.ts reference|bare <data dir>
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { SANDBOX, SANDBOX_KEY, startReferenceServer } from '../../examples/reference-server/src/server.js';
import { openDatabase } from '../../examples/reference-server/src/store/sqlite-schema.js';
import { createApiKey, createUser } from '../../examples/reference-server/src/users.js';

const [mode, dataDir] = process.argv.slice(2) as ['reference' | 'bare', string];

async function reference() {
  const server = await startReferenceServer({
    dataDir,
    port: 0,
    sandbox: { seed: 3, historyDays: 30 },
    scheduler: false,
  });
  const user = await createUser(server.runtime.store, 'bench');
  const { key } = await createApiKey(server.runtime.store, user.id, { name: 'bench' });
  await server.runtime.setProviderKey(user.id, SANDBOX_KEY, SANDBOX);
  await server.runtime.syncUser(user.id);
  const page = (await (
    await fetch(`${server.url}/api/v1/transactions?per_page=1`, { headers: { 'X-Api-Key': key } })
  ).json()) as {
    transactions: Array<{ id: string }>;
  };
  return { url: server.url, key, id: page.transactions[0]!.id, close: () => server.close() };
}

async function bare() {
  // The same tables and pragmas as the reference server's SQLite store, one row to update.
  const db = openDatabase(join(dataDir, 'bare.db'));
  const now = new Date().toISOString();
  const [userId, accountId, id] = [randomUUID(), randomUUID(), randomUUID()];
  db.prepare('INSERT INTO app_users (id, name, created_at) VALUES (?, ?, ?)').run(userId, 'bench', now);
  db.prepare(
    "INSERT INTO app_accounts (id, user_id, provider_account_id, name, account_type, currency, balance, state) VALUES (?, ?, '1', 'A', 'depository', 'GBP', '0', 'active')",
  ).run(accountId, userId);
  db.prepare(
    `INSERT INTO app_transactions (id, user_id, account_id, feed_key, external_id, source, date, amount, currency, name, notes, is_pending, created_at, updated_at)
     VALUES (?, ?, ?, 'id:x', 'lunchflow_x', 'lunchflow', '2026-06-01', '12.5', 'GBP', 'Shop', NULL, 0, ?, ?)`,
  ).run(id, userId, accountId, now, now);
  const update = db.prepare(
    'UPDATE app_transactions SET notes = ?, updated_at = ? WHERE id = ? AND user_id = ?',
  );
  const read = db.prepare('SELECT * FROM app_transactions WHERE id = ?');
  const app = new Hono();
  app.patch('/api/v1/transactions/:id', async (c) => {
    const body = (await c.req.json()) as { transaction: { notes: string } };
    update.run(body.transaction.notes, new Date().toISOString(), c.req.param('id'), userId);
    return c.json(read.get(c.req.param('id')));
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, key: 'unused', id, close: async () => server.close() };
}

const target = mode === 'reference' ? await reference() : await bare();
process.stdout.write(`${JSON.stringify({ url: target.url, key: target.key, id: target.id })}\n`);
process.on('SIGTERM', () => void target.close().then(() => process.exit(0)));
