/** The README's example is code users copy: it must run as printed, twice over the same files. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReadmeExample, useTempDirs } from '@finsync/test-utils';
import { expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const tempDir = useTempDirs('readme');

it('the README example syncs the sandbox and applies the feed exactly once, twice over the same files', () => {
  const cwd = tempDir();
  const run = () =>
    runReadmeExample({
      readme: join(here, '..', 'README.md'),
      heading: '## Embedding it',
      besides: here,
      cwd,
    });
  const first = run();
  expect(first).toMatch(/success \[\]/);
  const rows = Number(/\{ n: (\d+) \}/.exec(first)![1]);
  expect(rows).toBeGreaterThan(1_000);
  // Again: nothing new upstream, the cursor is where it was, no row twice.
  expect(Number(/\{ n: (\d+) \}/.exec(run())![1])).toBe(rows);
}, 120_000);
