import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every core: most files wait on servers and processes of their own, so they overlap well
    // (on 2 cores, vitest's default of one worker fewer than the cores would run one file at a time).
    maxWorkers: availableParallelism(),
  },
});
