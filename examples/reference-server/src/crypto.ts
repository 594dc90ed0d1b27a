/**
 * Secrets at rest. API keys we issue are stored only as SHA-256 hashes (they carry 256 random bits,
 * so a slow hash adds nothing) and compared in constant time. Provider keys must be usable again, so
 * they are encrypted with AES-256-GCM under a master key that never enters the database.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/**
 * Loads the master key: `FINSYNC_MASTER_KEY` (32 bytes, base64 or hex) if set, else a key file in the
 * data directory, generated with mode 0600 on first use.
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
    const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`master key file ${keyFile} does not hold a 32-byte base64 key`);
    return key;
  }
  mkdirSync(dirname(keyFile), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(keyFile, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(keyFile, 0o600);
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the associated data binds it to its owner. */
export function encryptSecret(masterKey: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function decryptSecret(masterKey: Buffer, sealed: string, associatedData: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('unknown secret format');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
