import { defineConfig } from 'tsup';

const entry = { index: 'src/index.ts', sandbox: 'src/sandbox/index.ts', msw: 'src/msw.ts' };

export default defineConfig([
  { entry, format: ['esm'], dts: true, sourcemap: true, clean: true, target: 'node20' },
  // ky and p-throttle ship ESM only; bundling them into the CommonJS build keeps
  // `require('@finsync/provider')` independent of Node's require(esm) support.
  { entry, format: ['cjs'], dts: true, sourcemap: true, target: 'node20', noExternal: ['ky', 'p-throttle'] },
]);
