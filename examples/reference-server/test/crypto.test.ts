/**
 * Sealed provider keys: the record is bound to its user and base URL, the URL is re-checked against
 * the allow-list whenever a key is loaded, short GCM tags are refused, and one record that cannot be
 * opened costs that user their key, not the whole server.
 */
import { createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  openProviderKey,
  openStoredProviderKey,
  sealProviderKey,
  sealProviderKeyV1,
  SealedSecretError,
  UnusableProviderKey,
} from '../src/crypto.js';
import {
  ServerRuntime,
  SANDBOX,
  startReferenceServer,
  type ReferenceServerOptions,
  type RunningServer,
} from '../src/server.js';
import { createApiKey, createUser } from '../src/users.js';
import { BACKENDS, testDatabase, withClient, type Backend, type TestDatabase } from './helpers.js';

const SECRET = 'lf-sandbox-Zq81vYpT3wXc';
const masterKey = randomBytes(32);
const alice = { userId: 'user-a', baseUrl: SANDBOX };

/** Cuts the tag of a sealed record to `bytes`: a GCM tag's prefix is what a short tag check compares. */
function truncateTag(sealed: string, bytes: number): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  return [
    version,
    iv,
    Buffer.from(tag!, 'base64url').subarray(0, bytes).toString('base64url'),
    ciphertext,
  ].join('.');
}

function reasonOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    if (error instanceof SealedSecretError || error instanceof UnusableProviderKey) return error.reason;
    throw error;
  }
  return undefined;
}

describe('sealed provider keys', () => {
  it('open only with the user and the base URL they were sealed with', () => {
    const sealed = sealProviderKey(masterKey, SECRET, alice);
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(openProviderKey(masterKey, sealed, alice)).toEqual({ apiKey: SECRET, format: 'v2' });
    expect(reasonOf(() => openProviderKey(masterKey, sealed, { ...alice, userId: 'user-b' }))).toBe(
      'unauthenticated',
    );
    for (const baseUrl of [null, 'https://evil.example/api/v1', 'https://lunchflow.app/api/v1'])
      expect(reasonOf(() => openProviderKey(masterKey, sealed, { ...alice, baseUrl }))).toBe(
        'unauthenticated',
      );
    expect(reasonOf(() => openProviderKey(randomBytes(32), sealed, alice))).toBe('unauthenticated');
  });

  it('refuse a truncated tag, which Node alone would accept', () => {
    const sealed = sealProviderKey(masterKey, SECRET, alice);
    const [, iv, tag, ciphertext] = truncateTag(sealed, 4).split('.');
    // The attack: without a length check, a 4-byte prefix of the right tag authenticates.
    const naive = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv!, 'base64url'));
    naive.setAAD(Buffer.from(JSON.stringify(['finsync/provider-key', 2, alice.userId, alice.baseUrl])));
    naive.setAuthTag(Buffer.from(tag!, 'base64url'));
    const plain = Buffer.concat([naive.update(Buffer.from(ciphertext!, 'base64url')), naive.final()]);
    expect(plain.toString()).toBe(SECRET);
    for (const bytes of [4, 8, 12, 15])
      expect(reasonOf(() => openProviderKey(masterKey, truncateTag(sealed, bytes), alice))).toBe('malformed');
  });

  it('call a record malformed when it is not one this code writes', () => {
    const sealed = sealProviderKey(masterKey, SECRET, alice);
    const [version, iv, tag, ciphertext] = sealed.split('.');
    for (const bad of [
      `v3.${iv}.${tag}.${ciphertext}`,
      `${version}.${iv}.${tag}`,
      `${sealed}.AAAA`,
      `${version}.${iv}.${tag}.${ciphertext}!!`,
      `${version}.${iv}==.${tag}.${ciphertext}`,
      `${version}.${randomBytes(16).toString('base64url')}.${tag}.${ciphertext}`,
      '',
    ])
      expect(reasonOf(() => openProviderKey(masterKey, bad, alice))).toBe('malformed');
  });

  it('read v1 records (bound to the user only) and re-seal them as v2', () => {
    const old = sealProviderKeyV1(masterKey, SECRET, alice.userId);
    expect(openProviderKey(masterKey, old, alice)).toEqual({ apiKey: SECRET, format: 'v1' });
    const row = { user_id: alice.userId, sealed_key: old, base_url: SANDBOX };
    const { apiKey, resealed } = openStoredProviderKey(masterKey, row, new Set([SANDBOX]));
    expect(apiKey).toBe(SECRET);
    expect(openProviderKey(masterKey, resealed!, alice)).toEqual({ apiKey: SECRET, format: 'v2' });
  });

  it('check the stored URL against the allow-list before decrypting', () => {
    const row = { user_id: 'user-a', sealed_key: 'v2.x.y.z', base_url: 'https://evil.example/api/v1' };
    // Not a master-key problem, so it must not be reported as one (even under a wrong key).
    expect(reasonOf(() => openStoredProviderKey(randomBytes(32), row, new Set([SANDBOX])))).toBe('url');
  });
});

