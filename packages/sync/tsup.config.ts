import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  sql: 'src/sql/index.ts',
  credentials: 'src/credentials/index.ts',
};

export default defineConfig([
  { entry, format: ['esm'], dts: true, sourcemap: true, clean: true, target: 'node20', external: ['vitest'] },
  { entry, format: ['cjs'], dts: true, sourcemap: true, target: 'node20', external: ['vitest'] },
]);
