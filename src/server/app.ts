// buildApp: the fastify instance with every plugin and route, never listening. The CLI's `serve`
// listens; tests use the same factory with the same options. It only composes: the server, whose
// requests meet the graph fast path before fastify routes them; one plugin per concern of the whole
// app (plugins/), in the order their hooks run; and the routes, by the tree of their URLs (routes/).
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AdminServices } from '../app/admin/services.js';
import type { AuthConfig } from '../app/auth/tokenVerifier.js';
import type { FleetReads } from '../app/fleet/fleetReads.js';
import type { RolloutMonitor } from '../app/rollouts/monitor.js';
import type { FleetRecorder } from '../app/fleet/pollRecorder.js';
import type { GraphService } from '../app/graphService.js';
import type { Webhooks } from '../app/webhooks/service.js';
import { systemClock, type Clock } from '../clock.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../config.js';
import { PACKAGE_VERSION } from '../version.js';
import { closingOptions, createLimitedServer } from './connectionLimits.js';
import { answerClientError, answerFrameworkError } from './earlyErrors.js';
import { GraphAnswers } from './graphAnswer.js';
import { GraphFastPath } from './graphFastPath.js';
import { accessLogPlugin } from './plugins/accessLog.js';
import { authPlugin } from './plugins/auth.js';
import { bodyPlugin, DEFAULT_BODY_LIMIT } from './plugins/body.js';
import { connectionsPlugin } from './plugins/connections.js';
import { CORS_VARY, corsPlugin } from './plugins/cors.js';
import { errorsPlugin } from './plugins/errors.js';
import { fastPathPlugin } from './plugins/fastPath.js';
import { largeBodiesPlugin } from './plugins/largeBodies.js';
import { metricsPlugin } from './plugins/metrics.js';
import { openapiPlugin } from './plugins/openapi.js';
import { validationPlugin } from './plugins/validation.js';
import { writesServedPlugin } from './plugins/writesServed.js';
import { RequestMetrics } from './requestMetrics.js';
import { ROUTER_OPTIONS } from './routerOptions.js';
import { routes } from './routes/index.js';
import { buildSerializer } from './serializerCompiler.js';
import type { TlsMaterial } from './tls.js';

export interface AppOptions {
  service: GraphService;
  /** The admin services, on the same store and graph service. */
  admin: AdminServices;
  /** Admin writes: no key configured means every write answers 401. */
  auth?: AuthConfig;
  /** The clock tokens expire and writes are rate-limited on: the one startService was given (default: real time). */
  clock?: Clock;
  logger?: FastifyServerOptions['loggerInstance'] | boolean;
  /** Cache-Control max-age of graph responses, seconds. */
  cacheMaxAge?: number;
  /** Where the built web page is (default: dist/ui of the package). */
  uiDir?: string;
  /** One log line per request (default: none; failures are logged, and /metrics counts every request). */
  accessLog?: boolean;
  /** Timeouts and caps of connections (default: those of serve). */
  limits?: HttpLimits;
  /**
   * Answer cached graph requests before fastify routes them (graphFastPath.ts; default: true). Off,
   * every request goes through fastify, as it does with the access log on.
   */
  graphFastPath?: boolean;
  /** The fleet API's reads, and the recorder graph requests are told of (none: polls are not recorded). */
  fleet?: { reads: FleetReads; recorder?: FleetRecorder };
  /** The webhooks API (none: its routes are not served). */
  webhooks?: Webhooks;
  /** The rollout monitor (none: rollouts are shown uncounted, and reports do not trigger a count). */
  rollouts?: RolloutMonitor;
  /** Paths each client address may plan a minute (default: serve's; routes/api/v1/planning.ts). */
  planRateLimit?: number;
  /** The proxies whose X-Forwarded-For names the client (--trust-proxy; default: none, the peer is the client). */
  trustProxy?: string[];
  /** Origins whose pages may call the routes that take a token (default: none; plugins/cors.ts). */
  corsOrigins?: string[];
  /** Serve HTTPS with this certificate; `material` is replaced when the files are reloaded (tls.ts). */
  tls?: { material: TlsMaterial };
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const clock = opts.clock ?? systemClock;
  const requests = new RequestMetrics();
  const answers = new GraphAnswers(opts.service, opts.cacheMaxAge ?? 30, opts.fleet?.recorder);
  // Cached graph answers are written before fastify routes the request (graphFastPath.ts); with the
  // access log on, every request goes through fastify, which logs it.
  const fastPath =
    opts.accessLog || opts.graphFastPath === false
      ? undefined
      : new GraphFastPath({ answers, metrics: requests, corsVary: CORS_VARY });
  const app = createFastify(opts, fastPath);
  await app.register(connectionsPlugin, { limits: opts.limits ?? DEFAULT_HTTP_LIMITS });
  if (fastPath) await app.register(fastPathPlugin, { fastPath });
  // Before any route, and in this order: an unrouted request is answered (errors) before CORS sees
  // it; a large body left unread closes its connection before a write waits for its graph.
  await app.register(validationPlugin);
  await app.register(bodyPlugin);
  await app.register(errorsPlugin);
  await app.register(largeBodiesPlugin);
  await app.register(writesServedPlugin, { service: opts.service });
  await app.register(corsPlugin, { origins: opts.corsOrigins ?? [] });
  await app.register(openapiPlugin, { version: PACKAGE_VERSION });
  await app.register(metricsPlugin, { service: opts.service, requests, tls: opts.tls, fleet: opts.fleet?.recorder });
  if (opts.accessLog) await app.register(accessLogPlugin);
  await app.register(authPlugin, { auth: opts.auth, clock });
  await app.register(routes, {
    service: opts.service,
    admin: opts.admin,
    answers,
    clock,
    fleet: opts.fleet?.reads,
    webhooks: opts.webhooks,
    planRateLimit: opts.planRateLimit,
    rollouts: opts.rollouts,
    uiDir: opts.uiDir,
    tls: opts.tls,
  });
  return app;
}

/** The fastify instance, on the server of connectionLimits.ts, whose requests meet the fast path (if any) first. */
function createFastify(opts: AppOptions, fastPath: GraphFastPath | undefined): FastifyInstance {
  const limits = opts.limits ?? DEFAULT_HTTP_LIMITS;
  return Fastify({
    ...(typeof opts.logger === 'object' ? { loggerInstance: opts.logger } : { logger: opts.logger ?? false }),
    // fastify's two lines per request are off: the access log, when asked for, writes one.
    logController: new LogController({ disableRequestLogging: true }),
    // Every body is small unless its route says otherwise (a release list); the token of a write is
    // checked on the headers (onRequest), so only an authorized writer's body is ever read.
    bodyLimit: DEFAULT_BODY_LIMIT,
    ...(opts.trustProxy !== undefined && { trustProxy: opts.trustProxy }),
    routerOptions: ROUTER_OPTIONS,
    serverFactory: (handler) =>
      createLimitedServer(
        limits,
        (req, res) => {
          if (!fastPath?.answer(req, res)) handler(req, res);
        },
        opts.tls?.material,
      ),
    ...closingOptions(),
    // With a serverFactory, fastify reads this only to write https:// where it says it listens.
    ...(opts.tls && { https: {} }),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    // Response serializers are compiled when first used (validators too, plugins/validation.ts).
    schemaController: { compilersFactory: { buildSerializer } },
  });
}
