/** The admin command line: --help everywhere, the server's database only, never a new empty one. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../src/server.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli.ts');
const run = (dataDir: string, args: string[], input?: string) =>
  spawnSync(
    process.execPath,
    ['--conditions=@finsync/source', '--import', import.meta.resolve('tsx'), cli, ...args],
    {
      env: { ...process.env, FINSYNC_DATA_DIR: dataDir, DATABASE_URL: '' },
      encoding: 'utf8',
      input,
      timeout: 60_000,
    },
  );

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
    ]) {
      const result = run(dataDir, args);
      expect(result.status, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/^Usage: admin/);
    }
    expect(run(dataDir, []).status).toBe(2);
    expect(run(dataDir, ['create-user', 'x', '--scope', 'admin']).status).toBe(2);
    // Seven processes, each compiling the CLI through tsx: about 20 s on a quiet 2-core machine.
  }, 90_000);

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
  });
});
