/** The README's example runs as printed (CI runs it), in a temporary directory. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReadmeExample, useTempDirs } from '@finsync/test-utils';
import { expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const tempDir = useTempDirs('readme');

it('the README example runs as printed', () => {
  const cwd = tempDir();
  const output = runReadmeExample({
    readme: join(here, '..', 'README.md'),
    heading: '## Example',
    besides: here,
    cwd,
  });
  expect(output).toMatch(/\d+ transactions mirrored/);
  expect(output).toMatch(/feed read up to seq [1-9]/);
}, 120_000);
