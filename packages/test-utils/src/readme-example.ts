/**
 * Runs a README's example as a user would copy it: the first ```ts block after a heading, written
 * beside the test that asks (so its imports resolve as in a package that depends on these) and run
 * in its own process, in `cwd`. Shared by the packages' README tests: examples that CI runs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ReadmeExample {
  /** The README file. */
  readme: string;
  /** The heading the example follows, e.g. `## Example`. */
  heading: string;
  /** Where the script is written: a directory of the package whose README it is. */
  besides: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export function readmeBlock(readme: string, heading: string): string {
  const text = readFileSync(readme, 'utf8');
  const start = text.indexOf(`${heading}\n`);
  if (start === -1) throw new Error(`${readme} has no heading ${JSON.stringify(heading)}`);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(start));
  if (!block) throw new Error(`${readme}: no ts block after ${heading}`);
  return block[1]!;
}

/** Runs the example and returns what it printed on stdout; throws with its stderr when it fails. */
export function runReadmeExample(example: ReadmeExample): string {
  const script = join(example.besides, `.readme-example-${process.pid}-${Date.now()}.ts`);
  writeFileSync(script, readmeBlock(example.readme, example.heading));
  try {
    // tsx by absolute URL: the example runs in a directory where nothing resolves.
    return execFileSync(
      process.execPath,
      ['--conditions=@finsync/source', '--import', import.meta.resolve('tsx'), script],
      {
        cwd: example.cwd,
        env: example.env ?? process.env,
        encoding: 'utf8',
        timeout: example.timeoutMs ?? 90_000,
      },
    );
  } finally {
    rmSync(script, { force: true });
  }
}
