/**
 * Secrets at rest. API keys we issue are stored only as SHA-256 hashes (they carry 256 random bits,
 * so a slow hash adds nothing) and compared in constant time. Provider keys must be usable again, so
 * they are sealed with AES-256-GCM under a master key that never enters the database.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** 64 lowercase hex characters, the service's own key format. */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Constant-time comparison of a presented key against a stored hash. */
export function apiKeyMatches(presented: string, storedHash: Buffer): boolean {
  const candidate = hashApiKey(presented);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}

/** Windows has no POSIX modes: `stat` reports 0666/0444 whatever the ACLs say, so checks would lie. */
export const POSIX_MODES = process.platform !== 'win32';

/**
 * Loads the master key: `FINSYNC_MASTER_KEY` (32 bytes, base64 or hex) if set, else a key file in the
 * data directory, generated with mode 0600 on first use. A key file that other local users can read
 * or write is refused rather than tightened: it may already have been copied (or replaced), and an
 * operator who is only warned would not notice.
 */
export function loadMasterKey(keyFile: string, fromEnvironment: string | undefined): Buffer {
  if (fromEnvironment) {
    const key = /^[0-9a-f]{64}$/i.test(fromEnvironment)
      ? Buffer.from(fromEnvironment, 'hex')
      : Buffer.from(fromEnvironment, 'base64');
    if (key.length !== 32)
      throw new Error('FINSYNC_MASTER_KEY must be 32 bytes, as 64 hex characters or base64');
    return key;
  }
  if (existsSync(keyFile)) {
    const mode = statSync(keyFile).mode & 0o777;
    if (POSIX_MODES && (mode & 0o077) !== 0) {
      throw new Error(
        `master key file ${keyFile} has mode 0${mode.toString(8)}: other local users can read or replace it. ` +
          `Run chmod 600 ${keyFile} (and treat the provider keys as exposed if others could read it)`,
      );
    }
    const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`master key file ${keyFile} does not hold a 32-byte base64 key`);
    return key;
  }
  // Only directories created here get 0700; an existing one is the operator's to set.
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(keyFile, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(keyFile, 0o600);
  return key;
}

