import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@finsync/source'] },
  ssr: { resolve: { conditions: ['@finsync/source'] } },
  test: {
    name: 'provider',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // As in the other packages: the sandbox's property tests walk whole histories, and on two busy
    // cores (CI runs every package at once) a test of 1 s alone has taken over 5.
    testTimeout: 20_000,
  },
});
