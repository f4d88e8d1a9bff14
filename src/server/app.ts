// buildApp: the fastify instance with every plugin and route, never listening. The CLI's `serve`
// listens; tests use the same factory with the same options.
import cors from '@fastify/cors';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { systemClock, type Clock } from '../clock.js';
import { collectRouteMethods } from './methodNotAllowed.js';
import { ApiError } from '../errors.js';
import { StoreFull, StoreUnavailable } from '../store/sql.js';
import type { GraphService } from '../app/graphService.js';
import { accessLogPlugin } from './plugins/accessLog.js';
import { metricsPlugin } from './plugins/metrics.js';
import type { TlsMaterial } from './tls.js';
import { openapiPlugin } from './plugins/openapi.js';
import { graphRoutes } from './routes/graph.js';
import { healthRoutes } from './routes/health.js';
import { explainRoutes } from './routes/explain.js';
import { pathRoutes } from './routes/paths.js';
import { mirrorPlanRoutes } from './routes/mirrorPlan.js';
import { catalogRoutes } from './routes/catalog.js';
import { uiRoutes } from './routes/ui.js';
import { PACKAGE_VERSION } from '../version.js';
import type { AdminServices } from '../app/admin/services.js';
import { TokenVerifier, type AuthConfig } from '../app/auth/tokenVerifier.js';
import { validatorCompiler } from './validatorCompiler.js';
import { buildSerializer } from './serializerCompiler.js';
import { registerJsonBodyParser } from './jsonBody.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../config.js';
import { closingOptions, createLimitedServer, limitConnections } from './connectionLimits.js';
import { GraphAnswers } from './graphAnswer.js';
import { GraphFastPath } from './graphFastPath.js';
import { RequestMetrics } from './requestMetrics.js';
import { answerClientError, answerFrameworkError } from './earlyErrors.js';
import { auditRoutes } from './routes/audit.js';
import { channelRoutes } from './routes/channels.js';
import { graphDataRoutes } from './routes/graphData.js';
import { releaseRoutes } from './routes/releases.js';
import { riskRoutes } from './routes/risks.js';
import { signatureRoutes } from './routes/signatures.js';
import { fleetRoutes } from './routes/fleet.js';
import { changeRoutes } from './routes/changes.js';
import { webhookRoutes } from './routes/webhooks.js';
import type { Webhooks } from '../app/webhooks/service.js';
import { FleetReads } from '../app/fleet/fleetReads.js';
import type { FleetRecorder } from '../app/fleet/pollRecorder.js';

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
  /** Serve HTTPS with this certificate; `material` is replaced when the files are reloaded (tls.ts). */
  tls?: { material: TlsMaterial };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body content types a route takes, named by its 415 (application/json when unset). */
    accepts?: string[];
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The body limit of every route that sets none of its own. */
const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Any origin may read, with GET and HEAD. */
const CORS = { origin: true, methods: ['GET', 'HEAD'], strictPreflight: false };
/** What the cors plugin puts in Vary of every answer, since its origin option is not a fixed string. */
const CORS_VARY = 'Origin';

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const limits = opts.limits ?? DEFAULT_HTTP_LIMITS;
  const requests = new RequestMetrics();
  const answers = new GraphAnswers(opts.service, opts.cacheMaxAge ?? 30, opts.fleet?.recorder);
  // Cached graph answers are written before fastify routes the request (graphFastPath.ts); with the
  // access log on, every request goes through fastify, which logs it.
  const fastPath =
    opts.accessLog || opts.graphFastPath === false
      ? undefined
      : new GraphFastPath({ answers, metrics: requests, corsVary: CORS_VARY });
  const app = Fastify({
    ...(typeof opts.logger === 'object' ? { loggerInstance: opts.logger } : { logger: opts.logger ?? false }),
    // fastify's two lines per request are off: the access log, when asked for, writes one.
    logController: new LogController({ disableRequestLogging: true }),
    // Every body is small unless its route says otherwise (a release list); the token of a write is
    // checked on the headers (onRequest), so only an authorized writer's body is ever read.
    bodyLimit: DEFAULT_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
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
    // Response serializers are compiled when first used (validators too, setValidatorCompiler below).
    schemaController: { compilersFactory: { buildSerializer } },
  });
  limitConnections(app, limits);
  if (fastPath)
    app.addHook('preClose', (done) => {
      fastPath.enabled = false;
      done();
    });

  const routeMethods = collectRouteMethods(app);
  app.setValidatorCompiler(validatorCompiler);
  registerJsonBodyParser(app);
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ApiError) return reply.code(err.statusCode).send(err.body());
    // The database cannot be reached (or is busy past its wait): the request may be made again.
    if (err instanceof StoreUnavailable)
      return reply.code(503).send({ kind: 'service_unavailable', value: err.message });
    // No room for the write (nothing of it was written): the request may be made again once there is.
    if (err instanceof StoreFull) return reply.code(507).send({ kind: 'insufficient_storage', value: err.message });
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err }, 'request failed');
      return reply.code(500).send({ kind: 'internal_error', value: 'internal server error' });
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT;
      return reply.code(413).send({ kind: 'invalid_request', value: `request body over ${limit} bytes` });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const accepted = request.routeOptions.config.accepts ?? ['application/json'];
      const sent = request.headers['content-type'] ?? '(none)';
      return reply.code(415).send({
        kind: 'invalid_request',
        value: `content-type ${sent.slice(0, 100)} is not accepted here; send one of: ${accepted.join(', ')}`,
      });
    }
    // Bad input to the admin and API routes is one kind, wherever it is; the Cincinnati graph routes
    // check their own parameters, with the reference implementation's kinds (graphAnswer.ts).
    return reply.code(status).send({ kind: 'invalid_request', value: err.message });
  });
  const notFound = (request: FastifyRequest): { kind: 'does_not_exist'; value: string } => ({
    kind: 'does_not_exist',
    value: `no such path: ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`,
  });
  // An unknown path (or method) is answered from the headers, before its body is read: a 405 naming
  // the methods when the path is served for others, a 404 otherwise.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    const allowed = routeMethods.allowed(request.url.split('?')[0]!);
    if (allowed.length === 0) return void reply.code(404).send(notFound(request));
    void reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send({ kind: 'invalid_request', value: `${request.method} is not served here; allowed: ${allowed.join(', ')}` });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(notFound(request)));
  // An answer given before a large body was read (401, 403, 404, 413 from the headers) closes the
  // connection: draining a body nobody will use would cost as much as taking it. A small one is
  // drained, and its connection kept.
  app.addHook('onSend', async (request, reply, payload) => {
    const { complete, headers } = request.raw;
    const large =
      headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > DEFAULT_BODY_LIMIT;
    if (!complete && large) reply.header('connection', 'close');
    return payload;
  });
  // A write is answered once the graph it changed is served, so its client reads what it wrote.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (!READ_METHODS.has(request.method)) await opts.service.caughtUp();
    return payload;
  });

  await app.register(cors, CORS);
  await app.register(openapiPlugin, { version: PACKAGE_VERSION });
  await app.register(metricsPlugin, { service: opts.service, requests, tls: opts.tls, fleet: opts.fleet?.recorder });
  if (opts.accessLog) await app.register(accessLogPlugin);
  await app.register(graphRoutes, { answers });
  await app.register(healthRoutes, { service: opts.service });
  await app.register(pathRoutes, { service: opts.service });
  await app.register(mirrorPlanRoutes, { service: opts.service });
  await app.register(explainRoutes, { service: opts.service });
  await app.register(catalogRoutes, { service: opts.service });
  await app.register(uiRoutes, { ...(opts.uiDir !== undefined && { dir: opts.uiDir }) });
  const clock = opts.clock ?? systemClock;
  const tokens = new TokenVerifier(opts.auth ?? {}, clock);
  const adminRouteOptions = { admin: opts.admin, tokens };
  await app.register(releaseRoutes, adminRouteOptions);
  await app.register(channelRoutes, adminRouteOptions);
  await app.register(riskRoutes, adminRouteOptions);
  await app.register(auditRoutes, adminRouteOptions);
  await app.register(graphDataRoutes, adminRouteOptions);
  await app.register(signatureRoutes, adminRouteOptions);
  // Without a recorder of its own, the fleet API reads what the store holds (what replicas recorded).
  const fleet = opts.fleet?.reads ?? new FleetReads(opts.service.store, opts.service, clock, undefined);
  await app.register(fleetRoutes, { fleet, tokens });
  await app.register(changeRoutes, { store: opts.service.store });
  if (opts.webhooks) await app.register(webhookRoutes, { webhooks: opts.webhooks, tokens });
  return app;
}
