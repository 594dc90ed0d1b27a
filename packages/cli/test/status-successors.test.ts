/** `finsync status` names an account that continues one no longer read (the bank linked again). */
import { join } from 'node:path';
import { ProviderClient } from '@finsync/provider';
import { SandboxProvider, type SandboxAccountSpec } from '@finsync/provider/sandbox';
import { SqliteStorage } from '@finsync/sqlite';
import { SyncEngine } from '@finsync/sync';
import { makeTempDir, removeTempDir } from '@finsync/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

const bank = { institutionName: 'Northern Bank', provider: 'gocardless', currency: 'GBP' };
const current: SandboxAccountSpec = { id: 4711, name: 'Current', ...bank };
const savings: SandboxAccountSpec = { id: 4712, name: 'Savings', profile: 'savings', ...bank };

describe('finsync status and a bank linked again', () => {
  let dir: string;
  beforeAll(async () => {
    dir = makeTempDir('cli-successors');
    const options = { seed: 11, historyDays: 60, transactionsPerDay: 3 };
    let sandbox = new SandboxProvider({ ...options, today: '2026-06-10', accounts: [savings, current] });
    const storage = new SqliteStorage({ filename: join(dir, 'finsync.db') });
    const engine = new SyncEngine({
      storage,
      clock: { now: () => new Date(`${sandbox.today}T12:00:00Z`), today: () => sandbox.today },
    });
    const fetch = (async (input: string | URL | Request, init?: RequestInit) =>
      sandbox.handle(new Request(input, init))) as typeof globalThis.fetch;
    await engine.addConnection({
      id: 'home',
      client: new ProviderClient({ apiKey: 'sandbox-key', rateLimit: false, maxRetries: 0, fetch }),
    });
    expect((await engine.sync('home')).ok).toBe(true);
    // The user removed the bank and linked it again: the current account is listed under a new id.
    // The same bank ten days on: its history still starts where it did.
    sandbox = new SandboxProvider({
      ...options,
      historyDays: 70,
      today: '2026-06-20',
      accounts: [savings, { ...current, id: 9711, historyOf: 4711 }],
    });
    expect((await engine.sync('home')).ok).toBe(true);
    await storage.close();
  });
  afterAll(() => removeTempDir(dir));

  it('says which account continues which, and that the history is stored twice', async () => {
    const result = await runCli(['status'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /account 9711 continues 4711 \(the bank linked again\): \d+ of \d+ posted rows from 2026-\d\d-\d\d to 2026-\d\d-\d\d are in both, so that history is stored twice/,
    );
    const json = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout) as {
      connections: Array<{
        successors: Array<{ previous: string; successor: string; shared: number; previousRows: number }>;
      }>;
    };
    const [found] = json.connections[0]!.successors;
    expect(found).toMatchObject({ previous: '4711', successor: '9711' });
    expect(found!.shared).toBeGreaterThan(0.95 * found!.previousRows);
  });
});
