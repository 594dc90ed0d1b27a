/**
 * `npm start`: the reference server on its embedded defaults — an SQLite file under ./.data, the
 * sandbox provider, and a demo user whose key is printed. With DATABASE_URL set, PostgreSQL instead.
 *
 * Environment: PORT (3000), HOST (127.0.0.1), FINSYNC_DATA_DIR (./.data), FINSYNC_MASTER_KEY (else a
 * generated key file in the data dir), FINSYNC_SYNC_INTERVAL_MINUTES (360), FINSYNC_SCHEDULER (on),
 * FINSYNC_LOG_LEVEL (info), DATABASE_URL (unset: SQLite), FINSYNC_PG_SCHEMA (finsync),
 * FINSYNC_PG_APP_SCHEMA (<schema>_app).
 */
import { resolve } from 'node:path';
import { consoleLogger } from './logger.js';
import { SANDBOX, SANDBOX_KEY, startReferenceServer } from './server.js';
import { databaseFromEnv } from './store/open.js';
import { createApiKey, createUser, findUser, revokeApiKeys } from './users.js';

const dataDir = resolve(
  process.env.FINSYNC_DATA_DIR ?? resolve(process.env.INIT_CWD ?? process.cwd(), '.data'),
);
const server = await startReferenceServer({
  dataDir,
  database: databaseFromEnv(),
  scheduler: process.env.FINSYNC_SCHEDULER !== 'off',
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  syncIntervalMs: Number(process.env.FINSYNC_SYNC_INTERVAL_MINUTES ?? 360) * 60_000,
  logger: consoleLogger(
    (process.env.FINSYNC_LOG_LEVEL as 'debug' | 'info' | 'warn' | 'error' | undefined) ?? 'info',
  ),
  ...(process.env.FINSYNC_MASTER_KEY ? { masterKey: process.env.FINSYNC_MASTER_KEY } : {}),
});

const { store } = server.core;
let demo = await findUser(store, 'demo');
if (!demo) {
  demo = await createUser(store, 'demo');
  await server.core.setProviderKey(demo.id, SANDBOX_KEY, SANDBOX);
}
// Keys are stored hashed, so the demo key can't be shown again: each start issues a fresh one.
await revokeApiKeys(store, demo.id, { namePrefix: 'npm-start' });
const { key } = await createApiKey(store, demo.id, { name: `npm-start ${new Date().toISOString()}` });
const summary = await server.core.syncUser(demo.id);

console.log(`
finsync reference server listening on ${server.url}
  data:        ${server.core.store.kind === 'sqlite' ? dataDir : server.core.databaseDescription}
  provider:    sandbox (no paid key needed)
  demo user:   ${demo.name}, synced ${summary.accounts.length} accounts (${summary.outcome})
  demo key:    ${key}   (shown once; a new one is issued on every start)

  curl -H "X-Api-Key: ${key}" "${server.url}/api/v1/transactions?per_page=5"
  curl -H "X-Api-Key: ${key}" ${server.url}/api/v1/sync/status
  OpenAPI:     ${server.url}/api/v1/openapi.json
Ctrl-C stops it.`);

const shutdown = () => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
