import { defineConfig } from 'tsup';

const entry = { index: 'src/index.ts' };
const external = ['pg'];

export default defineConfig([
  { entry, format: ['esm'], dts: true, sourcemap: true, clean: true, target: 'node20', external },
  { entry, format: ['cjs'], dts: true, sourcemap: true, target: 'node20', external },
]);
