/**
 * A PATCH target for bench-patch.ts, in its own process: either the reference server as `npm start`
 * runs it (auth, the body checks, the locked-field write, rendering, one access-log line a request on
 * stderr) or a bare handler on Node's own HTTP server doing the same SQLite update on the same schema.
 * Prints `{ url, key, id }` and serves until SIGTERM.
 *
 * The bare handler is on `node:http`, not on Hono: the reference server answers its ordinary PATCH on
 * `node:http` too (direct-update.ts), so a Hono handler would charge the baseline for a Fetch `Request`
 * and `Response` the measured side does not pay. It does what any handler must: read the body,
 * `JSON.parse` it, run the `UPDATE`, read the row back and send it as JSON.
 *
 * Usage: server.ts reference|bare <data dir>
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { consoleLogger } from '../../examples/reference-server/src/logger.js';
import { SANDBOX, SANDBOX_KEY, startReferenceServer } from '../../examples/reference-server/src/server.js';
import { openDatabase } from '../../examples/reference-server/src/store/sqlite-schema.js';
import { createApiKey, createUser } from '../../examples/reference-server/src/users.js';

const [mode, dataDir] = process.argv.slice(2) as ['reference' | 'bare', string];

async function reference() {
  const server = await startReferenceServer({
    dataDir,
    port: 0,
    sandbox: { seed: 3, historyDays: 30 },
    // The access log as `npm start` writes it (its default level); bench-patch.ts sends stderr to a file.
    logger: consoleLogger('info'),
    // Off: a scheduled sync would land in whichever 1 s slice it fell in, on one target only.
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
  const route = '/api/v1/transactions/';
  // Named, so that bench/profile.ts --target patch-bare finds where its busy time starts.
  const server = createServer(function bareHandler(request, response) {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const txId = (request.url ?? '').slice(route.length);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { transaction: { notes: string } };
      update.run(body.transaction.notes, new Date().toISOString(), txId, userId);
      const text = JSON.stringify(read.get(txId));
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    key: 'unused',
    id,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const target = mode === 'reference' ? await reference() : await bare();
process.stdout.write(`${JSON.stringify({ url: target.url, key: target.key, id: target.id })}\n`);
process.on('SIGTERM', () => void target.close().then(() => process.exit(0)));
