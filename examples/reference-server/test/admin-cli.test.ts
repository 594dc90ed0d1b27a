/** The admin command line: --help everywhere, the server's database only, never a new empty one. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startReferenceServer } from '../src/server.js';

/** The admin command, built once by test/global-setup.ts: plain `node`, as `npm run build` ships it. */
const cli = inject('adminCli');
const run = (dataDir: string, args: string[], input?: string) =>
  spawnSync(process.execPath, ['--enable-source-maps', cli, ...args], {
    env: { ...process.env, FINSYNC_DATA_DIR: dataDir, DATABASE_URL: '' },
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });

describe('npm run admin', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = makeTempDir('admin');
    const server = await startReferenceServer({ dataDir, port: 0, scheduler: false, sandbox: false });
    await server.close({ graceMs: 0 });
  });
  afterAll(() => removeTempDir(dataDir));

  it('has --help on every command, exit 0', () => {
    for (const args of [
      ['--help'],
      ['create-user', '--help'],
      ['create-key', '--help'],
      ['set-provider-key', '--help'],
      ['list-users', '--help'],
      ['list-keys', '--help'],
      ['revoke-key', '--help'],
    ]) {
      const result = run(dataDir, args);
      expect(result.status, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/^Usage: admin/);
    }
    expect(run(dataDir, []).status).toBe(2);
    expect(run(dataDir, ['create-user', 'x', '--scope', 'admin']).status).toBe(2);
  }, 120_000);

  it('refuses a data directory without the server’s database, and creates nothing there', () => {
    const elsewhere = join(tmpdir(), `finsync-admin-missing-${process.pid}`);
    const result = run(elsewhere, ['list-users']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`no database at ${join(elsewhere, 'finsync.db')}`);
    expect(existsSync(elsewhere)).toBe(false);
  });

  it('creates a user and a key on the server’s database, says which, and reads a provider key from stdin', () => {
    const created = run(dataDir, ['create-user', 'dora']);
    expect(created.status).toBe(0);
    expect(created.stderr).toContain(`database: ${join(dataDir, 'finsync.db')}`);
    expect(created.stdout).toMatch(/api key: [0-9a-f]{64}/);
    expect(run(dataDir, ['list-users']).stdout).toMatch(/ dora /);
    const secret = 'lf-provider-secret-0001';
    const set = run(dataDir, ['set-provider-key', 'dora', '--base-url', 'sandbox'], `${secret}\n`);
    expect(set.status).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(secret);
    // A line pasted with the key would be stored, and no client could send it: refused, nothing stored.
    const pasted = run(dataDir, ['set-provider-key', 'dora', '--base-url', 'sandbox'], `${secret}\n# note\n`);
    expect(pasted.status).toBe(1);
    expect(pasted.stderr).toContain('api_key must not contain a control character (a line break?)');
    expect(pasted.stdout + pasted.stderr).not.toContain(secret);
    // Nor a character past U+00FF: stored, no client could be made from it, and every start failed.
    const curly = run(dataDir, ['set-provider-key', 'dora', '--base-url', 'sandbox'], `${secret}\u2019\n`);
    expect(curly.status).toBe(1);
    expect(curly.stderr).toContain('api_key must not contain a character past U+00FF');
    expect(curly.stdout + curly.stderr).not.toContain(secret);
  });

  it('takes a provider URL the operator allowed (FINSYNC_ALLOWED_PROVIDER_URLS), as the server does', () => {
    expect(run(dataDir, ['create-user', 'erin']).status).toBe(0);
    const proxy = 'https://proxy.example.com/api/v1';
    const secret = 'lf-provider-secret-0002';
    const refused = run(dataDir, ['set-provider-key', 'erin', '--base-url', proxy], `${secret}\n`);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('base_url must be one of');
    process.env.FINSYNC_ALLOWED_PROVIDER_URLS = proxy;
    try {
      const allowed = run(dataDir, ['set-provider-key', 'erin', '--base-url', proxy], `${secret}\n`);
      expect(allowed.status, allowed.stderr).toBe(0);
      expect(allowed.stdout + allowed.stderr).not.toContain(secret);
    } finally {
      delete process.env.FINSYNC_ALLOWED_PROVIDER_URLS;
    }
  });

  it("lists a user's keys without their secrets, and revokes one at once", async () => {
    const made = run(dataDir, ['create-key', 'dora', '--name', 'phone']);
    expect(made.status, made.stderr).toBe(0);
    const key = made.stdout.trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const listed = run(dataDir, ['list-keys', 'dora']);
    expect(listed.status).toBe(0);
    const phone = listed.stdout.split('\n').find((line) => / phone {2}read_write {2}created /.test(line))!;
    expect(phone).toBeDefined();
    expect(listed.stdout).not.toContain(key);
    const id = phone.split(' ')[0]!;
    // Neither an id nor --all, or both: bad usage, and nothing revoked.
    for (const args of [
      ['revoke-key', 'dora'],
      ['revoke-key', 'dora', id, '--all'],
    ]) {
      const refused = run(dataDir, args);
      expect(refused.status, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('give a key id (see list-keys) or --all: one of the two');
    }
    expect(run(dataDir, ['list-keys', 'dora']).stdout).not.toContain('revoked');
    const revoked = run(dataDir, ['revoke-key', 'dora', id]);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`revoked key ${id} of dora`);
    expect(run(dataDir, ['list-keys', 'dora']).stdout).toMatch(new RegExp(`${id} .* revoked `));
    expect(run(dataDir, ['revoke-key', 'dora', id]).stderr).toContain(`dora has no live key ${id}`);
    const other = run(dataDir, ['create-key', 'dora', '--name', 'laptop']).stdout.trim();
    // The server refuses it; the user's other key still works. (Started without the sandbox, which
    // dora's provider key is for: the server starts all the same, and says so for dora alone.)
    const server = await startReferenceServer({ dataDir, port: 0, scheduler: false, sandbox: false });
    try {
      const get = (apiKey: string, path: string) =>
        fetch(`${server.url}${path}`, { headers: { 'X-Api-Key': apiKey } });
      expect((await get(key, '/api/v1/transactions')).status).toBe(401);
      const status = (await (await get(other, '/api/v1/sync/status')).json()) as {
        connection: { status: string; status_reason: string };
      };
      expect(status.connection).toMatchObject({ status: 'reauth_required' });
      expect(status.connection.status_reason).toMatch(
        /for the sandbox provider, which this server does not run/,
      );
    } finally {
      await server.close({ graceMs: 0 });
    }
  }, 120_000);
});
