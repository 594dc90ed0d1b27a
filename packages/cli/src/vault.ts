/**
 * Keys kept between runs (`finsync key set`), sealed by `@finsync/sync/credentials`: the same
 * implementation the engine documents for connections that survive restarts and the reference
 * server seals its users' keys with. Each key is sealed (AES-256-GCM) under a master key and bound
 * to its connection id and to the provider URL it may be sent to.
 *
 * Where: `<database>.credentials.json` beside a SQLite file, or `FINSYNC_CREDENTIALS_FILE`
 * (default `./finsync.credentials.json` for PostgreSQL). The master key: `FINSYNC_MASTER_KEY`, else
 * `finsync.master.key` in the database's directory (PostgreSQL: the credentials file's), created
 * with mode 0600 on first use by `key set` and never by anything else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_BASE_URL } from '@finsync/provider';
import type { CredentialSource } from '@finsync/sync';
import {
  SealedCredentials,
  fileCredentialRecords,
  loadMasterKey,
  type SealedRecord,
} from '@finsync/sync/credentials';
import { DEFAULT_CONNECTION } from './defaults.js';
import { CliError } from './exit-codes.js';
import { rememberSecret, warn } from './io.js';
import type { DatabaseTarget } from './options.js';

export const MASTER_KEY_FILE = 'finsync.master.key';
export const POSTGRES_CREDENTIALS_FILE = 'finsync.credentials.json';

export interface VaultLocation {
  /** The sealed records: a JSON file, mode 0600. */
  file: string;
  /** The master key file, used when `FINSYNC_MASTER_KEY` is not set. */
  masterKeyFile: string;
  /** `FINSYNC_MASTER_KEY`, when set. */
  masterKeyValue: string | undefined;
}

export function vaultLocation(target: DatabaseTarget, env: NodeJS.ProcessEnv): VaultLocation {
  const override = env.FINSYNC_CREDENTIALS_FILE?.trim();
  const file = override
    ? resolve(override)
    : target.kind === 'sqlite'
      ? `${target.file}.credentials.json`
      : resolve(POSTGRES_CREDENTIALS_FILE);
  const keyDirectory = target.kind === 'sqlite' ? dirname(target.file) : dirname(file);
  const masterKeyValue = env.FINSYNC_MASTER_KEY?.trim() || undefined;
  if (masterKeyValue) rememberSecret(masterKeyValue);
  return { file, masterKeyFile: join(keyDirectory, MASTER_KEY_FILE), masterKeyValue };
}

/** Where the master key comes from, for output (never the key). */
export function describeMasterKey(location: VaultLocation): string {
  return location.masterKeyValue ? 'FINSYNC_MASTER_KEY' : location.masterKeyFile;
}

/**
 * The master key. Without `create`, a missing file gives `undefined` (reading commands never
 * create one). A file other users can read, or a malformed value, is refused (exit 2).
 */
