import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@finsync/source'] },
  ssr: { resolve: { conditions: ['@finsync/source'] } },
  test: {
    name: 'reference-server',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
  },
});
