// Starts the server the way `cincy serve` does (same start-up, same buildApp), listening on a free
// port of 127.0.0.1, so tests talk to it over real HTTP.
import type { FastifyInstance } from 'fastify';
import { vi } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { GraphFastPath } from '../../src/server/graphFastPath.js';
import { compileAllPending } from '../../src/server/lazyCompile.js';
import type { AdminServices } from '../../src/app/admin/services.js';
import type { GraphService } from '../../src/app/graphService.js';
import { startService } from './service.js';
import type { Store } from '../../src/store/store.js';
import type { AuthConfig } from '../../src/app/auth/tokenVerifier.js';
import type { TrustStore } from '../../src/signatures/verify.js';
import type { Clock } from '../../src/clock.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../../src/config.js';
import { sourceSettings, type SourceFlags } from '../../src/cli/registryFlags.js';
import type { Source } from '../../src/app/refresh/source.js';
import type { Webhooks } from '../../src/app/webhooks/service.js';
import type { StartOptions } from '../../src/app/start/service.js';
import type { FleetRecorder } from '../../src/app/fleet/pollRecorder.js';
import type { FleetAlerts } from '../../src/app/fleet/fleetAlerts.js';
import type { HistoryRecorder } from '../../src/app/history/recorder.js';
import type { RolloutMonitor } from '../../src/app/rollouts/monitor.js';

export { tempDir } from './cleanup.js';
/** Routes answered by an app made at their first request, for the tests of that mechanism alone. */
export { lazyRoutes } from '../../src/server/lazyApp.js';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  store: Store;
  service: GraphService;
  admin: AdminServices;
  /** The registry sources, read once at start; `refreshAll` reads them again. */
  sources: Source[];
  /** The poll recorder, with `fleet: { record: true }`. */
  recorder: FleetRecorder | undefined;
  /** The alerts of clusters newly exposed or stranded, with `fleet: { record: true }`. */
  fleetAlerts: FleetAlerts | undefined;
  /** Graph history's recorder: `idle()` resolves once every swapped-in snapshot is recorded. */
  history: HistoryRecorder;
  /** Webhooks: the sink, the delivery loop and the API's service. */
  webhooks: Webhooks;
  /** The rollout monitor: `check()` counts every rollout's clusters now. */
  rollouts: RolloutMonitor;
  close(): Promise<void>;
}

export const quietLog = { info: () => {}, warn: () => {}, error: () => {} };

export async function startServer(opts: {
  graphData?: string;
  /** The registry flags of serve, turned into settings as serve does. */
  registry?: SourceFlags;
  db?: string;
  auth?: AuthConfig;
  clock?: Clock;
  trust?: TrustStore;
  requireSignatures?: boolean;
  /** Timeouts and caps of connections, over those of serve. */
  limits?: Partial<HttpLimits>;
  /** false: every graph request goes through the fastify route (see buildApp). */
  graphFastPath?: boolean;
  /** How polls are recorded (default: not at all). */
  fleet?: StartOptions['fleet'];
  /** Sinks that take the changes graph history and the fleet alerts record, inside their transaction. */
  changeSinks?: StartOptions['changeSinks'];
  /** How webhooks are delivered (default: as serve does). */
  webhooks?: StartOptions['webhooks'];
  /** Origins whose pages may call the routes that take a token (--cors-origins). */
  corsOrigins?: string[];
  /** Paths each client address may plan a minute (--plan-rate-limit). */
  planRateLimit?: number;
  /** The proxies whose X-Forwarded-For names the client (--trust-proxy). */
  trustProxy?: string[];
}): Promise<TestServer> {
  const started = await startService({
    graphData: opts.graphData,
    ...(opts.registry && { sources: sourceSettings(opts.registry) }),
    db: opts.db ?? ':memory:',
    log: quietLog,
    trust: opts.trust,
    requireSignatures: opts.requireSignatures,
    clock: opts.clock,
    fleet: opts.fleet,
    changeSinks: opts.changeSinks,
    webhooks: opts.webhooks,
  });
  if (!started.ok) throw new Error(started.problems.join('\n'));
  // On a store that imported this tree before, the tree is imported after the first graph: the tests take
  // the server once that is done too (test/service/store/store.test.ts tests the two steps).
  await started.firstRead;
  const app = await buildApp({
    service: started.service,
    admin: started.admin,
    auth: opts.auth,
    clock: opts.clock,
    limits: { ...DEFAULT_HTTP_LIMITS, ...opts.limits },
    graphFastPath: opts.graphFastPath,
    fleet: started.fleet,
    webhooks: started.webhooks,
    rollouts: started.rollouts,
    corsOrigins: opts.corsOrigins,
    planRateLimit: opts.planRateLimit,
    trustProxy: opts.trustProxy,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    app,
    store: started.store,
    service: started.service,
    admin: started.admin,
    sources: started.sources,
    recorder: started.fleet.recorder,
    fleetAlerts: started.fleet.alerts,
    history: started.history,
    webhooks: started.webhooks,
    rollouts: started.rollouts,
    close: async () => {
      await app.close();
      await started.close();
    },
  };
}

/**
 * Watches the graph fast path of every server of the test file: each call's result says whether it
 * answered the request (true) or left it to fastify (false).
 */
export const watchGraphFastPath = (): { mock: { results: Array<{ value: unknown }> } } =>
  vi.spyOn(GraphFastPath.prototype, 'answer');

/** Compiles every route schema of the servers started so far, which they compile on first use; how many. */
export const compileAllSchemas = (): number => compileAllPending();
