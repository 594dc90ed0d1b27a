/**
 * `npm start`: the reference server on its embedded defaults — an SQLite file under ./.data, the
 * sandbox provider, and a demo user whose key is printed.
 *
 * Environment: PORT (3000), HOST (127.0.0.1), FINSYNC_DATA_DIR (./.data), FINSYNC_MASTER_KEY (else a
 * generated key file in the data dir), FINSYNC_SYNC_INTERVAL_MINUTES (360), FINSYNC_LOG_LEVEL (info).
 */
import { resolve } from 'node:path';
import { consoleLogger } from './logger.js';
import { SANDBOX, SANDBOX_KEY, startReferenceServer } from './server.js';
import { createApiKey, createUser, findUser, revokeApiKeys } from './users.js';

const dataDir = resolve(
  process.env.FINSYNC_DATA_DIR ?? resolve(process.env.INIT_CWD ?? process.cwd(), '.data'),
);
const server = await startReferenceServer({
  dataDir,
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  syncIntervalMs: Number(process.env.FINSYNC_SYNC_INTERVAL_MINUTES ?? 360) * 60_000,
  logger: consoleLogger(
    (process.env.FINSYNC_LOG_LEVEL as 'debug' | 'info' | 'warn' | 'error' | undefined) ?? 'info',
  ),
  ...(process.env.FINSYNC_MASTER_KEY ? { masterKey: process.env.FINSYNC_MASTER_KEY } : {}),
});

const { db } = server.core;
let demo = findUser(db, 'demo');
if (!demo) {
  demo = createUser(db, 'demo');
  await server.core.setProviderKey(demo.id, SANDBOX_KEY, SANDBOX);
}
// Keys are stored hashed, so the demo key can't be shown again: each start issues a fresh one.
revokeApiKeys(db, demo.id, { namePrefix: 'npm-start' });
const { key } = createApiKey(db, demo.id, { name: `npm-start ${new Date().toISOString()}` });
const summary = await server.core.syncUser(demo.id);

console.log(`
finsync reference server listening on ${server.url}
  data:        ${dataDir}
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
