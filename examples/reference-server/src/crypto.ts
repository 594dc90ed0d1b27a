/**
 * Secrets at rest. API keys we issue are stored only as SHA-256 hashes (they carry 256 random bits,
 * so a slow hash adds nothing) and compared in constant time. Provider keys must be usable again, so
 * they are sealed with AES-256-GCM under a master key that never enters the database, by the sealing
 * helper of `@finsync/sync/credentials` (the one implementation the engine's own key store uses).
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  POSIX_MODES,
  SealedSecretError,
  binding,
  loadMasterKey as sharedLoadMasterKey,
  openSecret,
  sealSecret,
} from '@finsync/sync/credentials';

/** 64 lowercase hex characters, the service's own key format. */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}

export function hashApiKey(key: string): Buffer {
  // The one-shot form: every API request hashes its key, and a Hash object costs more than the hash.
  return hash('sha256', key, 'buffer');
}

/** Constant-time comparison of a presented key's hash against a stored one. */
export function hashesMatch(candidate: Buffer, storedHash: Buffer): boolean {
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}

export { POSIX_MODES, SealedSecretError };

/**
 * The master key: `FINSYNC_MASTER_KEY` (32 bytes, base64 or hex) if set, else a key file in the data
 * directory, generated with mode 0600 on first use and refused when others can read it.
 */
export function loadMasterKey(keyFile: string, fromEnvironment: string | undefined): Buffer {
  return sharedLoadMasterKey({ file: keyFile, value: fromEnvironment, name: 'FINSYNC_MASTER_KEY' });
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
  return binding('finsync/provider-key', userId, baseUrl);
}

/**
 * `v2.<iv>.<tag>.<ciphertext>` (base64url parts), bound to the user and the base URL: a record moved
 * to another user, or given another URL in the database, no longer opens.
 */
export function sealProviderKey(masterKey: Buffer, apiKey: string, owner: ProviderKeyBinding): string {
  return sealSecret(masterKey, apiKey, providerKeyAad(owner));
}

/**
 * Opens a sealed provider key. `v1` records (before the base URL was bound) were bound to the user id
 * only; they still open, and `format` says so, so the caller can re-seal them as `v2`.
 * Throws `SealedSecretError`.
 */
export function openProviderKey(
  masterKey: Buffer,
  sealed: string,
  owner: ProviderKeyBinding,
): { apiKey: string; format: 'v1' | 'v2' } {
  const { plaintext, version } = openSecret(masterKey, sealed, (format) =>
    format === 'v2' ? providerKeyAad(owner) : owner.userId,
  );
  return { apiKey: plaintext, format: version };
}

/** A stored provider key this server will not use, and why (`statusReason`: words safe to show the user). */
export class UnusableProviderKey extends Error {
  constructor(
    /** `url`, `key`, `sandbox` and `malformed` are never the master key's fault; `unauthenticated` may be. */
    readonly reason: 'url' | 'key' | 'sandbox' | SealedSecretError['reason'],
    message: string,
  ) {
    super(message);
    this.name = 'UnusableProviderKey';
  }

  get statusReason(): string {
    if (this.reason === 'url') return 'its base URL is not on the allow-list';
    if (this.reason === 'key') return 'the key has a character no request can carry (a line break?)';
    if (this.reason === 'sandbox') return 'it is for the sandbox provider, which this server does not run';
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
            'If it is, the records were altered: set each provider key again (npm run admin -- set-provider-key)',
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
  // The same layout; only the prefix and the associated data (the user id alone) differ.
  return sealSecret(masterKey, apiKey, userId).replace(/^v2\./, 'v1.');
}