// --- on a running server, on each database -------------------------------------------------------

const SANDBOX_OPTIONS = { seed: 21, historyDays: 10, transactionsPerDay: 2, apiKey: SECRET };

interface Fixture {
  backend: Backend;
  db: TestDatabase;
  users: { alice: string; bob: string };
  keys: { alice: string; bob: string };
  logs: Array<{ level: string; line: string }>;
}

function boot(f: Fixture, options: Partial<ReferenceServerOptions> = {}): Promise<RunningServer> {
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    f.logs.push({ level, line: `${message} ${JSON.stringify(fields ?? {})}` });
  return startReferenceServer({
    dataDir: f.db.dataDir,
    database: f.db.database,
    port: 0,
    sandbox: SANDBOX_OPTIONS,
    syncIntervalMs: 24 * 3_600_000,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    ...options,
  });
}

/** Alice and Bob, each with the sandbox key stored; the server is stopped again. */
async function setUp(backend: Backend): Promise<Fixture> {
  const f: Fixture = {
    backend,
    db: testDatabase(backend),
    users: { alice: '', bob: '' },
    keys: { alice: '', bob: '' },
    logs: [],
  };
  const server = await boot(f);
  try {
    for (const name of ['alice', 'bob'] as const) {
      const user = await createUser(server.runtime.store, name);
      f.users[name] = user.id;
      f.keys[name] = (await createApiKey(server.runtime.store, user.id, { name: 'test' })).key;
      await server.runtime.setProviderKey(user.id, SECRET, SANDBOX);
    }
  } finally {
    await server.close();
  }
  f.logs.length = 0;
  return f;
}

interface Row {
  sealed_key: string;
  base_url: string | null;
  updated_at: string;
}

/** Reads or writes a credential row straight in the database, as an attacker with write access could. */
async function credential(f: Fixture, userId: string, set?: Partial<Row>): Promise<Row> {
  const columns = Object.keys(set ?? {}) as Array<keyof Row>;
  if (f.backend.kind === 'sqlite') {
    const db = new Database(join(f.db.dataDir, 'finsync.db'));
    try {
      if (columns.length)
        db.prepare(
          `UPDATE app_provider_credentials SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE user_id = ?`,
        ).run(...columns.map((c) => set![c]), userId);
      return db
        .prepare('SELECT sealed_key, base_url, updated_at FROM app_provider_credentials WHERE user_id = ?')
        .get(userId) as Row;
    } finally {
      db.close();
    }
  }
  const table = `"${f.db.schemas[1]}".app_provider_credentials`;
  return withClient(async (client) => {
    if (columns.length)
      await client.query(
        `UPDATE ${table} SET ${columns.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE user_id = $${columns.length + 1}`,
        [...columns.map((c) => set![c]), userId],
      );
    const { rows } = await client.query<Row>(
      `SELECT sealed_key, base_url, updated_at FROM ${table} WHERE user_id = $1`,
      [userId],
    );
    return rows[0]!;
  });
}

