/**
 * What goes wrong, and what a script sees: exit codes, one clear line, nothing created that should
 * not be, and never the key. The provider here is a sandbox served by the test itself and reached
 * through LUNCHFLOW_BASE_URL, as a proxy or a test server would be.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SandboxProvider, startSandboxServer, type SandboxServer } from '@finsync/provider/sandbox';
import { SqliteStorage } from '@finsync/sqlite';
import { SyncEngine } from '@finsync/sync';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localToday } from '../src/options.js';
import { runCli, type CliResult } from './helpers.js';

const KEY = 'lf-test-key-7c1e0b9a4d2f';
const WRONG = 'lf-wrong-key-55aa13e0c8b6';

function expectNoKey(result: CliResult): void {
  for (const secret of [KEY, WRONG]) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

/** Whether another user can run the built CLI: every directory above it searchable by others. */
function othersCanRun(file: string): boolean {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}
/** As root every file is writable: the test then runs the CLI as nobody, which must reach it. */
const unwritableCanBeTried = process.getuid?.() !== 0 || othersCanRun(inject('cliMain'));
/** As root every file is writable: the tests of places this user cannot write run the CLI as nobody. */
const asAnother = process.getuid?.() === 0 ? { uid: 65534 } : {};
if (!unwritableCanBeTried)
  console.warn(
    '[cli] the read-only database test is skipped: it runs the CLI as nobody (the tests run as root), and a directory above the built CLI is closed to other users',
  );

