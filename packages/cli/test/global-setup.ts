/**
 * Builds the CLI once per test run, from the sources (`@finsync/*` through the `@finsync/source`
 * condition, as tsx would resolve them; npm packages left to node_modules), so every test starts
 * `node main.js` instead of tsx: on a small CI machine that is about a second less per process,
 * across some 40 processes. It is also how the published bin runs: built JavaScript on plain Node.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { warnWhenPostgresIsMissing } from '@finsync/test-utils';
import { build } from 'tsup';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built `main.js` the tests run. */
    cliMain: string;
  }
}

/**
 * Under this package's node_modules, so bare imports resolve to our own dependencies (commander 14,
 * not an older hoisted one) and git ignores it; one directory per run, so two test runs at once
 * never delete each other's build.
 */
const CACHE = fileURLToPath(new URL('../node_modules/.cache', import.meta.url));

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  warnWhenPostgresIsMissing('cli');
  await mkdir(CACHE, { recursive: true });
  const outDir = await mkdtemp(join(CACHE, 'finsync-cli-test-'));
  await build({
    config: false,
    entry: { main: fileURLToPath(new URL('../src/main.ts', import.meta.url)) },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    silent: true,
    noExternal: [/^@finsync\//],
    external: [/^(?!@finsync\/)[^./]/],
    esbuildOptions(options) {
      options.conditions = ['@finsync/source'];
    },
  });
  project.provide('cliMain', join(outDir, 'main.js'));
  return () => rm(outDir, { recursive: true, force: true });
}
