import { defineConfig } from 'tsup';
import { publishedBuilds } from '../internals/tsup-bundle.js';

export default defineConfig(
  publishedBuilds({
    entry: { index: 'src/index.ts', msw: 'src/msw.ts' },
    // msw is the consumer's peer; ky ships ESM only.
    external: ['msw'],
    cjsBundles: ['ky'],
  }),
);
