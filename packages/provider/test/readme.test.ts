/** The README's example runs as printed (CI runs it), in a temporary directory. */
import { usePackageReadme } from '@finsync/test-utils';
import { expect, it } from 'vitest';

const readme = usePackageReadme(import.meta.url);

it('the README example runs as printed', () => {
  const output = readme.run('## Example');
  // Every active account with its balance, and its rows.
  expect(output).toMatch(/Current Account -?[0-9.]+ GBP/);
  expect(output.split('\n').length).toBeGreaterThan(100);
}, 120_000);
