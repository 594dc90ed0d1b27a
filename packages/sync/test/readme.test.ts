/** The README's example is code users copy: it must run as printed, twice over the same files. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runReadmeExample } from '../../../test-support/readme-example.js';

const here = dirname(fileURLToPath(import.meta.url));

it('the README example syncs the sandbox and applies the feed exactly once, twice over the same files', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'finsync-readme-'));
  const run = () =>
    runReadmeExample({
      readme: join(here, '..', 'README.md'),
      heading: '## Embedding it',
      besides: here,
      cwd,
    });
  try {
    const first = run();
    expect(first).toMatch(/success \[\]/);
    const rows = Number(/\{ n: (\d+) \}/.exec(first)![1]);
    expect(rows).toBeGreaterThan(1_000);
    // Again: nothing new upstream, the cursor is where it was, no row twice.
    expect(Number(/\{ n: (\d+) \}/.exec(run())![1])).toBe(rows);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}, 120_000);