/** Why a sealed record could not be opened. Never carries the key or the plaintext. */
export class SealedSecretError extends Error {
  constructor(
    /**
     * `malformed`: not a record this code could have written (corrupt or edited) — never the master
     * key's fault. `unauthenticated`: well-formed, but GCM refused it: the ciphertext or what it is
     * bound to (user, base URL) was altered, or another master key sealed it. AEAD cannot tell those
     * apart for one record.
     */
    readonly reason: 'malformed' | 'unauthenticated',
    message: string,
  ) {
    super(message);
    this.name = 'SealedSecretError';
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

function seal(masterKey: Buffer, version: string, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [version, ...[iv, cipher.getAuthTag(), ciphertext].map((p) => p.toString('base64url'))].join('.');
}

function open(masterKey: Buffer, parts: string[], aad: string): string {
  const [, ivText, tagText, ciphertextText, ...extra] = parts;
  if (extra.length > 0) throw new SealedSecretError('malformed', 'too many parts');
  const iv = part(ivText, 'iv', IV_BYTES);
  // GCM accepts tags down to 4 bytes unless told otherwise: a short tag is far easier to forge.
  const tag = part(tagText, 'tag', TAG_BYTES);
  const ciphertext = part(ciphertextText, 'ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError('unauthenticated', 'the record does not authenticate');
  }
}

/** What a provider key is bound to: whose it is and which host it may be sent to (`null`: the default). */
export interface ProviderKeyBinding {
  userId: string;
  baseUrl: string | null;
}

/**
 * The associated data of a `v2` record. JSON of a fixed array, so no user id or URL can be chosen to
 * make two different bindings encode alike.
 */
function providerKeyAad({ userId, baseUrl }: ProviderKeyBinding): string {
  return JSON.stringify(['finsync/provider-key', 2, userId, baseUrl]);
}

/**
 * `v2.<iv>.<tag>.<ciphertext>` (base64url parts), bound to the user and the base URL: a record moved
 * to another user, or given another URL in the database, no longer opens.
 */
export function sealProviderKey(masterKey: Buffer, apiKey: string, binding: ProviderKeyBinding): string {
  return seal(masterKey, 'v2', apiKey, providerKeyAad(binding));
}

/**
 * Opens a sealed provider key. `v1` records (before the base URL was bound) were bound to the user id
 * only; they still open, and `format` says so, so the caller can re-seal them as `v2`.
 * Throws `SealedSecretError`.
 */
export function openProviderKey(
  masterKey: Buffer,
  sealed: string,
  binding: ProviderKeyBinding,
): { apiKey: string; format: 'v1' | 'v2' } {
  const parts = sealed.split('.');
  if (parts[0] === 'v2') return { apiKey: open(masterKey, parts, providerKeyAad(binding)), format: 'v2' };
  if (parts[0] === 'v1') return { apiKey: open(masterKey, parts, binding.userId), format: 'v1' };
  throw new SealedSecretError('malformed', 'unknown format');
}

/** A stored provider key this server will not use, and why (`statusReason`: words safe to show the user). */
export class UnusableProviderKey extends Error {
  constructor(
    /** `url` and `malformed` are never the master key's fault; `unauthenticated` may be. */
    readonly reason: 'url' | SealedSecretError['reason'],
    message: string,
  ) {
    super(message);
    this.name = 'UnusableProviderKey';
  }

  get statusReason(): string {
    if (this.reason === 'url') return 'its base URL is not on the allow-list';
    if (this.reason === 'malformed') return 'the record is corrupt (not one this server wrote)';
    return 'it does not decrypt: the record was altered, or sealed under another master key';
  }
}

/**
 * Opens a stored provider key row. The URL is checked against `allowed` first (the database is not
 * trusted to hold only URLs that passed the check when stored); then the record must open bound to
 * that URL. A `v1` record also comes back re-sealed as `v2` (`resealed`), for the caller to store.
 * Throws `UnusableProviderKey`.
 */
export function openStoredProviderKey(
  masterKey: Buffer,
  row: { user_id: string; sealed_key: string; base_url: string | null },
  allowed: ReadonlySet<string>,
): { apiKey: string; resealed: string | undefined } {
  if (row.base_url !== null && !allowed.has(row.base_url))
    throw new UnusableProviderKey('url', `base URL ${JSON.stringify(row.base_url)} is not on the allow-list`);
  const binding: ProviderKeyBinding = { userId: row.user_id, baseUrl: row.base_url };
  try {
    const { apiKey, format } = openProviderKey(masterKey, row.sealed_key, binding);
    return { apiKey, resealed: format === 'v1' ? sealProviderKey(masterKey, apiKey, binding) : undefined };
  } catch (error) {
    if (!(error instanceof SealedSecretError)) throw error;
    throw new UnusableProviderKey(error.reason, error.message);
  }
}

/**
 * What the stored keys loaded at start say. None opened and GCM refused some: a wrong master key is
 * far likelier than every record altered, so `refuse` to start rather than mark every user's key as
 * needing to be set again, in a database that instances with the right key may share. Otherwise this
 * master key opened others, so each refused row's log note does not blame it.
 */
export function judgeStoredKeys(
  opened: number,
  refused: UnusableProviderKey[],
): { refuse: Error | undefined; note(error: UnusableProviderKey): string } {
  const refuse =
    opened === 0 && refused.some((e) => e.reason === 'unauthenticated')
      ? new Error(
          `none of the ${refused.length} stored provider keys can be decrypted: most likely this server's master key is not the one that sealed them (FINSYNC_MASTER_KEY or master.key). ` +
            'If it is, the records were altered: set each provider key again (npm run cli -- set-provider-key)',
        )
      : undefined;
  return {
    refuse,
    note: (error) =>
      error.reason === 'unauthenticated'
        ? `this master key opens ${opened} other stored key(s): the record was altered or sealed under another key`
        : 'not a master-key problem',
  };
}

/** A `v1` record, as releases before `v2` wrote them: for tests of the upgrade path only. */
export function sealProviderKeyV1(masterKey: Buffer, apiKey: string, userId: string): string {
  return seal(masterKey, 'v1', apiKey, userId);
}