/** A provider stand-in that records every request (and the key it was sent). */
async function recorder() {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers['x-api-key'] ?? req.headers.authorization ?? ''}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"accounts":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function call(server: RunningServer, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'X-Api-Key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** The user's key is out of use, says so in sync status, and the others sync as before. */
async function expectOnlyAliceStopped(f: Fixture, server: RunningServer): Promise<void> {
  const status = await call(server, f.keys.alice, 'GET', '/api/v1/sync/status');
  expect(status.body.connection.status).toBe('reauth_required');
  expect(status.body.connection.status_reason).toMatch(/set the provider key again/);
  const sync = await call(server, f.keys.alice, 'POST', '/api/v1/sync?wait=true');
  expect(sync.status).toBe(422);
  expect(sync.body.errors.join(' ')).toMatch(/set it again/);
  const bob = await call(server, f.keys.bob, 'POST', '/api/v1/sync?wait=true');
  expect([bob.status, bob.body.ok]).toEqual([200, true]);
  expect((await call(server, f.keys.bob, 'GET', '/api/v1/sync/status')).body.connection.status).toBe(
    'active',
  );
}

/** The one error line about alice's key, which never holds the key. */
function aliceLine(f: Fixture): string {
  expect(JSON.stringify(f.logs)).not.toContain(SECRET);
  const lines = f.logs.filter((l) => l.level === 'error' && l.line.includes(f.users.alice));
  expect(lines.length).toBeGreaterThanOrEqual(1);
  return lines[0]!.line;
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`stored provider keys ${backend.title}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    async function fixture(): Promise<Fixture> {
      const f = await setUp(backend);
      cleanups.push(() => f.db.cleanup());
      return f;
    }
    async function start(f: Fixture, options: Partial<ReferenceServerOptions> = {}) {
      const server = await boot(f, options);
      cleanups.push(() => server.close());
      return server;
    }
    async function host() {
      const r = await recorder();
      cleanups.push(r.close);
      return r;
    }

    it('a base_url rewritten to a host off the allow-list: no call to it, the user must set the key again', async () => {
      const f = await fixture();
      const evil = await host();
      await credential(f, f.users.alice, { base_url: evil.url });
      const server = await start(f);
      expect(f.logs.filter((l) => l.level === 'error')).toHaveLength(1);
      expect(aliceLine(f)).toMatch(/allow-list/);
      expect(aliceLine(f)).toMatch(/not a master-key problem/);
      await expectOnlyAliceStopped(f, server);
      await server.runtime.engine.sync();
      expect(evil.requests).toEqual([]);
      // Setting the key again (PUT) brings the user back.
      const put = await call(server, f.keys.alice, 'PUT', '/api/v1/provider', {
        api_key: SECRET,
        base_url: SANDBOX,
      });
      expect(put.status).toBe(200);
      expect((await call(server, f.keys.alice, 'POST', '/api/v1/sync?wait=true')).body.ok).toBe(true);
      expect(evil.requests).toEqual([]);
    });

    it('a base_url changed to another allowed host does not decrypt: the URL is sealed with the key', async () => {
      const f = await fixture();
      const other = await host();
      await credential(f, f.users.alice, { base_url: other.url });
      const server = await start(f, { allowedProviderBaseUrls: [other.url] });
      expect(aliceLine(f)).toMatch(/"reason":"unauthenticated"/);
      expect(aliceLine(f)).toMatch(/this master key opens 1 other stored key/);
      await expectOnlyAliceStopped(f, server);
      await server.runtime.engine.sync();
      expect(other.requests).toEqual([]);
    });

    it('a record with a truncated tag is refused as corrupt, not blamed on the master key', async () => {
      const f = await fixture();
      const { sealed_key } = await credential(f, f.users.alice);
      await credential(f, f.users.alice, { sealed_key: truncateTag(sealed_key, 4) });
      const server = await start(f);
      expect(aliceLine(f)).toMatch(/"reason":"malformed"/);
      expect(aliceLine(f)).not.toMatch(/master key (is|opens)/);
      await expectOnlyAliceStopped(f, server);
    });

    it('one tampered ciphertext: the server starts, syncs the others, and a key set from the CLI lifts it', async () => {
      const f = await fixture();
      const { sealed_key } = await credential(f, f.users.alice);
      const parts = sealed_key.split('.');
      const ciphertext = Buffer.from(parts[3]!, 'base64url');
      ciphertext.writeUInt8(ciphertext.readUInt8(0) ^ 1, 0);
      parts[3] = ciphertext.toString('base64url');
      await credential(f, f.users.alice, { sealed_key: parts.join('.') });
      const first = await boot(f);
      try {
        expect(aliceLine(f)).toMatch(/"reason":"unauthenticated"/);
        await expectOnlyAliceStopped(f, first);
      } finally {
        await first.close();
      }
      // `npm run cli -- set-provider-key`: a runtime that is never started stores the key.
      const cli = new ServerRuntime({ dataDir: f.db.dataDir, database: f.db.database, sandbox: false });
      await cli.setProviderKey(f.users.alice, SECRET, SANDBOX);
      await cli.close();
      const server = await start(f);
      expect((await call(server, f.keys.alice, 'POST', '/api/v1/sync?wait=true')).body.ok).toBe(true);
      const status = await call(server, f.keys.alice, 'GET', '/api/v1/sync/status');
      expect(status.body.connection.status).toBe('active');
    });

    it('under another master key no record opens: it refuses to start, naming the key, and changes nothing', async () => {
      const f = await fixture();
      await expect(boot(f, { masterKey: randomBytes(32).toString('hex') })).rejects.toThrow(
        /none of the 2 stored provider keys can be decrypted: most likely this server's master key/,
      );
      const server = await start(f);
      for (const key of [f.keys.alice, f.keys.bob])
        expect((await call(server, key, 'GET', '/api/v1/sync/status')).body.connection.status).toBe('active');
    });

    it('a key stored with a line break (as the admin command once stored one): the server starts, only its user stops', async () => {
      const f = await fixture();
      const key = Buffer.from(readFileSync(join(f.db.dataDir, 'master.key'), 'utf8').trim(), 'base64');
      await credential(f, f.users.alice, {
        sealed_key: sealProviderKey(key, `${SECRET}\n# my key`, { userId: f.users.alice, baseUrl: SANDBOX }),
      });
      const server = await start(f);
      expect(aliceLine(f)).toMatch(/no request can carry/);
      expect(aliceLine(f)).toMatch(/not a master-key problem/);
      await expectOnlyAliceStopped(f, server);
    });

    it('a key stored with a character past U+00FF (before keys were checked for it): the server starts, only its user stops', async () => {
      const f = await fixture();
      const key = Buffer.from(readFileSync(join(f.db.dataDir, 'master.key'), 'utf8').trim(), 'base64');
      await credential(f, f.users.alice, {
        sealed_key: sealProviderKey(key, `${SECRET}\u2019`, { userId: f.users.alice, baseUrl: SANDBOX }),
      });
      const server = await start(f);
      expect(aliceLine(f)).toMatch(/no request can carry/);
      await expectOnlyAliceStopped(f, server);
    });

    it('an old v1 record is read and re-sealed as v2, bound to its URL, with the same updated_at', async () => {
      const f = await fixture();
      const key = Buffer.from(readFileSync(join(f.db.dataDir, 'master.key'), 'utf8').trim(), 'base64');
      const before = await credential(f, f.users.alice, {
        sealed_key: sealProviderKeyV1(key, SECRET, f.users.alice),
      });
      expect(before.sealed_key.startsWith('v1.')).toBe(true);
      const server = await start(f);
      const after = await credential(f, f.users.alice);
      expect(after.sealed_key.startsWith('v2.')).toBe(true);
      expect(after.updated_at).toBe(before.updated_at);
      expect(openProviderKey(key, after.sealed_key, { userId: f.users.alice, baseUrl: SANDBOX }).apiKey).toBe(
        SECRET,
      );
      expect((await call(server, f.keys.alice, 'POST', '/api/v1/sync?wait=true')).body.ok).toBe(true);
    });

    it('a v1 record whose base_url is off the allow-list is refused and left as it is', async () => {
      const f = await fixture();
      const evil = await host();
      const key = Buffer.from(readFileSync(join(f.db.dataDir, 'master.key'), 'utf8').trim(), 'base64');
      const before = await credential(f, f.users.alice, {
        sealed_key: sealProviderKeyV1(key, SECRET, f.users.alice),
        base_url: evil.url,
      });
      const server = await start(f);
      expect(aliceLine(f)).toMatch(/allow-list/);
      expect((await credential(f, f.users.alice)).sealed_key).toBe(before.sealed_key);
      await expectOnlyAliceStopped(f, server);
      expect(evil.requests).toEqual([]);
    });
  });
}
