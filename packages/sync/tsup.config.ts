import { defineConfig } from 'tsup';
import { publishedBuilds } from '../internals/tsup-bundle.js';

export default defineConfig(
  publishedBuilds({
    entry: {
      index: 'src/index.ts',
      testing: 'src/testing/index.ts',
      sql: 'src/sql/index.ts',
      credentials: 'src/credentials/index.ts',
    },
    // The conformance suite runs inside the consumer's vitest, which cannot be required: ESM only.
    external: ['vitest'],
    esmOnly: ['testing'],
  }),
);
