/**
 * Runs a README's example as a user would copy it: the first ```ts block after a heading, written
 * beside the test that asks (so its imports resolve as in a package that depends on these) and run
 * in its own process, in `cwd`. Shared by the packages' README tests: examples that CI runs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTempDirs } from './temp-dir.js';

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

export interface PackageReadme {
  /** Runs the example after `heading`, in `cwd` (default: a fresh temporary directory). */
  run(heading: string, options?: { cwd?: string; env?: NodeJS.ProcessEnv }): string;
  /** A temporary directory removed after the test: for running one example twice in one place. */
  tempDir(): string;
}

/**
 * For a package's README test, called at its top level with `import.meta.url`: the package's
 * README.md, examples written beside the test file, temporary directories removed after each test.
 */
export function usePackageReadme(testFileUrl: string): PackageReadme {
  const here = dirname(fileURLToPath(testFileUrl));
  const tempDir = useTempDirs('readme');
  return {
    tempDir,
    run: (heading, options = {}) =>
      runReadmeExample({
        readme: join(here, '..', 'README.md'),
        heading,
        besides: here,
        cwd: options.cwd ?? tempDir(),
        ...(options.env ? { env: options.env } : {}),
      }),
  };
}
