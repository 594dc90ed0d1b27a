import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@finsync/source'] },
  ssr: { resolve: { conditions: ['@finsync/source'] } },
  test: {
    name: 'provider',
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
});
