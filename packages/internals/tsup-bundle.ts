/**
 * The ESM and CJS builds of a published package (provider, service and sync build with this), taking
 * @finsync/internals in at build time: the code goes into its JavaScript bundles and the types into
 * its .d.ts files, so nothing it publishes imports or mentions @finsync/internals.
 *
 * The .d.ts bundler resolves a package's subpaths without reading `exports`, so each subpath is
 * mapped to its source here; a new module in package.json `exports` needs a line below too (the
 * packaging test in pack-smoke fails if a .d.ts still names @finsync/internals).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';

const internals = /^@finsync\/internals(\/|$)/;

/**
 * tsup's split CommonJS build names each output file in its own source map by its absolute path (the
 * build machine's, shipped to every user, and missing on theirs): made relative to the map, as every
 * other source is.
 */
async function relativeCjsMapSources(dir = 'dist'): Promise<void> {
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.cjs.map')) continue;
    const file = join(dir, name);
    const map = JSON.parse(await readFile(file, 'utf8')) as { sources: string[] };
    if (!map.sources.some((source) => isAbsolute(source))) continue;
    map.sources = map.sources.map((source) => (isAbsolute(source) ? relative(dir, source) : source));
    await writeFile(file, JSON.stringify(map));
  }
}

/** Relative to the package being built (tsup runs in its directory; all packages are siblings). */
const paths = {
  '@finsync/internals/money': ['../internals/src/money.ts'],
  '@finsync/internals/currencies': ['../internals/src/currencies.ts'],
  '@finsync/internals/calendar': ['../internals/src/calendar.ts'],
  '@finsync/internals/http': ['../internals/src/http/index.ts'],
  '@finsync/internals/plain-object': ['../internals/src/plain-object.ts'],
  '@finsync/internals/text': ['../internals/src/text.ts'],
};

export const bundleInternals = {
  noExternal: [internals],
  dts: { resolve: [internals], compilerOptions: { paths } },
};

export interface PublishedBuildOptions {
  entry: Record<string, string>;
  /** Left to the consumer's install (peers such as msw or vitest). */
  external?: string[];
  /** Also bundled into the CommonJS build: ESM-only dependencies, so `require()` works without require(esm). */
  cjsBundles?: string[];
  /** Entries built as ESM only: what they import cannot be required (vitest), so no CommonJS build is offered. */
  esmOnly?: string[];
}

/** `defineConfig`'s input for one package: ESM (which cleans dist/) and CJS, each with its .d.ts. */
export function publishedBuilds({
  entry,
  external = [],
  cjsBundles = [],
  esmOnly = [],
}: PublishedBuildOptions) {
  const common = { entry, dts: bundleInternals.dts, sourcemap: true, target: 'node20', external };
  const cjsEntry = Object.fromEntries(Object.entries(entry).filter(([name]) => !esmOnly.includes(name)));
  return [
    { ...common, format: ['esm' as const], clean: true, noExternal: bundleInternals.noExternal },
    // Split, as the ESM build is: code two entries share (SyncError, SandboxProvider) is one module
    // both require, so a class is the same whichever entry it came from and `instanceof` holds.
    {
      ...common,
      entry: cjsEntry,
      format: ['cjs' as const],
      onSuccess: () => relativeCjsMapSources(),
      splitting: true,
      noExternal: [...bundleInternals.noExternal, ...cjsBundles],
    },
  ];
}
