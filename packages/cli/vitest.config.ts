import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@finsync/source'] },
  ssr: { resolve: { conditions: ['@finsync/source'] } },
  test: {
    name: 'cli',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/global-setup.ts'],
    // Each test starts the CLI as a child process or a few; a sync against the sandbox takes
    // about a second on a small machine.
    testTimeout: 30_000,
  },
});
