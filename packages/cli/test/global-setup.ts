/**
 * Builds the CLI once per test run, from the sources (`@finsync/*` through the `@finsync/source`
 * condition, as tsx would resolve them; npm packages left to node_modules), so every test starts
 * `node main.js` instead of tsx: on a small CI machine that is about a second less per process,
 * across some 40 processes. It is also how the published bin runs: built JavaScript on plain Node.
 */
import { chmod } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { warnWhenPostgresIsMissing } from '@finsync/test-utils';
import { buildFromSources } from '@finsync/test-utils/source-build';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built `main.js` the tests run. */
    cliMain: string;
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  warnWhenPostgresIsMissing('cli');
  // Under this package's node_modules, so bare imports resolve to our own dependencies (commander 14,
  // not an older hoisted one).
  const built = await buildFromSources(
    fileURLToPath(new URL('../src/main.ts', import.meta.url)),
    'main',
    fileURLToPath(new URL('../node_modules/.cache', import.meta.url)),
  );
  // mkdtemp makes it 0700: a test runs the CLI as another user (errors.test.ts, a read-only database).
  await chmod(dirname(built.file), 0o755);
  project.provide('cliMain', built.file);
  return built.remove;
}
