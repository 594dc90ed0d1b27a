import { defineConfig } from 'tsup';
import { bundleInternals } from '../internals/tsup-bundle.js';

const entry = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  sql: 'src/sql/index.ts',
  credentials: 'src/credentials/index.ts',
};
// @finsync/internals is private and never published: bundled into this package's JS and .d.ts.
const { noExternal: internals, dts } = bundleInternals;

export default defineConfig([
  {
    entry,
    format: ['esm'],
    dts,
    sourcemap: true,
    clean: true,
    target: 'node20',
    noExternal: internals,
    external: ['vitest'],
  },
  {
    entry,
    format: ['cjs'],
    dts,
    sourcemap: true,
    target: 'node20',
    noExternal: internals,
    external: ['vitest'],
  },
]);
