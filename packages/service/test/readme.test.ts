/** The README's example runs as printed (CI runs it), in a temporary directory. */
import { usePackageReadme } from '@finsync/test-utils';
import { expect, it } from 'vitest';

const readme = usePackageReadme(import.meta.url);

it('the README example runs as printed', () => {
  const output = readme.run('## Example');
  // The refund line of the example: the sign comes from nature.
  expect(output).toMatch(/-\$37.50 income 3750/);
}, 120_000);
