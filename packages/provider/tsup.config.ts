import { defineConfig } from 'tsup';
import { bundleInternals } from '../internals/tsup-bundle.js';

const entry = { index: 'src/index.ts', sandbox: 'src/sandbox/index.ts', msw: 'src/msw.ts' };
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
  },
  // ky and p-throttle ship ESM only; bundling them into the CommonJS build keeps
  // `require('@finsync/provider')` independent of Node's require(esm) support.
  {
    entry,
    format: ['cjs'],
    dts,
    sourcemap: true,
    target: 'node20',
    noExternal: [...internals, 'ky', 'p-throttle'],
  },
]);
