import { fileURLToPath } from 'node:url';
import { warnWhenPostgresIsMissing } from '@finsync/test-utils';
import { buildFromSources } from '@finsync/test-utils/source-build';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin command (src/cli.ts), built once: the tests start `node cli.js`, not tsx. */
    adminCli: string;
  }
}

/**
 * Says once, in any reporter, why the PostgreSQL half of each suite did not run: the verbose
 * reporter also names the reason on every skipped test, the default one only counts them. Builds the
 * admin command once, so each of its tests' processes starts in a fraction of the time tsx takes to
 * compile it (about 3 s a process on a small machine).
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  warnWhenPostgresIsMissing('reference-server');
  const built = await buildFromSources(
    fileURLToPath(new URL('../src/cli.ts', import.meta.url)),
    'cli',
    fileURLToPath(new URL('../node_modules/.cache', import.meta.url)),
  );
  project.provide('adminCli', built.file);
  return built.remove;
}
