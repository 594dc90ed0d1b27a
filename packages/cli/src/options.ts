/**
 * Turns flags and environment into a database, an API key and a provider, checking everything a
 * command needs before anything is opened: a missing key must not leave an empty database behind.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_BASE_URL, apiKeyFault, type ProviderClientOptions } from '@finsync/provider';
import type { SandboxProvider } from '@finsync/provider/sandbox';
import { SqliteStorage } from '@finsync/sqlite';
import type { ConnectionState, CredentialSource, Storage, SyncLogger } from '@finsync/sync';
import { DEFAULT_CONNECTION, DEFAULT_DATABASE, DEFAULT_SANDBOX_DAYS, DEFAULT_SCHEMA } from './defaults.js';
import { CliError, ExitCode } from './exit-codes.js';
import { note, rememberSecret, warn } from './io.js';
import { prepareSqliteFile } from './sqlite-file.js';
import { openStoredKey, shownUrl } from './vault.js';

export { DEFAULT_CONNECTION, SANDBOX_CONNECTION } from './defaults.js';
export const SANDBOX_KEY = 'sandbox-key';

export type DatabaseTarget =
  { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema: string };

export interface DatabaseFlags {
  database?: string;
  schema?: string;
}

export function resolveDatabase(flags: DatabaseFlags): DatabaseTarget {
  // commander has already folded FINSYNC_DATABASE into flags.database (Option.env).
  const value = flags.database?.trim() || DEFAULT_DATABASE;
  if (/^postgres(ql)?:\/\//i.test(value)) {
    const schema = flags.schema ?? DEFAULT_SCHEMA;
    if (!/^[a-z_][a-z0-9_]{0,62}$/i.test(schema))
      throw new CliError(
        `--schema must be a plain identifier (letters, digits, _), got ${JSON.stringify(schema)}`,
      );
    try {
      // A password in the URL is masked in anything printed on error, like the API key.
      const password = new URL(value).password;
      if (password) rememberSecret(decodeURIComponent(password));
    } catch {
      // Not a parseable URL: pg will say so.
    }
    return { kind: 'postgres', url: value, schema };
  }
  return { kind: 'sqlite', file: resolve(value) };
}

/** Where the data is, for output: never a password. */
export function describeDatabase(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') return target.file;
  try {
    const url = new URL(target.url);
    url.password = '';
    url.search = '';
    return `${url.toString()} (PostgreSQL, schema ${target.schema})`;
  } catch {
    return `PostgreSQL, schema ${target.schema}`;
  }
}

function schemaError(error: unknown, target: DatabaseTarget): CliError | undefined {
  if (!(error instanceof Error)) return undefined;
  const where = describeDatabase(target);
  const version = (error as { databaseVersion?: number }).databaseVersion;
  if (error.name === 'SchemaOutdatedError' && version === 0)
    return new CliError(
      target.kind === 'sqlite'
        ? `${where} holds no finsync data: not a finsync database, or its first \`finsync sync\` was stopped before it wrote anything (then run \`finsync sync\` again)`
        : `no finsync data at ${where}: run \`finsync sync\` first`,
    );
  if (error.name === 'SchemaOutdatedError')
    return new CliError(`${where} was written by an older finsync: run \`finsync sync\` once to upgrade it`);
  if (error.name === 'SchemaTooNewError')
    return new CliError(`${where} was written by a newer finsync: upgrade @finsync/cli to read it`);
  if ((error as { code?: string }).code === 'SQLITE_NOTADB')
    return new CliError(`${where} is not a database`);
  return databaseFailure(error, target);
}

/** The database the command opened, for the errors it throws later. */
let opened: DatabaseTarget | undefined;

/**
 * A database error thrown after the database opened, as one line naming it (exit 2), or undefined:
 * a SQLite file found damaged by a later read said only "unexpected error: database disk image is
 * malformed".
 */
export function databaseFailure(error: unknown, target = opened): CliError | undefined {
  const code = (error as { code?: unknown })?.code;
  if (target === undefined || typeof code !== 'string' || !(error instanceof Error)) return undefined;
  const where = describeDatabase(target);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
    return new CliError(
      `${where} is damaged (${error.message}): restore it from a backup, or sync into a new file with --database`,
    );
  if (code.startsWith('SQLITE_READONLY'))
    return new CliError(
      `${where} cannot be written (${error.message}): check its permissions and its directory's`,
    );
  return undefined;
}

/**
 * Opens the storage. `read` never creates anything: a missing SQLite file or PostgreSQL schema is
 * an error (exit 2), and SQLite is opened read-only, so `status`/`feed`/`export` can run beside a
 * `watch` that writes. `write` creates the file (mode 0600: it holds bank data) and migrates.
 */
