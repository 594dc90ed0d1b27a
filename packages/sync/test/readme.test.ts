/** The README's example is code users copy: it must run as printed, twice over the same files. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

it('the README example syncs the sandbox and applies the feed exactly once, twice over the same files', () => {
  const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embedding it'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  // Beside the tests, so the imports resolve as in a package that depends on these.
  const script = join(here, `.readme-example-${process.pid}.ts`);
  const cwd = mkdtempSync(join(tmpdir(), 'finsync-readme-'));
  writeFileSync(script, code);
  try {
    const run = () =>
      // tsx by absolute URL: the example runs in a temporary directory, where nothing resolves.
      execFileSync(
        process.execPath,
        ['--conditions=@finsync/source', '--import', import.meta.resolve('tsx'), script],
        {
          cwd,
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
    const first = run();
    expect(first).toMatch(/success \[\]/);
    const rows = Number(/\{ n: (\d+) \}/.exec(first)![1]);
    expect(rows).toBeGreaterThan(1_000);
    // Again: nothing new upstream, the cursor is where it was, no row twice.
    expect(Number(/\{ n: (\d+) \}/.exec(run())![1])).toBe(rows);
  } finally {
    rmSync(script, { force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}, 120_000);
