/** The README's exactly-once example is code users copy: it must run as printed, twice over. */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dropSchema, freshSchema, suiteName, url } from './helpers.js';

const here = dirname(fileURLToPath(import.meta.url));

describe.skipIf(!url)(suiteName('the README example'), () => {
  it('syncs the sandbox into PostgreSQL and applies the feed exactly once, twice over', async () => {
    const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Applying the feed exactly once, on PostgreSQL'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    const script = join(here, `.readme-example-${process.pid}.ts`);
    const schema = freshSchema();
    writeFileSync(script, code);
    try {
      const run = () =>
        execFileSync(
          process.execPath,
          ['--conditions=@finsync/source', '--import', import.meta.resolve('tsx'), script],
          {
            env: { ...process.env, DATABASE_URL: url, FINSYNC_PG_SCHEMA: schema },
            encoding: 'utf8',
            timeout: 90_000,
          },
        );
      const rows = Number(/\{ n: (\d+) \}/.exec(run())![1]);
      expect(rows).toBeGreaterThan(1_000);
      expect(Number(/\{ n: (\d+) \}/.exec(run())![1])).toBe(rows);
    } finally {
      rmSync(script, { force: true });
      await dropSchema(schema);
      await dropSchema(`${schema}_example`);
    }
  }, 180_000);
});
