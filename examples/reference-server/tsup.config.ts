import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

// The server as plain JavaScript, for `node dist/main.js` (no tsx, no TypeScript at run time). The
// finsync packages are imported from their own builds and the page's assets are copied beside it.
export default defineConfig({
  entry: { main: 'src/main.ts', cli: 'src/cli.ts', demo: 'src/demo.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  splitting: true,
  sourcemap: true,
  onSuccess: async () => {
    cpSync('src/web/assets', 'dist/assets', { recursive: true });
  },
});
