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
    expect(output).toMatch(/\d+ transactions mirrored/);
    expect(output).toMatch(/feed read up to seq [1-9]/);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}, 120_000);
