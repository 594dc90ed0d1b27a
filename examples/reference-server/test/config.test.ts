import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';
import { StartupError } from '../src/server.js';
import { openStores } from '../src/store/open.js';
import type { PostgresAppStore } from '../src/store/postgres.js';

describe('configuration from the environment', () => {
  it('reads a relative FINSYNC_DATA_DIR from where the command was typed, as its default', () => {
    // `npm start` at the root runs the server in examples/reference-server; npm sets INIT_CWD to the root.
    const typedAt = '/home/me/finsync';
    expect(configFromEnv({ INIT_CWD: typedAt }).dataDir).toBe(resolve(typedAt, '.data'));
    expect(configFromEnv({ INIT_CWD: typedAt, FINSYNC_DATA_DIR: 'mydata' }).dataDir).toBe(
      resolve(typedAt, 'mydata'),
    );
    expect(configFromEnv({ INIT_CWD: typedAt, FINSYNC_DATA_DIR: '/srv/finsync' }).dataDir).toBe(
      '/srv/finsync',
    );
    expect(configFromEnv({ FINSYNC_DATA_DIR: 'mydata' }).dataDir).toBe(resolve(process.cwd(), 'mydata'));
  });

  it.each([
    [undefined, true],
    ['', true],
    ['on', true],
    ['off', false],
    ['OFF', false],
    [' Off ', false],
  ])('reads FINSYNC_SCHEDULER=%j as scheduler %s', (value, scheduler) => {
    expect(configFromEnv(value === undefined ? {} : { FINSYNC_SCHEDULER: value }).scheduler).toBe(scheduler);
  });

  it('reads FINSYNC_DEMO: on unless off, and refuses anything else', () => {
    expect(configFromEnv({}).demo).toBe(true);
    expect(configFromEnv({ FINSYNC_DEMO: ' OFF ' }).demo).toBe(false);
    expect(configFromEnv({ FINSYNC_DEMO: 'on' }).demo).toBe(true);
    expect(() => configFromEnv({ FINSYNC_DEMO: 'no' })).toThrow(/FINSYNC_DEMO must be on or off, got "no"/);
  });

  it.each(['false', '0', 'no', 'disabled'])(
    'refuses FINSYNC_SCHEDULER=%j instead of running the scheduler',
    (value) => {
      expect(() => configFromEnv({ FINSYNC_SCHEDULER: value })).toThrow(StartupError);
      expect(() => configFromEnv({ FINSYNC_SCHEDULER: value })).toThrow(
        /FINSYNC_SCHEDULER must be on or off/,
      );
    },
  );

  it('sizes the PostgreSQL pool from FINSYNC_PG_POOL_SIZE (10 by default), and refuses a size out of range', async () => {
    const url = 'postgres://nobody@127.0.0.1:1/none'; // never connected to: a pool connects on its first query
    const poolMax = async (env: NodeJS.ProcessEnv) => {
      const { database } = configFromEnv({ DATABASE_URL: url, ...env });
      const { store } = openStores(database!, '/nonexistent');
      try {
        return (store as PostgresAppStore).pool.options.max;
      } finally {
        await store.close();
      }
    };
    expect(await poolMax({})).toBe(10);
    expect(await poolMax({ FINSYNC_PG_POOL_SIZE: ' 25 ' })).toBe(25);
    expect(await poolMax({ FINSYNC_PG_POOL_SIZE: '1' })).toBe(1);
    for (const value of ['0', '1001', '2.5', 'ten'])
      expect(() => configFromEnv({ DATABASE_URL: url, FINSYNC_PG_POOL_SIZE: value })).toThrow(
        new StartupError(
          `FINSYNC_PG_POOL_SIZE must be an integer from 1 to 1000, got ${JSON.stringify(value)}`,
        ),
      );
    // Checked without DATABASE_URL too: the typo is found before the move to PostgreSQL.
    expect(() => configFromEnv({ FINSYNC_PG_POOL_SIZE: 'ten' })).toThrow(/FINSYNC_PG_POOL_SIZE/);
    expect(configFromEnv({ FINSYNC_PG_POOL_SIZE: '4' }).database).toEqual({ kind: 'sqlite' });
  });

  it('runs the sandbox provider with the demo unless FINSYNC_SANDBOX says otherwise, and never without it for the demo', () => {
    expect(configFromEnv({}).sandbox).toBe(true);
    expect(configFromEnv({ FINSYNC_DEMO: 'off' }).sandbox).toBe(false);
    expect(configFromEnv({ FINSYNC_DEMO: 'off', FINSYNC_SANDBOX: ' ON ' }).sandbox).toBe(true);
    expect(configFromEnv({ FINSYNC_DEMO: 'off', FINSYNC_SANDBOX: 'off' }).sandbox).toBe(false);
    expect(() => configFromEnv({ FINSYNC_SANDBOX: 'off' })).toThrow(
      new StartupError('FINSYNC_SANDBOX=off needs FINSYNC_DEMO=off: the demo user syncs from the sandbox'),
    );
    expect(() => configFromEnv({ FINSYNC_DEMO: 'off', FINSYNC_SANDBOX: 'no' })).toThrow(
      /FINSYNC_SANDBOX must be on or off, got "no"/,
    );
  });
});
