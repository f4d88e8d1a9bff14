import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// `cincy/…` and `@cincy/simulator/…` resolve to the TypeScript sources (the `source` condition of their
// package exports), as the typecheck resolves them: tests never run built code by accident.
const conditions = ['source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts', 'simulator/test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every core: most files wait on servers and processes of their own, so they overlap well
    // (on 2 cores, vitest's default of one worker fewer than the cores would run one file at a time).
    maxWorkers: availableParallelism(),
  },
});
