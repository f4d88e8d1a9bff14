// Every route of the app, registered by the tree of its URL: the files here serve paths at the root
// (graph.ts: /graph and its aliases; health.ts: /livez, /readyz; signatures.ts: the signature store
// layout; ui.ts: the web page), and each folder's index.ts registers its files under the prefix the
// folder is registered at (api/v1/, api/v1/releases/, api/v1/channels/), so that no file spells a
// prefix its folder gives; a folder's own path is served by the file named as the folder. /metrics,
// /openapi and /docs are the plugins' (plugins/). The order of registration is the order of the
// OpenAPI document's paths.
//
// Registration is explicit rather than by @fastify/autoload: autoload's import() runs untransformed in
// node_modules, so it could not load the .ts sources the unit and service tests run on, and each route
// plugin is handed the typed options it declares.
import type { FastifyInstance } from 'fastify';
import type { AdminServices } from '../../app/admin/services.js';
import type { FleetReads } from '../../app/fleet/fleetReads.js';
import type { GraphService } from '../../app/graphService.js';
import type { Webhooks } from '../../app/webhooks/service.js';
import type { Clock } from '../../clock.js';
import type { RolloutMonitor } from '../../app/rollouts/monitor.js';
import type { GraphAnswers } from '../graphAnswer.js';
import { graphDataRoutes } from './api/upgrades_info/graph-data.js';
import { apiV1Routes } from './api/v1/index.js';
import { graphRoutes } from './graph.js';
import type { TlsMaterial } from '../tls.js';
import { healthRoutes } from './health.js';
import { signatureStoreRoutes } from './signatures.js';
import { uiRoutes } from './ui.js';

export interface RouteOptions {
  service: GraphService;
  /** The admin services, on the same store and graph service. */
  admin: AdminServices;
  /** The graph answers, shared with the graph fast path. */
  answers: GraphAnswers;
  clock: Clock;
  /** The fleet API's reads (none: what the store holds). */
  fleet?: FleetReads;
  /** The webhooks API (none: its routes are not served). */
  webhooks?: Webhooks;
  /** Paths each client address may plan a minute. */
  planRateLimit?: number;
  /** The rollout monitor (none: rollouts are shown uncounted). */
  rollouts?: RolloutMonitor;
  /** Where the built web page is (default: dist/ui of the package). */
  uiDir?: string;
  /** The TLS certificate served (its validity is said on /readyz). */
  tls?: { material: TlsMaterial };
}

export async function routes(app: FastifyInstance, opts: RouteOptions): Promise<void> {
  const { service, admin } = opts;
  // The token verifier the auth plugin decorated the app with (plugins/auth.ts).
  const { tokens } = app;
  await app.register(graphRoutes, { answers: opts.answers });
  await app.register(healthRoutes, { service, tls: opts.tls });
  await app.register(apiV1Routes, {
    prefix: '/api/v1',
    service,
    admin,
    tokens,
    clock: opts.clock,
    fleet: opts.fleet,
    webhooks: opts.webhooks,
    planRateLimit: opts.planRateLimit,
    rollouts: opts.rollouts,
  });
  await app.register(graphDataRoutes, { prefix: '/api/upgrades_info', admin });
  await app.register(signatureStoreRoutes, { admin });
  await app.register(uiRoutes, { ...(opts.uiDir !== undefined && { dir: opts.uiDir }) });
}
