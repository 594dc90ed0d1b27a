/** The README's exactly-once example is code users copy: it must run as printed, twice over. */
import { freshSchemaName, postgresSuiteName, usePackageReadme } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { dropSchema, url } from './helpers.js';

const readme = usePackageReadme(import.meta.url);

describe.skipIf(!url)(postgresSuiteName('the README example'), () => {
  it('syncs the sandbox into PostgreSQL and applies the feed exactly once, twice over', async () => {
    const schema = freshSchemaName();
    const cwd = readme.tempDir();
    const run = () =>
      readme.run('## Applying the feed exactly once, on PostgreSQL', {
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
