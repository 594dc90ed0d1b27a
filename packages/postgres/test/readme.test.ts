/** The README's exactly-once example is code users copy: it must run as printed, twice over. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshSchemaName, postgresSuiteName, runReadmeExample, useTempDirs } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { dropSchema, url } from './helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const tempDir = useTempDirs('readme');

describe.skipIf(!url)(postgresSuiteName('the README example'), () => {
  it('syncs the sandbox into PostgreSQL and applies the feed exactly once, twice over', async () => {
    const schema = freshSchemaName();
    const cwd = tempDir();
    const run = () =>
      runReadmeExample({
        readme: join(here, '..', 'README.md'),
        heading: '## Applying the feed exactly once, on PostgreSQL',
        besides: here,
        cwd,
        env: { ...process.env, DATABASE_URL: url, FINSYNC_PG_SCHEMA: schema },
      });
    try {
      const rows = Number(/\{ n: (\d+) \}/.exec(run())![1]);
      expect(rows).toBeGreaterThan(1_000);
      expect(Number(/\{ n: (\d+) \}/.exec(run())![1])).toBe(rows);
    } finally {
      await dropSchema(schema);
      await dropSchema(`${schema}_example`);
    }
  }, 180_000);
});
