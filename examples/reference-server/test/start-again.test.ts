/** `npm start` (src/main.ts) on a data directory an earlier start left halfway. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../src/server.js';
import { createApiKey, createUser, findUser } from '../src/users.js';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts');

describe('npm start after a first start stopped halfway', () => {
  const dataDir = makeTempDir('start-again');
  /** The key the first test's start printed. */
  let demoKey = '';
  afterAll(() => removeTempDir(dataDir));

  it('gives a demo user left without a provider key the sandbox key, syncs it and serves', async () => {
    // What a first start killed between storing the demo user and storing its key leaves behind.
    const first = await startReferenceServer({ dataDir, port: 0, scheduler: false, sandbox: false });
    await createUser(first.runtime.store, 'demo');
    await first.close({ graceMs: 0 });

    const started = await startMain(dataDir, 'curl -H');
    try {
      expect(started.printed, started.stderr()).toMatch(
        /demo user: +demo, synced [1-9]\d* accounts \(success\)/,
      );
      demoKey = /demo key: +(\S+)/.exec(started.printed)![1]!;
      const response = await fetch(`${started.url}/api/v1/transactions?per_page=1`, {
        headers: { 'X-Api-Key': demoKey },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { transactions: unknown[] }).transactions).toHaveLength(1);
    } finally {
      await started.stop();
    }
  }, 60_000);

  it('with FINSYNC_DEMO=off makes no demo user key, prints none, and the key an earlier start printed stops working', async () => {
    // A key the operator made for the demo user themselves, its name only starting like npm start's.
    const between = await startReferenceServer({ dataDir, port: 0, scheduler: false, sandbox: false });
    const demo = (await findUser(between.runtime.store, 'demo'))!;
    const own = (await createApiKey(between.runtime.store, demo.id, { name: 'npm-starter laptop' })).key;
    await between.close({ graceMs: 0 });
    const started = await startMain(dataDir, 'Ctrl-C stops it', { FINSYNC_DEMO: 'off' });
    try {
      expect(started.printed, started.stderr()).toMatch(
        /demo: +off \(FINSYNC_DEMO=off\); 1 demo key\(s\) printed by earlier starts revoked/,
      );
      expect(started.printed).not.toMatch(/X-Api-Key|demo key: |[0-9a-f]{64}/);
      const response = await fetch(`${started.url}/api/v1/transactions`, {
        headers: { 'X-Api-Key': demoKey },
      });
      expect(response.status).toBe(401);
      const kept = await fetch(`${started.url}/api/v1/transactions`, { headers: { 'X-Api-Key': own } });
      expect(kept.status).toBe(200);
      // Made ready for real users: the sandbox's generated accounts are offered to none of them.
      expect(started.printed).toMatch(/sandbox: +off \(FINSYNC_SANDBOX=on offers it to users\)/);
      const chosen = await fetch(`${started.url}/api/v1/provider`, {
        method: 'PUT',
        headers: { 'X-Api-Key': own, 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: 'sandbox-key', base_url: 'sandbox' }),
      });
      expect(chosen.status).toBe(422);
      expect(JSON.stringify(await chosen.json())).toContain('runs without the sandbox provider');
    } finally {
      await started.stop();
    }
  }, 60_000);
});

/** `npm start` in a child process, read up to the banner's line holding `until`. */
async function startMain(dataDir: string, until: string, env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--conditions=@finsync/source', '--import', import.meta.resolve('tsx'), main],
    {
      env: {
        ...process.env,
        FINSYNC_DATA_DIR: dataDir,
        DATABASE_URL: '',
        PORT: '0',
        FINSYNC_SCHEDULER: 'off',
        FINSYNC_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    if (line.includes(until)) break;
  }
  const printed = lines.join('\n');
  return {
    printed,
    url: /listening on (http:\/\/\S+)/.exec(printed)?.[1] ?? '',
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