export function masterKey(location: VaultLocation, create: boolean): Buffer | undefined {
  if (!location.masterKeyValue && !create && !existsSync(location.masterKeyFile)) return undefined;
  try {
    return loadMasterKey({
      file: location.masterKeyFile,
      value: location.masterKeyValue,
      name: 'FINSYNC_MASTER_KEY',
    });
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

function isSealedRecord(value: unknown): value is SealedRecord {
  if (typeof value !== 'object' || value === null) return false;
  const { sealed, baseUrl } = value as Record<string, unknown>;
  return typeof sealed === 'string' && (baseUrl === null || typeof baseUrl === 'string');
}

/**
 * Every stored record by connection id; `null` for an entry that is not a record `key set` could
 * have written. A file that is not JSON at all is a configuration error (exit 2), never a crash.
 */
export function readRecords(file: string): Map<string, SealedRecord | null> {
  if (!existsSync(file)) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code) throw error;
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliError(
      `${file} is not a finsync credentials file: move it away, then run \`finsync key set\` again`,
    );
  return new Map(
    Object.entries(parsed as Record<string, unknown>).map(([id, v]) => [id, isSealedRecord(v) ? v : null]),
  );
}

/** The URL a key is sealed to: `null` for the provider's default. Trailing slashes do not count. */
export function bindingUrl(raw: string | undefined, what: string): string | null {
  const value = raw?.trim();
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${what} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CliError(`${what} must be an http:// or https:// URL`);
  const normalized = value.replace(/\/+$/, '');
  return normalized === DEFAULT_BASE_URL ? null : normalized;
}

/** A sealed-to URL for output: no user, password or query, whatever the file says. */
export function shownUrl(url: string | null): string {
  if (url === null) return `the provider's default (${DEFAULT_BASE_URL})`;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`.replace(/\/+$/, '');
  } catch {
    return 'a URL that does not parse';
  }
}

export function keySetAgain(connectionId: string): string {
  const flag = connectionId === DEFAULT_CONNECTION ? '' : ` --connection ${connectionId}`;
  return `run \`finsync key set${flag}\` again`;
}

const UNOPENABLE =
  'it was altered, copied from another connection or URL, or sealed under another master key';

export interface StoredKey {
  apiKey: string;
  /** The URL it is sealed to (and sent to); `null`: the provider's default. */
  baseUrl: string | null;
  location: VaultLocation;
  /**
   * For `new SyncEngine({ credentials })`: the stored key of any connection, sent only where it is
   * sealed to and only if that is where this run sends keys (`LUNCHFLOW_BASE_URL`, or the default).
   */
  source: CredentialSource;
}

/**
 * The key `finsync key set` stored for a connection: `undefined` when there is none. One that
 * cannot be used (it does not open, or this run would send it elsewhere than it is sealed to) is a
 * configuration error (exit 2) whose message never holds the key.
 */
export function openStoredKey(
  target: DatabaseTarget,
  connectionId: string,
  env: NodeJS.ProcessEnv,
): Promise<StoredKey | undefined> {
  const location = vaultLocation(target, env);
  const records = readRecords(location.file);
  if (!records.has(connectionId)) return Promise.resolve(undefined);
  return open(location, records.get(connectionId) ?? null, connectionId, env);
}

async function open(
  location: VaultLocation,
  record: SealedRecord | null,
  connectionId: string,
  env: NodeJS.ProcessEnv,
): Promise<StoredKey> {
  const again = keySetAgain(connectionId);
  const stored = `the stored key for connection ${connectionId} (${location.file})`;
  if (record === null) throw new CliError(`${stored} cannot be opened: ${UNOPENABLE}; ${again}`);
  // The URL is part of what the key is sealed to, and the environment must agree with it: the file
  // alone never decides where a key goes.
  const runUrl = bindingUrl(env.LUNCHFLOW_BASE_URL, 'LUNCHFLOW_BASE_URL');
  if (record.baseUrl !== runUrl) {
    const fix =
      record.baseUrl === null
        ? 'unset LUNCHFLOW_BASE_URL to use it'
        : `set LUNCHFLOW_BASE_URL=${shownUrl(record.baseUrl)} to use it`;
    throw new CliError(
      `${stored} is sealed to ${shownUrl(record.baseUrl)}, and this run sends keys to ${shownUrl(runUrl)}: ` +
        `${fix}, or ${again} with the URL to use`,
    );
  }
  const key = masterKey(location, false);
  if (!key)
    throw new CliError(
      `${stored} cannot be opened: FINSYNC_MASTER_KEY is not set and there is no ${location.masterKeyFile}; ${again}`,
    );
  const vault = new SealedCredentials({
    masterKey: key,
    records: fileCredentialRecords(location.file),
    allowedBaseUrls: runUrl === null ? [] : [runUrl],
  });
  const credentials = await vault.source(connectionId);
  if (!credentials || !('apiKey' in credentials))
    throw new CliError(`${stored} cannot be opened: ${UNOPENABLE}; ${again}`);
  rememberSecret(credentials.apiKey);

  const source: CredentialSource = async (id) => {
    let other: SealedRecord | null | undefined;
    try {
      other = readRecords(location.file).get(id);
    } catch (error) {
      warn(error instanceof Error ? error.message : String(error));
      return undefined;
    }
    if (other === undefined) return undefined;
    const opened = other !== null && other.baseUrl === runUrl ? await vault.source(id) : undefined;
    if (!opened || !('apiKey' in opened)) {
      warn(
        other !== null && other.baseUrl !== runUrl
          ? `the stored key for connection ${id} is sealed to ${shownUrl(other.baseUrl)}, not to ${shownUrl(runUrl)}; ${keySetAgain(id)}`
          : `the stored key for connection ${id} cannot be opened: ${UNOPENABLE}; ${keySetAgain(id)}`,
      );
      return undefined;
    }
    rememberSecret(opened.apiKey);
    return opened;
  };
  return { apiKey: credentials.apiKey, baseUrl: record.baseUrl, location, source };
}
