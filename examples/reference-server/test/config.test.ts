import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';
import { StartupError } from '../src/server.js';

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
});
