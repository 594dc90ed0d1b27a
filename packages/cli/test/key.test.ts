/**
 * A key kept between runs: `finsync key set` seals it with the engine's `SealedCredentials`, and
 * `sync` and `watch` then run with no key in the environment. The provider is a sandbox the test
 * serves itself, reached through LUNCHFLOW_BASE_URL, whose key is KEY (`--sandbox` has its own
 * key, so it could not show a stored one at work).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SandboxProvider, startSandboxServer, type SandboxServer } from '@finsync/provider/sandbox';
import { fileCredentialRecords, SealedCredentials } from '@finsync/sync/credentials';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localToday } from '../src/options.js';
import { runCli, startCli, waitForOutput, type CliResult } from './helpers.js';

const KEY = 'lf-stored-key-3f9a1c7e5b2d';

function expectNoKey(result: CliResult, ...others: string[]): void {
  for (const secret of [KEY, ...others]) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

/** One base64url character changed in the ciphertext: still well-formed, no longer authentic. */
function alter(sealed: string): string {
  const parts = sealed.split('.');
  const ciphertext = parts[3]!;
  parts[3] = `${ciphertext[0] === 'A' ? 'B' : 'A'}${ciphertext.slice(1)}`;
  return parts.join('.');
}

describe('finsync key: a key sealed on disk, used by sync and watch', () => {
  let dir: string;
  let sandbox: SandboxProvider;
  let server: SandboxServer;
  let env: Record<string, string>;
  let credentials: string;
  let masterKey: string;

  beforeAll(async () => {
    dir = makeTempDir('cli');
    sandbox = new SandboxProvider({ apiKey: KEY, today: localToday(), historyDays: 30 });
    server = await startSandboxServer(sandbox);
    env = { LUNCHFLOW_BASE_URL: server.baseUrl };
    credentials = join(dir, 'finsync.db.credentials.json');
    masterKey = join(dir, 'finsync.master.key');
  });
  afterAll(async () => {
    await server?.close();
    removeTempDir(dir);
  });

  it('key set without a key: exit 2, nothing created', async () => {
    const result = await runCli(['key', 'set'], { cwd: dir, input: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no key to store');
    expect(existsSync(credentials)).toBe(false);
    expect(existsSync(masterKey)).toBe(false);
  });

  it('key set reads stdin and seals the key to its URL, in a 0600 file that does not hold it', async () => {
    const result = await runCli(['key', 'set', '--base-url', server.baseUrl], {
      cwd: dir,
      input: `${KEY}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`stored the key for connection default in ${credentials}`);
    expect(result.stdout).toContain(`sealed to ${server.baseUrl}, under the master key ${masterKey}`);
    expect(result.stderr).toContain(`created the master key ${masterKey} (mode 0600)`);
    expectNoKey(result);
    for (const file of [credentials, masterKey]) expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = await readFile(credentials, 'utf8');
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text)).toEqual({
      default: { sealed: expect.stringMatching(/^v2\./) as unknown, baseUrl: server.baseUrl },
    });
    // Storing a key opens no database.
    expect(existsSync(join(dir, 'finsync.db'))).toBe(false);
  });

  it('key status lists the connection and where its key is sealed to, never the key', async () => {
    const [text, json] = await Promise.all([
      runCli(['key', 'status'], { cwd: dir, env }),
      runCli(['key', 'status', '--json'], { cwd: dir, env }),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`credentials: ${credentials}`);
    expect(text.stdout).toContain(`master key: ${masterKey}`);
    expect(text.stdout).toMatch(new RegExp(`│ default +│ ${server.baseUrl} +│ usable +│`));
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      credentialsFile: credentials,
      masterKey,
      keys: [{ connection: 'default', sealedTo: server.baseUrl, state: 'usable' }],
    });
    expectNoKey(text);
    expectNoKey(json);
  });

  it('sync with no key in the environment uses the stored key, only where it is sealed to', async () => {
    // The URL is part of the seal, and the environment has to agree: without LUNCHFLOW_BASE_URL
    // the key would go to the provider's default address, which it is not sealed to.
    const elsewhere = await runCli(['sync', '--no-progress'], { cwd: dir });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`is sealed to ${server.baseUrl}`);
    expect(elsewhere.stderr).toContain(`set LUNCHFLOW_BASE_URL=${server.baseUrl}`);
    expectNoKey(elsewhere);
    expect(existsSync(join(dir, 'finsync.db'))).toBe(false);

    const requests = sandbox.requestCount;
    const result = await runCli(['sync', '--no-progress', '--verbose'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('connection default: success');
    expect(result.stderr).toContain(`from ${server.baseUrl}, with the key stored in ${credentials}`);
    expect(sandbox.requestCount).toBeGreaterThan(requests);
    expectNoKey(result);
  });

  it('a stored key the provider refuses: exit 3, and the advice is to store a new one', async () => {
    const wrong = 'lf-wrong-stored-key-81d0c4';
    const stored = await runCli(['key', 'set', '--connection', 'refused'], {
      cwd: dir,
      env: { ...env, LUNCHFLOW_API_KEY: wrong },
    });
    expect(stored.code, stored.stderr).toBe(0);
    const result = await runCli(['sync', '--no-progress', '--connection', 'refused'], { cwd: dir, env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'the provider refused the stored key: store a valid one with `finsync key set --connection refused`',
    );
    expectNoKey(result, wrong);
    expect((await runCli(['key', 'remove', '--connection', 'refused'], { cwd: dir })).code).toBe(0);
  });

  it('watch uses the stored key too, and stops cleanly on SIGINT', async () => {
    // No key stored for `nobody`: the error of old, and it never starts.
    const missing = await runCli(['watch', '--connection', 'nobody'], { cwd: dir, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no API key: set LUNCHFLOW_API_KEY or pass --key-file');

    // A second connection, never synced, so the scheduler runs it at once (`default` is not due).
    const stored = await runCli(['key', 'set', '--connection', 'household'], { cwd: dir, env, input: KEY });
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stdout).toContain(`sealed to ${server.baseUrl}`);
    const watch = startCli(['watch', '--interval', '60', '--connection', 'household'], { cwd: dir, env });
    await waitForOutput(watch, /household: success/);
    expect(watch.output.stderr).toContain(`with the key stored in ${credentials}`);
    watch.kill('SIGINT');
    const result = await watch.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toMatch(/^\S+Z household: success \(.+\), 7 accounts, \d+ fetched, \+\d+ ~0 -0$/m);
    expectNoKey(result);
  });

  it('a stored key altered, moved, pointed elsewhere or sealed under another key: exit 2, never the key', async () => {
    const original = await readFile(credentials, 'utf8');
    const record = (JSON.parse(original) as { default: { sealed: string; baseUrl: string } }).default;
    const other = 'http://127.0.0.1:9/api/v1';
    const variants: Record<string, unknown> = {
      altered: { default: { ...record, sealed: alter(record.sealed) } },
      moved: { household: record },
      redirected: { default: { ...record, baseUrl: other } },
      'not a record': { default: { sealed: 42 } },
    };
    await mkdir(join(dir, 'variants'));
    const file = (name: string) => join(dir, 'variants', `${name.replace(/ /g, '-')}.json`);
    for (const [name, content] of Object.entries(variants))
      await writeFile(file(name), JSON.stringify(content), { mode: 0o600 });
    await writeFile(file('not json'), 'garbage', { mode: 0o600 });
    const foreign = randomBytes(32).toString('hex');

    const run = (args: string[], extra: Record<string, string>) =>
      runCli(args, { cwd: dir, env: { ...env, ...extra } });
    const [altered, moved, redirected, notRecord, notJson, sealedElsewhere, status] = await Promise.all([
      run(['sync', '--no-progress'], { FINSYNC_CREDENTIALS_FILE: file('altered') }),
      run(['sync', '--no-progress', '--connection', 'household'], {
        FINSYNC_CREDENTIALS_FILE: file('moved'),
      }),
      run(['sync', '--no-progress'], {
        FINSYNC_CREDENTIALS_FILE: file('redirected'),
        LUNCHFLOW_BASE_URL: other,
      }),
      run(['watch'], { FINSYNC_CREDENTIALS_FILE: file('not a record') }),
      run(['sync', '--no-progress'], { FINSYNC_CREDENTIALS_FILE: file('not json') }),
      run(['sync', '--no-progress'], { FINSYNC_MASTER_KEY: foreign }),
      run(['key', 'status'], { FINSYNC_CREDENTIALS_FILE: file('altered') }),
    ]);
    for (const result of [altered, moved, redirected, notRecord, sealedElsewhere]) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('cannot be opened');
      expect(result.stderr).toMatch(/run `finsync key set( --connection household)?` again/);
      expectNoKey(result, foreign);
    }
    expect(moved.stderr).toContain('finsync key set --connection household');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('is not a finsync credentials file');
    expect(status.code).toBe(2);
    expect(status.stdout).toMatch(/│ default +│ .+ +│ cannot be opened +│/);
    expectNoKey(status);
    // Nothing reached the provider at the other URL, nor anywhere else.
    expect(redirected.stderr).not.toContain('ConnectionError');

    // A master key file other users can read is refused, not used.
    await chmod(masterKey, 0o644);
    const loose = await run(['sync', '--no-progress'], {});
    await chmod(masterKey, 0o600);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toContain(`chmod 600 ${masterKey}`);
    expectNoKey(loose);
  });

  it('a stored key no HTTP header can carry (sealed before key set checked): exit 2, store it again, never the key', async () => {
    // Sealed as an older `key set` did, with no check of its characters.
    const place = join(dir, 'euro');
    await mkdir(place);
    const master = randomBytes(32).toString('hex');
    const euroKey = `${KEY}€`;
    await new SealedCredentials({
      masterKey: Buffer.from(master, 'hex'),
      records: fileCredentialRecords(join(place, 'finsync.db.credentials.json')),
      allowedBaseUrls: [server.baseUrl],
    }).set('default', { apiKey: euroKey, baseUrl: server.baseUrl });
    const requests = sandbox.requestCount;
    const result = await runCli(['sync', '--no-progress'], {
      cwd: place,
      env: { ...env, FINSYNC_MASTER_KEY: master },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'the stored key holds a character no HTTP header can carry (a curly quote, an emoji?): store the key again with `finsync key set`',
    );
    expect(sandbox.requestCount).toBe(requests);
    expectNoKey(result, euroKey, master);
  });

  it('key remove: sync is back to asking for a key; removing again is exit 2', async () => {
    const removed = await runCli(['key', 'remove'], { cwd: dir });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed the stored key for connection default from ${credentials}`);
    const [sync, again, status, elsewhere] = await Promise.all([
      runCli(['sync', '--no-progress'], { cwd: dir, env }),
      runCli(['key', 'remove'], { cwd: dir }),
      runCli(['key', 'status'], { cwd: dir, env }),
      runCli(['key', 'status'], { cwd: dir }),
    ]);
    expect(sync.code).toBe(2);
    expect(sync.stderr).toContain('no API key: set LUNCHFLOW_API_KEY or pass --key-file');
    expect(sync.stderr).toContain('finsync key set');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('no stored key for connection default');
    expect(again.stderr).toContain('(stored: household)');
    // Only `household` is left; usable where LUNCHFLOW_BASE_URL agrees with its seal, not elsewhere.
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toMatch(/│ default/);
    expect(status.stdout).toMatch(/│ household +│ .+ +│ usable +│/);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stdout).toMatch(/│ household +│ .+ +│ sealed to another URL +│/);
    expect(elsewhere.stdout).toContain('LUNCHFLOW_BASE_URL is not set here');

    const last = await runCli(['key', 'remove', '--connection', 'household'], { cwd: dir });
    expect(last.code, last.stderr).toBe(0);
    const none = await runCli(['key', 'status'], { cwd: dir });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('no stored keys');
  });

  it('PostgreSQL: ./finsync.credentials.json or FINSYNC_CREDENTIALS_FILE, the master key beside it', async () => {
    const pg = join(dir, 'pg');
    await mkdir(pg);
    const database = ['--database', 'postgres://me:pw-not-shown@127.0.0.1:9/money'];
    const [plain, placed, withPassword] = await Promise.all([
      runCli(['key', 'set', ...database], { cwd: pg, env: { LUNCHFLOW_API_KEY: KEY } }),
      runCli(['key', 'set', ...database, '--key-file', '-'], {
        cwd: pg,
        input: KEY,
        env: { FINSYNC_CREDENTIALS_FILE: join(pg, 'secrets', 'keys.json') },
      }),
      runCli(['key', 'set', '--base-url', 'https://user:pw-not-shown@proxy.example/api/v1'], {
        cwd: pg,
        env: { LUNCHFLOW_API_KEY: KEY },
      }),
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(statSync(join(pg, 'finsync.credentials.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(pg, 'finsync.master.key')).mode & 0o777).toBe(0o600);
    expect(placed.code, placed.stderr).toBe(0);
    expect(statSync(join(pg, 'secrets', 'keys.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(pg, 'secrets', 'finsync.master.key')).mode & 0o777).toBe(0o600);
    expect(plain.stdout).toContain('for the database postgres://me@127.0.0.1:9/money');
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('with a user or password cannot be stored');
    for (const result of [plain, placed, withPassword]) expectNoKey(result, 'pw-not-shown');
  });
});
