/**
 * `npm start`: the reference server on its embedded defaults — an SQLite file under ./.data, the
 * sandbox provider, and a demo user whose key is printed. With DATABASE_URL set, PostgreSQL instead.
 *
 * Configuration comes from the environment (config.ts; every variable is in the README's table).
 */
import { configFromEnv } from './config.js';
import { consoleLogger, flushLogs } from './logger.js';
import { SANDBOX, SANDBOX_KEY, StartupError, startReferenceServer, type RunningServer } from './server.js';
import { createApiKey, createUser, findUser, revokeApiKeys } from './users.js';

/** A start that cannot work ends with one line and exit code 1: no stack trace to read through. */
function fail(error: unknown): never {
  const message =
    error instanceof StartupError
      ? error.message
      : (error as { code?: string }).code === 'ECONNREFUSED'
        ? 'cannot reach the database (DATABASE_URL): connection refused'
        : error instanceof Error
          ? error.message
          : String(error);
  flushLogs();
  process.stderr.write(`finsync: cannot start: ${message}\n`);
  process.exit(1);
}

let server: RunningServer;
let dataDir: string;
let demoOn: boolean;
let sandboxOn: boolean;
try {
  const { logLevel, demo, ...options } = configFromEnv();
  dataDir = options.dataDir;
  demoOn = demo;
  sandboxOn = options.sandbox !== false;
  server = await startReferenceServer({ ...options, logger: consoleLogger(logLevel) });
} catch (error) {
  fail(error);
}

/** The demo user with the sandbox's provider key, a fresh API key, and its first sync. */
async function prepareDemo() {
  const { store } = server.runtime;
  const demo = (await findUser(store, 'demo')) ?? (await createUser(store, 'demo'));
  // Whenever it is missing, not only with a new user: a first start killed between storing the user
  // and storing its key left a demo user without one, and every later start failed on it.
  if (!(await store.getProviderCredential(demo.id)))
    await server.runtime.setProviderKey(demo.id, SANDBOX_KEY, SANDBOX);
  // Keys are stored hashed, so the demo key can't be shown again: each start issues a fresh one.
  await revokeApiKeys(store, demo.id, { namePrefix: 'npm-start ' });
  const { key } = await createApiKey(store, demo.id, { name: `npm-start ${new Date().toISOString()}` });
  return { demo, key, summary: await server.runtime.syncUser(demo.id) };
}

/** FINSYNC_DEMO=off: no demo user is made, and the keys earlier starts printed for one stop working. */
async function retireDemo() {
  const { store } = server.runtime;
  const demo = await findUser(store, 'demo');
  return demo ? revokeApiKeys(store, demo.id, { namePrefix: 'npm-start ' }) : 0;
}

const where = () => (server.runtime.store.kind === 'sqlite' ? dataDir : server.runtime.databaseDescription);
if (demoOn) {
  let prepared: Awaited<ReturnType<typeof prepareDemo>>;
  try {
    prepared = await prepareDemo();
  } catch (error) {
    fail(error);
  }
  const { demo, key, summary } = prepared;
  // The sync's log lines first, then the banner: they wait up to 10 ms to be written (logger.ts).
  flushLogs();

  console.log(`
finsync reference server listening on ${server.url}
  data:        ${where()}
  provider:    sandbox (no paid key needed)
  demo user:   ${demo.name}, synced ${summary.accounts.length} accounts (${summary.outcome})
  demo key:    ${key}   (shown once; a new one is issued on every start; FINSYNC_DEMO=off for none)

  curl -H "X-Api-Key: ${key}" "${server.url}/api/v1/transactions?per_page=5"
  curl -H "X-Api-Key: ${key}" ${server.url}/api/v1/sync/status
  OpenAPI:     ${server.url}/api/v1/openapi.json
Ctrl-C stops it.`);
} else {
  let retired = 0;
  try {
    retired = await retireDemo();
  } catch (error) {
    fail(error);
  }
  flushLogs();
  console.log(`
finsync reference server listening on ${server.url}
  data:        ${where()}
  demo:        off (FINSYNC_DEMO=off)${retired > 0 ? `; ${retired} demo key(s) printed by earlier starts revoked` : ''}
  sandbox:     ${sandboxOn ? 'on: users may choose base_url "sandbox" (FINSYNC_SANDBOX=off for none)' : 'off (FINSYNC_SANDBOX=on offers it to users)'}
  users:       npm run admin -- create-user <name>  (prints the user's API key once)
  OpenAPI:     ${server.url}/api/v1/openapi.json
Ctrl-C stops it.`);
}

// Stops taking requests, lets those in flight and any running sync finish (up to 30 s), then exits.
let stopping = false;
const shutdown = () => {
  if (stopping) process.exit(1); // a second Ctrl-C: now
  stopping = true;
  flushLogs();
  process.stderr.write('finsync: stopping (finishing requests and syncs in flight; Ctrl-C again to force)\n');
  void server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
