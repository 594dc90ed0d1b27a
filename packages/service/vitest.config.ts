import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@finsync/source'] },
  ssr: { resolve: { conditions: ['@finsync/source'] } },
  test: {
    name: 'service',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
