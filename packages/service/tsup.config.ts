import { defineConfig } from 'tsup';

const entry = { index: 'src/index.ts', msw: 'src/msw.ts' };

export default defineConfig([
  { entry, format: ['esm'], dts: true, sourcemap: true, clean: true, target: 'node20', external: ['msw'] },
  // ky ships ESM only; bundling it into the CommonJS build keeps `require('@finsync/service')`
  // independent of Node's require(esm) support. msw stays external: it is the consumer's peer.
  {
    entry,
    format: ['cjs'],
    dts: true,
    sourcemap: true,
    target: 'node20',
    noExternal: ['ky'],
    external: ['msw'],
  },
]);
