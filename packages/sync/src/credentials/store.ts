/**
 * Keys the engine keeps itself: each connection's provider key sealed under a master key (see
 * sealed.ts), bound to the connection and to the provider URL it may be sent to, in records you
 * choose where to keep (a file beside a SQLite database, a table, memory). `source` is a
 * `CredentialSource` for `new SyncEngine({ credentials })`.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { SyncError } from '../errors.js';
import type { CredentialSource } from '../engine/engine.js';
import { SealedSecretError, binding, openSecret, sealSecret } from './sealed.js';

/** One connection's key as stored: sealed, and the URL it is bound to (`null`: the provider's default). */
export interface SealedRecord {
  /**
   * The key sealed with `sealSecret` (a `v2.<iv>.<tag>.<ciphertext>` string), bound to the
   * connection and `baseUrl`.
   */
  sealed: string;
  /** The provider URL the key may be sent to; `null`: the provider's default. */
  baseUrl: string | null;
}

/** Where sealed records live. */
export interface CredentialRecords {
  /** The connection's record; `undefined` when there is none. */
  get(connectionId: string): Promise<SealedRecord | undefined>;
  /** Stores the connection's record, replacing any before it. */
  put(connectionId: string, record: SealedRecord): Promise<void>;
  /** Deletes the connection's record; deleting one that does not exist is not an error. */
  delete(connectionId: string): Promise<void>;
}

/** What `new SealedCredentials(...)` takes. */
export interface SealedCredentialsOptions {
  /** The 32-byte AES-256 key records are sealed under (see `loadMasterKey`); any other length throws. */
  masterKey: Buffer;
  /** Where the sealed records are kept. */
  records: CredentialRecords;
  /**
   * The provider URLs a key may be sent to besides the default; a record naming another is refused
   * when read, whatever the database says (the records are not trusted to hold only checked URLs).
   */
  allowedBaseUrls?: Iterable<string> | undefined;
  /** Called when a stored key cannot be used (never with the key). */
  onUnusable?: ((connectionId: string, error: SealedSecretError | Error) => void) | undefined;
}

/**
 * Provider keys kept sealed at rest, one per connection: `set` seals and stores a key, and `source`
 * gives it back to the engine (pass it as `SyncEngine`'s `credentials` option). A key is bound to its
 * connection and URL, so a record copied to another connection or URL does not open.
 */
export class SealedCredentials {
  readonly #options: SealedCredentialsOptions;
  readonly #allowed: Set<string>;

  constructor(options: SealedCredentialsOptions) {
    if (options.masterKey?.length !== 32) throw new TypeError('SealedCredentials needs a 32-byte master key');
    this.#options = options;
    this.#allowed = new Set(options.allowedBaseUrls ?? []);
  }

  /** Seals and stores a connection's key (replacing one stored before). */
  async set(connectionId: string, credentials: { apiKey: string; baseUrl?: string | null }): Promise<void> {
    const baseUrl = credentials.baseUrl ?? null;
    this.#checkUrl(baseUrl);
    const sealed = sealSecret(this.#options.masterKey, credentials.apiKey, aad(connectionId, baseUrl));
    await this.#options.records.put(connectionId, { sealed, baseUrl });
  }

  /** Deletes a connection's stored key. The engine keeps any client it already made until told otherwise. */
  delete(connectionId: string): Promise<void> {
    return this.#options.records.delete(connectionId);
  }

  /** For `SyncEngine`'s `credentials` option: the connection's key, or `undefined` (reported) when it has none that opens. */
  readonly source: CredentialSource = async (connectionId) => {
    const record = await this.#options.records.get(connectionId);
    if (!record) return undefined;
    try {
      this.#checkUrl(record.baseUrl);
      const { plaintext } = openSecret(this.#options.masterKey, record.sealed, () =>
        aad(connectionId, record.baseUrl),
      );
      return {
        apiKey: plaintext,
        ...(record.baseUrl === null ? {} : { clientOptions: { baseUrl: record.baseUrl } }),
      };
    } catch (error) {
      this.#options.onUnusable?.(connectionId, error as Error);
      return undefined;
    }
  };

  #checkUrl(baseUrl: string | null): void {
    if (baseUrl !== null && !this.#allowed.has(baseUrl))
      throw new Error(`base URL ${JSON.stringify(baseUrl)} is not on the allow-list`);
  }
}

function aad(connectionId: string, baseUrl: string | null): string {
  return binding('finsync/connection-key', connectionId, baseUrl);
}

/** Records in memory: for tests, and for processes that are given keys at start. */
export function memoryCredentialRecords(): CredentialRecords {
  const records = new Map<string, SealedRecord>();
  return {
    get: async (id) => records.get(id),
    put: async (id, record) => void records.set(id, { ...record }),
    delete: async (id) => void records.delete(id),
  };
}

/**
 * Records in a JSON file (mode 0600), written whole through a temporary file and a rename, so a
 * crash leaves the old file or the new one. Each change reads, changes and writes the file under a
 * lock (a `<path>.lock` directory), so processes changing it at once (two `finsync key set`) each
 * keep their change; a lock left by a process that died holding it is taken over after 30 s.
 */
export function fileCredentialRecords(path: string): CredentialRecords {
  const read = (): Record<string, SealedRecord> =>
    existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, SealedRecord>) : {};
  const write = (all: Record<string, SealedRecord>) => {
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
  };
  return {
    get: async (id) => read()[id],
    put: (id, record) => underLock(path, () => write({ ...read(), [id]: record })),
    delete: (id) =>
      underLock(path, () => {
        const all = read();
        delete all[id];
        write(all);
      }),
  };
}

/** How long a change waits for another process's; and when a lock counts as left by a dead process. */
const LOCK_WAIT_MS = 10_000;
const STALE_LOCK_MS = 30_000;

async function underLock(path: string, change: () => void): Promise<void> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let age: number | undefined;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      continue; // let go meanwhile: try again at once
    }
    if (age > STALE_LOCK_MS) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new CredentialsLockedError(
        `credentials file ${path} is locked by another process (${lock}); if no finsync process is running, remove it`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
  }
  try {
    change();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** `fileCredentialRecords` could not change its file: another process held it for too long. */
export class CredentialsLockedError extends SyncError {
  override readonly name: string = 'CredentialsLockedError';
}
