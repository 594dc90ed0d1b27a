/** The README's example runs as printed (CI runs it), in a temporary directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runReadmeExample } from '../../../test-support/readme-example.js';

const here = dirname(fileURLToPath(import.meta.url));

it('the README example runs as printed', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'finsync-readme-'));
  try {
    const output = runReadmeExample({
      readme: join(here, '..', 'README.md'),
      heading: '## Example',
      besides: here,
      cwd,
    });
    // Every active account with its balance, and its rows.
    expect(output).toMatch(/Current Account -?[0-9.]+ GBP/);
    expect(output.split('\n').length).toBeGreaterThan(100);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}, 120_000);
