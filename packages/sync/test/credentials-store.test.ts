import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { useTempDirs } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import {
  MasterKeyError,
  POSIX_MODES,
  SealedCredentials,
  SealedSecretError,
  fileCredentialRecords,
  loadMasterKey,
  memoryCredentialRecords,
  openSecret,
  sealSecret,
} from '../src/credentials/index.js';
import { SyncEngine, SyncError } from '../src/index.js';
import { BASE, createHarness, useMsw } from './harness.js';

useMsw();

const tempDir = useTempDirs('cred');

describe('SealedCredentials', () => {
  it('a restarted engine syncs every stored connection with the keys it keeps', async () => {
    const h = await createHarness();
    const masterKey = randomBytes(32);
    const records = memoryCredentialRecords();
    const vault = new SealedCredentials({ masterKey, records, allowedBaseUrls: [BASE] });
    await vault.set('c1', { apiKey: 'sandbox-key', baseUrl: BASE });
    await h.engine.sync('c1');
    const restarted = new SyncEngine({
      storage: h.storage,
      clock: { now: () => new Date(`${h.sandbox.today}T12:00:00Z`), today: () => h.sandbox.today },
      clientOptions: { rateLimit: false, maxRetries: 0 },
      credentials: vault.source,
    });
    expect(await restarted.sync('c1')).toMatchObject({ ok: true });
    // The key itself is nowhere in what is stored.
    expect(JSON.stringify(await records.get('c1'))).not.toContain('sandbox-key');
  });

  it('a record moved to another connection or pointed at another host does not open', async () => {
    const masterKey = randomBytes(32);
    const records = memoryCredentialRecords();
    const unusable: string[] = [];
    const vault = new SealedCredentials({
      masterKey,
      records,
      allowedBaseUrls: ['https://proxy.example/api/v1', 'https://other.example/api/v1'],
      onUnusable: (id, error) => unusable.push(`${id}: ${error.message}`),
    });
    await vault.set('alice', { apiKey: 'k-alice', baseUrl: 'https://proxy.example/api/v1' });
    const record = (await records.get('alice'))!;
    await records.put('bob', record);
    expect(await vault.source('bob')).toBeUndefined();
    await records.put('alice', { ...record, baseUrl: 'https://other.example/api/v1' });
    expect(await vault.source('alice')).toBeUndefined();
    await records.put('alice', { ...record, baseUrl: 'https://evil.example/' });
    expect(await vault.source('alice')).toBeUndefined();
    expect(unusable).toHaveLength(3);
    expect(unusable.join()).toMatch(/not on the allow-list/);
    expect(unusable.join()).not.toContain('k-alice');
    await records.put('alice', record);
    expect(await vault.source('alice')).toEqual({
      apiKey: 'k-alice',
      clientOptions: { baseUrl: 'https://proxy.example/api/v1' },
    });
  });

  it('refuses a truncated tag as malformed (Node alone would accept a 4-byte tag)', () => {
    const key = randomBytes(32);
    const sealed = sealSecret(key, 'secret', 'aad');
    const [version, iv, tag, ciphertext] = sealed.split('.');
    const short = [
      version,
      iv,
      Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url'),
      ciphertext,
    ].join('.');
    expect(() => openSecret(key, short, () => 'aad')).toThrow(SealedSecretError);
    expect(() => openSecret(key, sealed, () => 'other')).toThrow(/does not authenticate/);
    expect(openSecret(key, sealed, () => 'aad').plaintext).toBe('secret');
  });

  it('keeps records in a 0600 file that a new process reads back', async () => {
    const file = join(tempDir(), 'credentials.json');
    const masterKey = randomBytes(32);
    // A key long enough that random ciphertext cannot contain it by chance (a two-letter one did, 1 run in ~70).
    const apiKey = 'k1-plain-provider-key';
    await new SealedCredentials({ masterKey, records: fileCredentialRecords(file) }).set('c1', { apiKey });
    if (POSIX_MODES) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(apiKey);
    const again = new SealedCredentials({ masterKey, records: fileCredentialRecords(file) });
    expect(await again.source('c1')).toEqual({ apiKey });
    await again.delete('c1');
    expect(await again.source('c1')).toBeUndefined();
  });
});

describe('fileCredentialRecords', () => {
  it('keeps every change of processes changing one file at once', async () => {
    const file = join(tempDir(), 'credentials.json');
    const script = fileURLToPath(new URL('./fixtures/put-records.ts', import.meta.url));
    const writers = ['a', 'b', 'c', 'd'].map(
      (name) =>
        new Promise<number | null>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              '--conditions=@finsync/source',
              '--import',
              import.meta.resolve('tsx'),
              script,
              file,
              name,
              '50',
            ],
            { stdio: ['ignore', 'ignore', 'inherit'] },
          );
          child.on('error', reject);
          child.on('exit', resolve);
        }),
    );
    expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
    const stored = Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object);
    expect(stored).toHaveLength(200);
    expect(readdirSync(join(file, '..'))).toEqual(['credentials.json']);
  }, 60_000);
});

describe('loadMasterKey', () => {
  it('generates a 0600 key file once, reads it back, and refuses one others can read', () => {
    const file = join(tempDir(), 'keys', 'master.key');
    const key = loadMasterKey({ file });
    expect(key).toHaveLength(32);
    expect(loadMasterKey({ file })).toEqual(key);
    if (!POSIX_MODES) return;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    chmodSync(file, 0o644);
    expect(() => loadMasterKey({ file })).toThrow(/mode 0644: other local users can read or replace it/);
    expect(() => loadMasterKey({ file })).toThrow(MasterKeyError);
  });

  it('creates the key file whole, leaving nothing beside it, and says what to do with an empty one', () => {
    const dir = tempDir();
    const file = join(dir, 'master.key');
    const key = loadMasterKey({ file });
    expect(readdirSync(dir)).toEqual(['master.key']);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(key);
    // What a creation killed halfway left before (the file written in place).
    const empty = join(dir, 'empty.key');
    writeFileSync(empty, '', { mode: 0o600 });
    expect(() => loadMasterKey({ file: empty })).toThrow(/is empty: its creation was interrupted.*delete it/);
  });

  it('takes a 32-byte value as hex or base64 and refuses anything else', () => {
    const raw = randomBytes(32);
    expect(loadMasterKey({ file: '/nonexistent', value: raw.toString('hex') })).toEqual(raw);
    expect(loadMasterKey({ file: '/nonexistent', value: raw.toString('base64') })).toEqual(raw);
    expect(() => loadMasterKey({ file: '/nonexistent', value: 'short', name: 'FINSYNC_MASTER_KEY' })).toThrow(
      'FINSYNC_MASTER_KEY must be 32 bytes',
    );
    // One hierarchy: every credentials error is a SyncError.
    expect(() => loadMasterKey({ file: '/nonexistent', value: 'short' })).toThrow(SyncError);
    expect(() => openSecret(raw, 'v2.x', () => 'aad')).toThrow(SyncError);
  });
});
