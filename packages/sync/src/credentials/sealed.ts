/**
 * Secrets sealed at rest with AES-256-GCM under a master key that never sits beside them. A record
 * is `v2.<iv>.<tag>.<ciphertext>` (base64url) and is bound, through the associated data, to what the
 * caller says it belongs to: a record copied to another owner, or given another destination, no
 * longer opens. The one implementation behind the reference server's provider keys and
 * `SealedCredentials`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { SyncError } from '../errors.js';

/** Windows has no POSIX modes: `stat` reports 0666/0444 whatever the ACLs say, so checks would lie. */
export const POSIX_MODES = process.platform !== 'win32';

/** Why a sealed record could not be opened. Never carries the key or the plaintext. */
export class SealedSecretError extends SyncError {
  override readonly name = 'SealedSecretError';
  constructor(
    /**
     * `malformed`: not a record this code could have written (corrupt or edited) — never the master
     * key's fault. `unauthenticated`: well-formed, but GCM refused it: the ciphertext or what it is
     * bound to was altered, or another master key sealed it (AEAD cannot tell those apart).
     */
    readonly reason: 'malformed' | 'unauthenticated',
    message: string,
  ) {
    super(message);
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Strict base64url: Node's decoder skips characters it does not know, so check and round-trip. */
function part(text: string | undefined, name: string, bytes?: number): Buffer {
  if (text === undefined || !BASE64URL.test(text)) throw new SealedSecretError('malformed', `bad ${name}`);
  const value = Buffer.from(text, 'base64url');
  if (value.toString('base64url') !== text) throw new SealedSecretError('malformed', `bad ${name}`);
  if (bytes !== undefined && value.length !== bytes)
    throw new SealedSecretError('malformed', `${name} is ${value.length} bytes, not ${bytes}`);
  return value;
}

/**
 * The associated data that binds a record: JSON of a fixed array, so no owner or destination can be
 * chosen to make two different bindings encode alike.
 */
export function binding(purpose: string, ...parts: Array<string | number | null>): string {
  return JSON.stringify([purpose, 2, ...parts]);
}

/** Seals `plaintext` as a `v2` record bound to `aad` (see `binding`). */
export function sealSecret(masterKey: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v2', ...[iv, cipher.getAuthTag(), ciphertext].map((p) => p.toString('base64url'))].join('.');
}

/**
 * Opens a record. `aadFor` gives the associated data for the record's format version (`v1` records
 * of older releases were bound differently). Throws `SealedSecretError`.
 */
export function openSecret(
  masterKey: Buffer,
  sealed: string,
  aadFor: (version: 'v1' | 'v2') => string,
): {
  /** The secret. */
  plaintext: string;
  /** The record's format version (`v1`: sealed by an older release). */
  version: 'v1' | 'v2';
} {
  const [version, ivText, tagText, ciphertextText, ...extra] = sealed.split('.');
  if (version !== 'v1' && version !== 'v2') throw new SealedSecretError('malformed', 'unknown format');
  if (extra.length > 0) throw new SealedSecretError('malformed', 'too many parts');
  const iv = part(ivText, 'iv', IV_BYTES);
  // GCM accepts tags down to 4 bytes unless told otherwise: a short tag is far easier to forge.
  const tag = part(tagText, 'tag', TAG_BYTES);
  const ciphertext = part(ciphertextText, 'ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aadFor(version), 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return {
      plaintext: Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8'),
      version,
    };
  } catch {
    throw new SealedSecretError('unauthenticated', 'the record does not authenticate');
  }
}

/**
 * A master key that cannot be used: given with the wrong length, or in a file other local users can
 * read or replace, or one that does not hold a key. Never carries the key.
 */
export class MasterKeyError extends SyncError {
  override readonly name = 'MasterKeyError';
}

/**
 * Loads a master key: `value` (32 bytes, as 64 hex characters or base64) when given, else `file`,
 * generated with mode 0600 on first use. A key file other local users can read or write is refused
 * rather than tightened: it may already have been copied (or replaced), and a warning is easy to miss.
 * `name` is how errors call the value (an environment variable, say).
 */
export function loadMasterKey(options: { file: string; value?: string | undefined; name?: string }): Buffer {
  const { file, value } = options;
  if (value) {
    const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
    if (key.length !== 32)
      throw new MasterKeyError(
        `${options.name ?? 'the master key'} must be 32 bytes, as 64 hex characters or base64`,
      );
    return key;
  }
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    if (POSIX_MODES && (mode & 0o077) !== 0) {
      throw new MasterKeyError(
        `master key file ${file} has mode 0${mode.toString(8)}: other local users can read or replace it. ` +
          `Run chmod 600 ${file} (and treat the keys it protects as exposed if others could read it)`,
      );
    }
    const text = readFileSync(file, 'utf8').trim();
    if (text === '')
      throw new MasterKeyError(
        `master key file ${file} is empty: its creation was interrupted (an earlier version wrote it in place). ` +
          `No key can have been sealed with it: delete it, and the next start makes a new one`,
      );
    const key = Buffer.from(text, 'base64');
    if (key.length !== 32)
      throw new MasterKeyError(`master key file ${file} does not hold a 32-byte base64 key`);
    return key;
  }
  // Only directories created here get 0700; an existing one is the operator's to set.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // Written whole and synced under a name of its own, then linked into place: a crash leaves either
  // no key file or a whole one (never an empty one that every later start refuses), and of two
  // processes creating it at once, the second finds the first's and uses it.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(draft, 'wx', 0o600);
    try {
      writeSync(fd, `${key.toString('base64')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(draft, 0o600);
    try {
      linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadMasterKey({ file });
      throw error;
    }
    syncDirectory(dirname(file));
    return key;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** Makes a new name in `dir` last through a crash; where a directory cannot be opened (Windows), skipped. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not supported here; the link itself is already in place.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
