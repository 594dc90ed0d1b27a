/**
 * A command's entry built once for a test run, from the sources (`@finsync/*` through the
 * `@finsync/source` condition, as tsx would resolve them; npm packages left to node_modules), so
 * tests start `node file.js` instead of tsx: on a small CI machine about a second or more less per
 * process. Its own subpath (`@finsync/test-utils/source-build`), so only a global setup loads tsup.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'tsup';

/**
 * Builds `entry` (a file path) as `<name>.js` in a fresh directory under `cacheDir` (a package's
 * node_modules/.cache: bare imports resolve to that package's dependencies, and git ignores it; one
 * directory per run, so two runs at once never delete each other's build). Returns the built file
 * and how to remove it.
 */
export async function buildFromSources(
  entry: string,
  name: string,
  cacheDir: string,
): Promise<{ file: string; remove: () => Promise<void> }> {
  await mkdir(cacheDir, { recursive: true });
  const outDir = await mkdtemp(join(cacheDir, `finsync-${name}-test-`));
  await build({
    config: false,
    entry: { [name]: entry },
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
  return { file: join(outDir, `${name}.js`), remove: () => rm(outDir, { recursive: true, force: true }) };
}
