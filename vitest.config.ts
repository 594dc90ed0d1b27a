import { defineConfig } from 'vitest/config';
import { testProjects } from './vitest.workspace.js';

export default defineConfig({
  test: {
    projects: testProjects,
  },
});