describe('errors and exit codes', () => {
  let dir: string;
  let sandbox: SandboxProvider;
  let server: SandboxServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = makeTempDir('cli');
    sandbox = new SandboxProvider({ apiKey: KEY, today: localToday(), historyDays: 30 });
    server = await startSandboxServer(sandbox);
    env = { LUNCHFLOW_BASE_URL: server.baseUrl };
  });
  afterAll(async () => {
    await server?.close();
    removeTempDir(dir);
  });

  it('status, feed and export on a missing database: exit 2, a clear line, no file created', async () => {
    const results = await Promise.all(
      [['status'], ['feed', '--after', '0'], ['export', '--format', 'csv']].map((args) =>
        runCli([...args, '--database', 'missing.db'], { cwd: dir }),
      ),
    );
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`no database at ${join(dir, 'missing.db')}`);
    }
    expect(existsSync(join(dir, 'missing.db'))).toBe(false);
  });

  it('a key with a control character in LUNCHFLOW_API_KEY: exit 2, one line that does not quote it, no database created', async () => {
    const result = await runCli(['sync', '--database', 'escaped.db'], {
      cwd: dir,
      env: { ...env, LUNCHFLOW_API_KEY: `${KEY}\u001b` },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('LUNCHFLOW_API_KEY holds a control character');
    expect(result.stderr).not.toMatch(/unexpected error|at .*\.js/);
    expectNoKey(result);
    expect(existsSync(join(dir, 'escaped.db'))).toBe(false);
  });

  it('a key with a character no header can carry: exit 2 for sync and key set, not an unreachable provider', async () => {
    // Before, every request failed as a connection error, was retried, and the sync exited 6.
    const euro = { ...env, LUNCHFLOW_API_KEY: `${KEY}€` };
    const synced = await runCli(['sync', '--database', 'euro.db'], { cwd: dir, env: euro });
    expect(synced.code, synced.stderr).toBe(2);
    expect(synced.stderr).toContain('LUNCHFLOW_API_KEY holds a character no HTTP header can carry');
    expect(existsSync(join(dir, 'euro.db'))).toBe(false);
    const stored = await runCli(['key', 'set', '--database', 'euro.db'], {
      cwd: dir,
      env: {},
      input: `${KEY}”\n`,
    });
    expect(stored.code, stored.stderr).toBe(2);
    expect(stored.stderr).toContain('holds a character no HTTP header can carry');
    for (const result of [synced, stored]) {
      expect(result.stderr).not.toContain(KEY);
      expect(result.stdout).not.toContain(KEY);
    }
  });

  it('sync into a directory, or under a file: exit 2 and one line saying which', async () => {
    await writeFile(join(dir, 'plain-file'), '');
    const intoDirectory = await runCli(['sync', '--sandbox', '--database', '.'], { cwd: dir });
    expect(intoDirectory.code).toBe(2);
    expect(intoDirectory.stderr).toContain(`${dir} is a directory`);
    const underFile = await runCli(['sync', '--sandbox', '--database', 'plain-file/x.db'], { cwd: dir });
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toContain(`cannot make the directory of ${join(dir, 'plain-file', 'x.db')}`);
    for (const result of [intoDirectory, underFile]) expect(result.stderr).not.toContain('unexpected error');
  });

  it('status on the empty file a first sync killed before its first write leaves: says to sync again', async () => {
    await writeFile(join(dir, 'interrupted.db'), '');
    const result = await runCli(['status', '--database', 'interrupted.db'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('holds no finsync data');
    expect(result.stderr).toContain('run `finsync sync` again');
  });

  it('refuses the key as an argument without echoing it', async () => {
    const results = await Promise.all([
      runCli(['sync', `--key=${KEY}`], { cwd: dir, env }),
      runCli(['sync', '--api-key', KEY], { cwd: dir, env }),
      runCli(['watch', '--sandbox', '--key', KEY], { cwd: dir, env }),
      runCli(['sync', `--api-token=${KEY}`], { cwd: dir, env }),
      runCli(['sync', '--lunchflow-key', KEY], { cwd: dir, env }),
      runCli(['sync', `--password=${KEY}`], { cwd: dir, env }),
    ]);
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('never taken as an argument');
      expectNoKey(result);
    }
    expect(existsSync(join(dir, 'finsync.db'))).toBe(false);
  });

  it('a place that cannot be written or read is a usage error (exit 2), not an unexpected one', async () => {
    const synced = await runCli(['sync', '--sandbox', '--database', 'e.db', '--no-progress'], {
      cwd: dir,
      env,
    });
    expect(synced.code, synced.stderr).toBe(0);
    const exported = await runCli(['export', '--database', 'e.db', '-o', join(dir, 'no-such-dir', 'x.csv')], {
      cwd: dir,
      env,
    });
    const keyDir = await runCli(['sync', '--key-file', dir, '--database', 'kd.db'], { cwd: dir, env });
    // A directory as the file to write: refused before the export, not found out at its end.
    const intoDirectory = await runCli(['export', '--database', 'e.db', '-o', dir], { cwd: dir, env });
    for (const result of [exported, keyDir, intoDirectory]) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).not.toContain('unexpected error');
    }
    expect(exported.stderr).toContain('--output: cannot write in');
    expect(intoDirectory.stderr).toContain(`--output: ${dir} is a directory`);
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
    expect(keyDir.stderr).toContain('is not a file');
  });

  it.skipIf(!unwritableCanBeTried)(
    'a database this user cannot write: exit 2 naming it, not a partial sync',
    async () => {
      // A root-owned file of mode 0600, to another user; as root every file is writable, so the CLI
      // then runs as nobody. SQLite opened such a file read-only without a word, and each account's
      // write failed as one the next sync retries (exit 5).
      const place = await mkdtemp(join(tmpdir(), 'finsync-ro-'));
      try {
        await chmod(place, 0o755);
        const db = join(place, 'ro.db');
        const keyed = { ...env, LUNCHFLOW_API_KEY: KEY };
        const first = await runCli(['sync', '--database', db, '--no-progress'], { cwd: place, env: keyed });
        expect(first.code, first.stderr).toBe(0);
        if (!('uid' in asAnother)) await chmod(db, 0o444);
        const again = await runCli(['sync', '--database', db, '--no-progress'], {
          cwd: place,
          env: keyed,
          ...asAnother,
        });
        expect(again.code, again.stderr).toBe(2);
        expect(again.stderr).toContain(
          `${db} cannot be written: the database file is read-only for this user`,
        );
        expect(again.stderr).not.toContain('unexpected error');
      } finally {
        await rm(place, { recursive: true, force: true });
      }
    },
  );

  it('a chain of links, and a loop of them: exit 2 naming where the chain ends, or the loop', async () => {
    const first = join(dir, 'chain-a.db');
    await symlink(join(dir, 'chain-b.db'), first);
    await symlink(join(dir, 'chain-missing', 'real.db'), join(dir, 'chain-b.db'));
    const loop = join(dir, 'loop.db');
    await symlink(loop, loop);
    const [chained, looped] = await Promise.all(
      [first, loop].map((db) =>
        runCli(['sync', '--sandbox', '--database', db, '--no-progress'], { cwd: dir, env }),
      ),
    );
    expect(chained!.code, chained!.stderr).toBe(2);
    expect(chained!.stderr).toContain(
      `it links to ${join(dir, 'chain-missing', 'real.db')}, which cannot be made (ENOENT: is ${join(dir, 'chain-missing')} there`,
    );
    expect(looped!.code, looped!.stderr).toBe(2);
    expect(looped!.stderr).toContain(`${loop} cannot be written: its links go round in a loop`);
    // A link in a linked directory: its `..` is the real directory's parent, as the kernel reads it.
    await mkdir(join(dir, 'vol', 'sub'), { recursive: true });
    await symlink(join(dir, 'vol', 'sub'), join(dir, 'home'));
    await symlink(join('..', 'db', 'finsync.db'), join(dir, 'home', 'x.db'));
    const viaDirectory = await runCli(
      ['sync', '--sandbox', '--database', join(dir, 'home', 'x.db'), '--no-progress'],
      {
        cwd: dir,
        env,
      },
    );
    expect(viaDirectory.code, viaDirectory.stderr).toBe(2);
    expect(viaDirectory.stderr).toContain(
      `it links to ${join(dir, 'vol', 'db', 'finsync.db')}, which cannot be made`,
    );
    // A '..' inside the target, after a linked directory: the linked directory's real parent.
    await mkdir(join(dir, 'deep', 'inner'), { recursive: true });
    await symlink(join('deep', 'inner'), join(dir, 'sub'));
    await symlink('sub/../missing/f.db', join(dir, 'through.db'));
    const through = await runCli(
      ['sync', '--sandbox', '--database', join(dir, 'through.db'), '--no-progress'],
      {
        cwd: dir,
        env,
      },
    );
    expect(through.code, through.stderr).toBe(2);
    expect(through.stderr).toContain(
      `it links to ${join(dir, 'deep', 'missing', 'f.db')}, which cannot be made`,
    );
    // A part that is a link to nowhere is followed in turn; a folder missing before the file is named.
    await symlink(join('nowhere', 'x'), join(dir, 'dang'));
    await symlink(join('dang', 'f.db'), join(dir, 'via-dangling.db'));
    await symlink('missing/../b/f.db', join(dir, 'via-missing.db'));
    const [viaDangling, viaMissing] = await Promise.all(
      ['via-dangling.db', 'via-missing.db'].map((name) =>
        runCli(['sync', '--sandbox', '--database', join(dir, name), '--no-progress'], { cwd: dir, env }),
      ),
    );
    expect(viaDangling!.stderr).toContain(
      `it links to ${join(dir, 'nowhere', 'x', 'f.db')}, which cannot be made`,
    );
    expect(viaMissing!.stderr).toContain(`it links to ${dir}/missing/../b/f.db, which cannot be made`);
  });

  it('a database path that is a link to no file: exit 2 naming it, not an unexpected error', async () => {
    const link = join(dir, 'dangling.db');
    await symlink(join(dir, 'no-such-dir', 'real.db'), link);
    const result = await runCli(['sync', '--sandbox', '--database', link, '--no-progress'], {
      cwd: dir,
      env,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `${link} cannot be written: it links to ${join(dir, 'no-such-dir', 'real.db')}, which cannot be made (ENOENT: is ${join(dir, 'no-such-dir')} there, and writable?)`,
    );
  });

  it('a database path that is a link: the sync writes where it points, and the link stays a link', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'finsync-link-target-'));
    try {
      const real = join(elsewhere, 'real.db');
      const link = join(dir, 'linked.db');
      await symlink(real, link);
      const synced = await runCli(['sync', '--database', link, '--no-progress'], {
        cwd: dir,
        env: { ...env, LUNCHFLOW_API_KEY: KEY },
      });
      expect(synced.code, synced.stderr).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      // Made where the link points, private as any database the CLI makes (it holds bank data).
      expect(statSync(real).mode & 0o777).toBe(0o600);
      // What the sync wrote is read through the file the link names.
      const status = await runCli(['status', '--database', real], { cwd: dir, env });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(/connection \S+: active/);
      expect(readdirSync(dir).filter((name) => name.startsWith('linked.db'))).toEqual(['linked.db']);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it.skipIf(!unwritableCanBeTried)(
    'a link to a database in a directory this user cannot write: exit 2 naming both, not a partial sync',
    async () => {
      // The link's own directory is writable; the WAL files go beside the file it names, where they cannot.
      const closed = await mkdtemp(join(tmpdir(), 'finsync-closed-'));
      const open = await mkdtemp(join(tmpdir(), 'finsync-open-'));
      try {
        const real = join(closed, 'real.db');
        const keyed = { ...env, LUNCHFLOW_API_KEY: KEY };
        const first = await runCli(['sync', '--database', real, '--no-progress'], {
          cwd: closed,
          env: keyed,
        });
        expect(first.code, first.stderr).toBe(0);
        await chmod(real, 0o666);
        await chmod(closed, 0o555);
        await chmod(open, 0o777);
        const link = join(open, 'link.db');
        await symlink(real, link);
        const again = await runCli(['sync', '--database', link, '--no-progress'], {
          cwd: open,
          env: keyed,
          ...asAnother,
        });
        expect(again.code, again.stderr).toBe(2);
        expect(again.stderr).toContain(
          `${link} (${real}) cannot be written: its directory (finsync.db-wal and -shm go there) is read-only for this user`,
        );
        expect(again.stderr).not.toContain('unexpected error');
        // A link to a file not made yet in that directory: the file cannot be made there.
        const toNew = join(open, 'new.db');
        await symlink(join(closed, 'new.db'), toNew);
        const made = await runCli(['sync', '--database', toNew, '--no-progress'], {
          cwd: open,
          env: keyed,
          ...asAnother,
        });
        expect(made.code, made.stderr).toBe(2);
        expect(made.stderr).toContain(
          `${toNew} cannot be written: it links to ${join(closed, 'new.db')}, which cannot be made (EACCES`,
        );
      } finally {
        await chmod(closed, 0o755);
        await rm(closed, { recursive: true, force: true });
        await rm(open, { recursive: true, force: true });
      }
    },
  );

  it('a damaged database: exit 2, one line naming it, not an unexpected error', async () => {
    const synced = await runCli(['sync', '--sandbox', '--database', 'whole.db', '--no-progress'], {
      cwd: dir,
      env,
    });
    expect(synced.code, synced.stderr).toBe(0);
    const whole = await readFile(join(dir, 'whole.db'));
    // The first pages hold the schema; the rows' pages past them are cut off, as a disk or a copy may.
    await writeFile(join(dir, 'cut.db'), whole.subarray(0, Math.floor(whole.length / 2)));
    for (const command of [['status'], ['export', '-o', join(dir, 'cut.csv')]]) {
      const result = await runCli([...command, '--database', 'cut.db'], { cwd: dir, env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${join(dir, 'cut.db')} is damaged`);
      expect(result.stderr).not.toContain('unexpected error');
    }
  });

  it('without a key: exit 2 and no database left behind', async () => {
    const result = await runCli(['sync', '--database', 'nokey.db'], { cwd: dir, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no API key: set LUNCHFLOW_API_KEY or pass --key-file');
    expect(existsSync(join(dir, 'nokey.db'))).toBe(false);
  });

  it('a refused key: exit 3, the connection waits for a new key, the key is never printed', async () => {
    const result = await runCli(['sync', '--no-progress'], {
      cwd: dir,
      env: { ...env, LUNCHFLOW_API_KEY: WRONG },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('connection default: failed');
    expect(result.stdout).toContain('PermissionDeniedError');
    expect(result.stderr).toContain('the provider refused the key');
    expectNoKey(result);

    const status = await runCli(['status'], { cwd: dir });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('connection default: needs a new API key');
  });

  it('--key-file: refuses a file everyone can read, then syncs with the right key', async () => {
    const readable = join(dir, 'key-readable');
    await writeFile(readable, `${KEY}\n`);
    await chmod(readable, 0o644);
    const [open, missing] = await Promise.all([
      runCli(['sync', '--key-file', readable], { cwd: dir, env }),
      runCli(['sync', '--key-file', KEY], { cwd: dir, env }),
    ]);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain(`chmod 600 ${readable}`);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--key-file: no such file');
    expectNoKey(open);
    expectNoKey(missing);

    // The connection the refused key left waiting takes the right key at once; --verbose prints
    // every request the client makes, and still no key.
    const file = join(dir, 'key');
    await writeFile(file, `${KEY}\n`, { mode: 0o600 });
    const result = await runCli(['sync', '--key-file', file, '--verbose'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('connection default: success');
    expect(result.stderr).toContain('[debug]');
    expectNoKey(result);
  });

  it('rate limited: exit 4, and the next run respects the pause without calling the provider', async () => {
    sandbox.faults.add({
      kind: 'rate-limit',
      retryAfterSeconds: 3_600,
      match: { endpoint: 'accounts' },
      times: 1,
    });
    const args = ['sync', '--connection', 'limited', '--no-progress'];
    const first = await runCli(args, { cwd: dir, env: { ...env, LUNCHFLOW_API_KEY: KEY } });
    expect(first.code).toBe(4);
    expect(first.stdout).toContain('RateLimitError');
    expect(first.stderr).toMatch(/rate limited: paused until \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    expectNoKey(first);

    const requests = sandbox.requestCount;
    const again = await runCli(args, { cwd: dir, env: { ...env, LUNCHFLOW_API_KEY: KEY } });
    expect(again.code).toBe(4);
    expect(again.stdout).toContain('connection limited: skipped');
    expect(sandbox.requestCount).toBe(requests);
  });

  it('some accounts failing: exit 5 (partial); an unreachable provider: exit 6 (failed)', async () => {
    sandbox.faults.add({ kind: 'malformed-json', match: { endpoint: 'transactions', accountId: '4712' } });
    const [partial, failed] = await Promise.all([
      runCli(['sync', '--connection', 'partial', '--no-progress'], {
        cwd: dir,
        env: { ...env, LUNCHFLOW_API_KEY: KEY },
      }),
      runCli(['sync', '--database', 'down.db', '--no-progress'], {
        cwd: dir,
        env: { LUNCHFLOW_BASE_URL: 'http://127.0.0.1:9/api/v1', LUNCHFLOW_API_KEY: KEY },
      }),
    ]);
    expect(partial.code).toBe(5);
    expect(partial.stdout).toContain('connection partial: partial');
    expect(partial.stdout).toMatch(/transactions, account 4712: InvalidResponseError/);
    expect(failed.code).toBe(6);
    expect(failed.stdout).toContain('ConnectionError');
    expectNoKey(partial);
    expectNoKey(failed);
  });

  it('bad options: exit 2', async () => {
    const results = await Promise.all([
      runCli(['feed', '--after', '-1'], { cwd: dir }),
      runCli(['export', '--format', 'xml'], { cwd: dir }),
      runCli(['export', '--from', '2026-02-30'], { cwd: dir }),
      runCli(['nonsense'], { cwd: dir }),
      runCli(['export', '--connection', 'nope'], { cwd: dir }),
    ]);
    for (const result of results) expect(result.code, result.stderr).toBe(2);
    expect(results[4]!.stderr).toContain('no connection "nope" (known: default, limited, partial)');
  });

  it('an option that would do nothing where it is given: exit 2 saying why, not ignored', async () => {
    const [schema, poll, schemaFromEnv] = await Promise.all([
      runCli(['status', '--schema', 'books'], { cwd: dir }),
      runCli(['feed', '--poll', '5'], { cwd: dir }),
      // Set for another tool, the variable is no mistake of this command line.
      runCli(['status'], { cwd: dir, env: { FINSYNC_PG_SCHEMA: 'books' } }),
    ]);
    expect([schema.code, poll.code], schema.stderr + poll.stderr).toEqual([2, 2]);
    expect(schema.stderr).toContain('--schema names a PostgreSQL schema');
    expect(poll.stderr).toContain('--poll sets the seconds between polls of --follow');
    expect(schemaFromEnv.stderr).not.toContain('--schema');
  });

  it('values past what the engine, the sandbox or a timer takes: exit 2, before any database is made', async () => {
    const results = await Promise.all([
      runCli(['sync', '--sandbox', '--sandbox-days', '100000', '-d', 'days.db'], { cwd: dir }),
      runCli(['sync', '--sandbox', '--start-date', '0000-01-01', '-d', 'year0.db'], { cwd: dir }),
      runCli(['sync', '--sandbox', '--connection', '', '-d', 'empty.db'], { cwd: dir }),
      runCli(['sync', '--sandbox', '--connection', 'c'.repeat(257), '-d', 'long.db'], { cwd: dir }),
      runCli(['feed', '--follow', '--poll', '10000000'], { cwd: dir }),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).not.toMatch(/unexpected error|TimeoutOverflowWarning/);
    }
    expect(results[0]!.stderr).toContain('expected a whole number from 1 to 36525');
    expect(results[4]!.stderr).toContain('expected seconds from 0.1 to 2147483');
    for (const name of ['days.db', 'year0.db', 'empty.db', 'long.db'])
      expect(existsSync(join(dir, name))).toBe(false);
  });

  it('a connection stored under an id longer than a new one may have is still read by status', async () => {
    const filename = join(dir, 'legacy.db');
    const storage = new SqliteStorage({ filename });
    const engine = new SyncEngine({ storage });
    await engine.addConnection({ id: 'short', apiKey: KEY });
    await engine.stop();
    // As an earlier version, which bounded no id, stored it.
    storage.database.prepare('UPDATE connections SET id = ?').run('x'.repeat(300));
    await storage.close();
    const result = await runCli(['status', '-d', 'legacy.db', '--connection', 'x'.repeat(300)], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('x'.repeat(64));
  });

  it('a LUNCHFLOW_BASE_URL with a password: exit 2, and the password is never printed', async () => {
    const result = await runCli(['sync', '-v', '-d', 'creds.db'], {
      cwd: dir,
      env: { LUNCHFLOW_BASE_URL: 'http://bob:pw0rdSECRET@127.0.0.1:9/api/v1', LUNCHFLOW_API_KEY: KEY },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('LUNCHFLOW_BASE_URL must not hold a user name or password');
    expect(`${result.stdout}${result.stderr}`).not.toContain('pw0rdSECRET');
    expectNoKey(result);
    expect(existsSync(join(dir, 'creds.db'))).toBe(false);
  });
});
