import { defineConfig } from 'tsup';
import { publishedBuilds } from '../internals/tsup-bundle.js';

export default defineConfig(
  publishedBuilds({
    entry: { index: 'src/index.ts', sandbox: 'src/sandbox/index.ts', msw: 'src/msw.ts' },
    // ky ships ESM only.
    cjsBundles: ['ky'],
  }),
);
