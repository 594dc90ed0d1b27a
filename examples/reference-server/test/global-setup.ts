import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { warnWhenPostgresIsMissing } from '@finsync/test-utils';
import { build } from 'tsup';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin command (src/cli.ts), built once: the tests start `node cli.js`, not tsx. */
    adminCli: string;
  }
}

/** Under this package's node_modules (git ignores it); one directory per run. */
const CACHE = fileURLToPath(new URL('../node_modules/.cache', import.meta.url));

/**
 * Says once, in any reporter, why the PostgreSQL half of each suite did not run: the verbose
 * reporter also names the reason on every skipped test, the default one only counts them. Builds the
 * admin command once, from the sources (as tsx would resolve them), so each of its tests' processes
 * starts in a fraction of the time tsx takes to compile it (about 3 s a process on a small machine).
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  warnWhenPostgresIsMissing('reference-server');
  await mkdir(CACHE, { recursive: true });
  const outDir = await mkdtemp(join(CACHE, 'finsync-admin-test-'));
  await build({
    config: false,
    entry: { cli: fileURLToPath(new URL('../src/cli.ts', import.meta.url)) },
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
  project.provide('adminCli', join(outDir, 'cli.js'));
  return () => rm(outDir, { recursive: true, force: true });
}
