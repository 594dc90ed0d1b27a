/**
 * How a published package takes @finsync/internals in at build time (spread into each tsup build of
 * provider, service and sync): the code goes into its JavaScript bundles and the types into its .d.ts
 * files, so nothing it publishes imports or mentions @finsync/internals.
 *
 * The .d.ts bundler resolves a package's subpaths without reading `exports`, so each subpath is
 * mapped to its source here; a new module in package.json `exports` needs a line below too (the
 * packaging test in pack-smoke fails if a .d.ts still names @finsync/internals).
 */
const internals = /^@finsync\/internals(\/|$)/;

/** Relative to the package being built (tsup runs in its directory; all packages are siblings). */
const paths = {
  '@finsync/internals/money': ['../internals/src/money.ts'],
  '@finsync/internals/calendar': ['../internals/src/calendar.ts'],
  '@finsync/internals/http': ['../internals/src/http/index.ts'],
};

export const bundleInternals = {
  noExternal: [internals],
  dts: { resolve: [internals], compilerOptions: { paths } },
};
