/** The README's example is code users copy: it must run as printed, twice over the same files. */
import { usePackageReadme } from '@finsync/test-utils';
import { expect, it } from 'vitest';

const readme = usePackageReadme(import.meta.url);

it('the README example syncs the sandbox and applies the feed exactly once, twice over the same files', () => {
  const cwd = readme.tempDir();
  const run = () => readme.run('## Embedding it', { cwd });
  const first = run();
  expect(first).toMatch(/success \[\]/);
  const rows = Number(/\{ n: (\d+) \}/.exec(first)![1]);
  expect(rows).toBeGreaterThan(1_000);
  // Again: nothing new upstream, the cursor is where it was, no row twice.
  expect(Number(/\{ n: (\d+) \}/.exec(run())![1])).toBe(rows);
}, 120_000);
