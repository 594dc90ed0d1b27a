import { defineConfig } from 'tsup';
import { bundleInternals } from '../internals/tsup-bundle.js';

const entry = { index: 'src/index.ts', msw: 'src/msw.ts' };
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
    external: ['msw'],
  },
  // ky ships ESM only; bundling it into the CommonJS build keeps `require('@finsync/service')`
  // independent of Node's require(esm) support. msw stays external: it is the consumer's peer.
  {
    entry,
    format: ['cjs'],
    dts,
    sourcemap: true,
    target: 'node20',
    noExternal: [...internals, 'ky'],
    external: ['msw'],
  },
]);
