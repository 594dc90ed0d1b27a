/**
 * The server's configuration from the environment, checked: a value that is not a number, or out
 * of its range, stops the start with one line naming the variable (never a silent default).
 * README.md's configuration table lists every variable.
 */
import { resolve } from 'node:path';
import { isLogLevel, type LogLevel } from './logger.js';
import { StartupError, type StartOptions } from './server.js';
import { databaseFromEnv, type DatabaseConfig } from './store/open.js';

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new StartupError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return value;
}

/** The pool's size applies to PostgreSQL only; it is checked either way, so a typo never waits for a move. */
function withPoolSize(database: DatabaseConfig, poolSize: number): DatabaseConfig {
  return database.kind === 'postgres' ? { ...database, poolSize } : database;
}

export interface ServerConfig {
  options: StartOptions;
  logLevel: LogLevel;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Omit<StartOptions, 'logger'> & {
  logLevel: LogLevel;
  /** Whether `npm start` makes the demo user and prints a fresh key of it (FINSYNC_DEMO). */
  demo: boolean;
} {
  const logLevel = env.FINSYNC_LOG_LEVEL?.trim() || 'info';
  if (!isLogLevel(logLevel))
    throw new StartupError(
      `FINSYNC_LOG_LEVEL must be debug, info, warn or error, got ${JSON.stringify(logLevel)}`,
    );
  const rateLimit = integer(env, 'FINSYNC_RATE_LIMIT_PER_HOUR', 0, 0, 1_000_000);
  const allowed = (env.FINSYNC_ALLOWED_PROVIDER_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  for (const url of allowed) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new StartupError(`FINSYNC_ALLOWED_PROVIDER_URLS: ${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== 'https:' && parsed.hostname !== '127.0.0.1' && parsed.hostname !== 'localhost')
      throw new StartupError(`FINSYNC_ALLOWED_PROVIDER_URLS: ${url} must be https (or a loopback address)`);
  }
  const scheduler = (env.FINSYNC_SCHEDULER?.trim() || 'on').toLowerCase();
  if (scheduler !== 'on' && scheduler !== 'off')
    throw new StartupError(
      `FINSYNC_SCHEDULER must be on or off, got ${JSON.stringify(env.FINSYNC_SCHEDULER)}`,
    );
  const demo = (env.FINSYNC_DEMO?.trim() || 'on').toLowerCase();
  if (demo !== 'on' && demo !== 'off')
    throw new StartupError(`FINSYNC_DEMO must be on or off, got ${JSON.stringify(env.FINSYNC_DEMO)}`);
  // The sandbox provider goes with the demo unless said otherwise: a server made ready for real users
  // (FINSYNC_DEMO=off) offers its generated accounts to none of them.
  const sandbox = (env.FINSYNC_SANDBOX?.trim() || demo).toLowerCase();
  if (sandbox !== 'on' && sandbox !== 'off')
    throw new StartupError(`FINSYNC_SANDBOX must be on or off, got ${JSON.stringify(env.FINSYNC_SANDBOX)}`);
  if (demo === 'on' && sandbox === 'off')
    throw new StartupError(
      'FINSYNC_SANDBOX=off needs FINSYNC_DEMO=off: the demo user syncs from the sandbox',
    );
  return {
    logLevel,
    demo: demo === 'on',
    // Relative to where the command was typed: npm runs a workspace's script in the workspace's
    // directory, and says where it was typed in INIT_CWD.
    dataDir: resolve(env.INIT_CWD ?? process.cwd(), env.FINSYNC_DATA_DIR ?? '.data'),
    database: withPoolSize(databaseFromEnv(env), integer(env, 'FINSYNC_PG_POOL_SIZE', 10, 1, 1_000)),
    scheduler: scheduler === 'on',
    sandbox: sandbox === 'on',
    port: integer(env, 'PORT', 3000, 0, 65_535),
    host: env.HOST?.trim() || '127.0.0.1',
    syncIntervalMs: integer(env, 'FINSYNC_SYNC_INTERVAL_MINUTES', 360, 1, 7 * 24 * 60) * 60_000,
    allowedProviderBaseUrls: allowed,
    http: {
      maxBodyBytes: integer(env, 'FINSYNC_MAX_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      requestTimeoutMs: integer(env, 'FINSYNC_REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000),
      rateLimit: rateLimit === 0 ? {} : { limit: rateLimit },
    },
    ...(env.FINSYNC_MASTER_KEY ? { masterKey: env.FINSYNC_MASTER_KEY } : {}),
  };
}