export async function openStorage(target: DatabaseTarget, mode: 'read' | 'write'): Promise<Storage> {
  let storage: Storage;
  if (target.kind === 'sqlite') {
    if (mode === 'read') {
      if (!existsSync(target.file))
        throw new CliError(`no database at ${target.file}: run \`finsync sync\` first, or pass --database`);
      if (statSync(target.file).isDirectory()) throw new CliError(`${target.file} is a directory`);
    } else {
      prepareSqliteFile(target.file);
    }
    try {
      storage = new SqliteStorage({ filename: target.file, readonly: mode === 'read' });
    } catch (error) {
      throw schemaError(error, target) ?? error;
    }
  } else {
    // Loaded only for PostgreSQL: most people never need pg.
    const { PostgresStorage } = await import('@finsync/postgres');
    storage = new PostgresStorage({
      connectionString: target.url,
      schema: target.schema,
      migrate: mode === 'read' ? 'manual' : 'auto',
      poolConfig: { max: 4 },
    });
  }
  try {
    await storage.init();
  } catch (error) {
    await storage.close().catch(() => undefined);
    const known = schemaError(error, target);
    if (known) throw known;
    // Unreachable server, refused login, locked file: say which database, keep exit 1 (it may pass).
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot open ${describeDatabase(target)}: ${reason}`, ExitCode.unexpected);
  }
  opened = target;
  return storage;
}

/**
 * For read commands: the connection named, else `default` when there is one, else the only one.
 * An unknown name is an error that lists the known ones (typos are the usual cause).
 */
export async function resolveConnection(
  storage: Storage,
  named: string | undefined,
): Promise<ConnectionState> {
  const connections = await storage.listConnections();
  const ids = connections.map((c) => c.id);
  const known = ids.length > 0 ? `known: ${ids.join(', ')}` : 'the database has none yet';
  if (named !== undefined) {
    const found = connections.find((c) => c.id === named);
    if (!found) throw new CliError(`no connection ${JSON.stringify(named)} (${known})`);
    return found;
  }
  const chosen =
    connections.find((c) => c.id === DEFAULT_CONNECTION) ??
    (connections.length === 1 ? connections[0] : undefined);
  if (!chosen)
    throw new CliError(
      connections.length === 0
        ? 'no connections yet: run `finsync sync` first'
        : `pick one with --connection (${known})`,
    );
  return chosen;
}

/**
 * Why no HTTP header can carry `key` (`apiKeyFault`, the provider client's own rule), said without
 * quoting it, or undefined. Past U+00FF fetch cannot send it: every request failed as an unreachable
 * provider, retried, exit 6.
 */
export function keyProblem(key: string): string | undefined {
  const fault = apiKeyFault(key);
  if (fault === 'control character') return 'holds a control character (an escape, a line break?)';
  if (fault === 'past U+00FF') return 'holds a character no HTTP header can carry (a curly quote, an emoji?)';
  return undefined;
}

/**
 * Reads a key file. A file other users can read is refused when it is yours (you can fix it: the
 * message says how) and only warned about when it is not (a secret mounted read-only by a container
 * runtime, say). A path that does not exist is not echoed: it may be the key, pasted by mistake.
 */
export function readKeyFile(path: string): string {
  let text: string;
  if (path === '-') {
    text = readFileSync(0, 'utf8');
  } else {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      throw new CliError('--key-file: no such file (the path is not shown, in case a key was pasted there)');
    }
    if (stats.isFile() && process.platform !== 'win32' && (stats.mode & 0o004) !== 0) {
      const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
      if (stats.uid === process.getuid?.())
        throw new CliError(
          `key file ${path} is readable by every user (mode ${mode}): run chmod 600 ${path}`,
        );
      warn(`key file ${path} is readable by every user (mode ${mode})`);
    }
    if (!stats.isFile()) throw new CliError(`--key-file: ${path} is not a file`);
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new CliError(
        `--key-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  const key = text.trim();
  if (key === '') throw new CliError('the key file is empty');
  if (/\s/.test(key)) throw new CliError('the key file must hold the key alone, on one line');
  return key;
}

export interface ProviderFlags {
  sandbox?: boolean;
  sandboxDays?: number;
  keyFile?: string;
}

/** Where a run's key came from, for the advice after a refusal. */
export type KeySource = 'environment' | 'key file' | 'stored' | 'sandbox';

export interface ProviderSetup {
  apiKey: string;
  keySource: KeySource;
  /**
   * With a stored key (`finsync key set`): every stored connection's key, for the engine's
   * `credentials` option, so `watch` covers the other connections with a stored key too.
   */
  credentials?: CredentialSource;
  clientOptions: Omit<ProviderClientOptions, 'apiKey'>;
  /** For output: the provider's address (no credentials) or "sandbox". */
  description: string;
  sandbox: SandboxProvider | undefined;
  close(): Promise<void>;
}

export function localToday(now = new Date()): string {
  return new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
}

function baseUrlFromEnv(value: string | undefined): { baseUrl?: string; description: string } {
  const raw = value?.trim();
  if (!raw) return { description: `Lunch Flow (${DEFAULT_BASE_URL})` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError('LUNCHFLOW_BASE_URL is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CliError('LUNCHFLOW_BASE_URL must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '')
    throw new CliError(
      `LUNCHFLOW_BASE_URL must not hold a user name or password (${url.origin}); the key goes in LUNCHFLOW_API_KEY`,
    );
  const shown = `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
  return { baseUrl: raw, description: `${shown} (LUNCHFLOW_BASE_URL)` };
}

/**
 * The key and where to send it. Without `--sandbox`: `--key-file`, else `LUNCHFLOW_API_KEY`, sent
 * to `LUNCHFLOW_BASE_URL` or the provider, else the key `finsync key set` stored for the connection
 * (sent where it is sealed to). With it: an in-process sandbox on 127.0.0.1 and its key.
 */
export async function resolveProvider(
  flags: ProviderFlags,
  env: NodeJS.ProcessEnv,
  logger: SyncLogger | undefined,
  stored?: { target: DatabaseTarget; connectionId: string },
): Promise<ProviderSetup> {
  if (flags.sandbox) {
    if (flags.keyFile !== undefined)
      throw new CliError('--key-file and --sandbox do not go together: the sandbox has its own key');
    if (env.LUNCHFLOW_API_KEY) note('--sandbox: LUNCHFLOW_API_KEY is not used (the sandbox has its own key)');
    if (env.LUNCHFLOW_BASE_URL) note('--sandbox: LUNCHFLOW_BASE_URL is not used');
    const { SandboxProvider, startSandboxServer } = await import('@finsync/provider/sandbox');
    // Today's date keeps the sandbox's rows in step with the engine's calendar (it asks up to today).
    const sandbox = new SandboxProvider({
      today: localToday(),
      historyDays: flags.sandboxDays ?? DEFAULT_SANDBOX_DAYS,
    });
    const server = await startSandboxServer(sandbox);
    return {
      apiKey: SANDBOX_KEY,
      keySource: 'sandbox',
      // The sandbox is local: no reason to throttle like the real, rate-limited API.
      clientOptions: { baseUrl: server.baseUrl, rateLimit: false, ...(logger ? { logger } : {}) },
      description: `the sandbox provider (${server.baseUrl}, ${flags.sandboxDays ?? DEFAULT_SANDBOX_DAYS} days of history)`,
      sandbox,
      close: () => server.close(),
    };
  }
  const apiKey = flags.keyFile !== undefined ? readKeyFile(flags.keyFile) : env.LUNCHFLOW_API_KEY?.trim();
  // Refused here, before any database is opened or created: no HTTP header can carry such a key.
  const problem = apiKey ? keyProblem(apiKey) : undefined;
  if (problem)
    throw new CliError(
      `the key ${flags.keyFile !== undefined ? 'in the key file' : 'in LUNCHFLOW_API_KEY'} ${problem}: give the key alone`,
    );
  const { baseUrl, description } = baseUrlFromEnv(env.LUNCHFLOW_BASE_URL);
  if (!apiKey) {
    const key = stored ? await openStoredKey(stored.target, stored.connectionId, env) : undefined;
    if (!key)
      throw new CliError(
        'no API key: set LUNCHFLOW_API_KEY or pass --key-file <path>, or store one with `finsync key set` ' +
          '(or try finsync with --sandbox)',
        ExitCode.usage,
      );
    // Stored before `key set` checked for it: no client can be made from it.
    const storedProblem = keyProblem(key.apiKey);
    if (storedProblem)
      throw new CliError(`the stored key ${storedProblem}: store the key again with \`finsync key set\``);
    return {
      apiKey: key.apiKey,
      keySource: 'stored',
      credentials: key.source,
      clientOptions: {
        ...(key.baseUrl === null ? {} : { baseUrl: key.baseUrl }),
        ...(logger ? { logger } : {}),
      },
      description: `${key.baseUrl === null ? description : shownUrl(key.baseUrl)}, with the key stored in ${key.location.file}`,
      sandbox: undefined,
      close: async () => undefined,
    };
  }
  rememberSecret(apiKey);
  return {
    apiKey,
    keySource: flags.keyFile !== undefined ? 'key file' : 'environment',
    clientOptions: { ...(baseUrl ? { baseUrl } : {}), ...(logger ? { logger } : {}) },
    description,
    sandbox: undefined,
    close: async () => undefined,
  };
}
