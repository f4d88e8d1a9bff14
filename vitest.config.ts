import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// `cincy/…` and `@cincy/simulator/…` resolve to the TypeScript sources (the `source` condition of their
// package exports), as the typecheck resolves them: tests never run built code by accident.
const conditions = ['source', 'module', 'node', 'development|production'];

/** The test files of a tier, in the product (test/) and in the simulator (simulator/test/). */
const tier = (name: string): string[] => [`test/${name}/**/*.test.ts`, `simulator/test/${name}/**/*.test.ts`];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every core: most files wait on servers and processes of their own, so they overlap well
    // (on 2 cores, vitest's default of one worker fewer than the cores would run one file at a time).
    maxWorkers: availableParallelism(),
    // Three tiers, each runnable alone (`npm run test:unit`, `test:service`, `test:e2e`); docs/dev/testing.md
    // says what belongs where.
    projects: [
      // Pure logic on plain values and small files: no build, no process, no server, no network. Loading the
      // modules is most of what a unit file costs, so the files of a worker share them (isolate: false):
      // a unit test mocks no module and leaves no global changed.
      { extends: true, test: { name: 'unit', include: tier('unit'), isolate: false } },
      // In this process: the app (buildApp) over HTTP, stores on SQLite files, the agent on the in-memory
      // simulated cluster, fake registries written in the test. No child process; the product is compiled
      // first (test/support/worker-setup.ts, incremental) for the two worker threads it starts. The files of
      // a worker share the loaded modules too (a third of the tier's CPU was loading fastify and the app
      // again for each file): a service test changes no global and keeps what it starts in its own file.
      {
        extends: true,
        test: {
          name: 'service',
          include: tier('service'),
          globalSetup: ['test/support/worker-setup.ts'],
          isolate: false,
        },
      },
      // Processes and real components: bin/cincy.js (which loads dist/), docker-registry, skopeo, PostgreSQL,
      // nginx, kubectl, Chromium, Prometheus. Only this tier builds dist/, the web page and the simulator.
      // The files of a worker share the loaded modules (2 s of CPU a file otherwise): an e2e test changes no
      // global either, and stops what it starts in its own file's cleanup.
      {
        extends: true,
        test: { name: 'e2e', include: tier('e2e'), globalSetup: ['test/support/global-setup.ts'], isolate: false },
      },
    ],
  },
});
