/** The README's example runs as printed (CI runs it), in a temporary directory. */
import { usePackageReadme } from '@finsync/test-utils';
import { expect, it } from 'vitest';

const readme = usePackageReadme(import.meta.url);

it('the README example runs as printed', () => {
  const output = readme.run('## Example');
  expect(output).toMatch(/\d+ transactions mirrored/);
  expect(output).toMatch(/feed read up to seq [1-9]/);
}, 120_000);
