import { defineConfig } from 'tsup';

// The bin as one ESM file for Node 20: `dist/main.js`, shebang kept (tsup also marks it
// executable). Dependencies stay external, resolved from node_modules at run time as any
// package's are; no type declarations, since nothing imports a CLI.
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  dts: false,
});
