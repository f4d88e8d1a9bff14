// Routes whose plugins are loaded at their first request instead of at start: Swagger UI with the OpenAPI
// document, and the web page's assets. A fastify instance of their own, made once when first asked for and
// set up as the server is (its log, its router options, errors and unknown paths in the API's format),
// answers the request itself, streaming what it sends. The server's routes and hooks run first: the route
// is the server's (counted in /metrics under it), and the headers its hooks set (CORS) go out with the
// answer. A start then loads neither @fastify/swagger, @fastify/swagger-ui, yaml, @fastify/static nor glob
// (docs/dev/benchmarks/2026-12-02-start-up.md).
import type { IncomingMessage } from 'node:http';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { answerErrorsAsTheApi } from './plugins/errors.js';
import { largeBodiesPlugin } from './plugins/largeBodies.js';
import { ROUTER_OPTIONS } from './routerOptions.js';

/** Fills in the app made at the first request (its plugins and routes); it is made ready after. */
export type BuildLazyApp = (app: FastifyInstance) => Promise<unknown>;

/**
 * Registers GET (and HEAD) routes at `urls`, hidden from the OpenAPI document, answered by the app `build`
 * fills in at the first request to any of them: made once, and again at the next request after a build
 * that failed (that request answered 500). Closing the server closes it.
 */
export function lazyRoutes(server: FastifyInstance, urls: readonly string[], build: BuildLazyApp): void {
  let made: Promise<FastifyInstance> | undefined;
  const app = (): Promise<FastifyInstance> =>
    (made ??= makeApp(server, build).catch((err: unknown) => {
      made = undefined;
      throw err;
    }));
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const inner = await app();
    // What the server's hooks have set so far goes out with the inner app's answer, which adds its own.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    requestIds.set(request.raw, request.id);
    reply.hijack();
    inner.routing(request.raw, reply.raw);
  };
  for (const url of urls) server.get(url, { schema: { hide: true } }, handler);
  server.addHook('onClose', async () => {
    const inner = made && (await made.catch(() => undefined));
    await inner?.close();
  });
}

/** The server's id of each request handed over, so that what the inner app logs of it carries that id. */
const requestIds = new WeakMap<IncomingMessage, string>();

async function makeApp(server: FastifyInstance, build: BuildLazyApp): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: server.log,
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: ROUTER_OPTIONS,
    genReqId: (raw) => requestIds.get(raw) ?? 'not-handed-over',
  });
  // As the server answers: errors and unknown paths in the API's format, and a large body left unread
  // closing the connection (an onSend hook of the server's, which a hijacked reply skips).
  answerErrorsAsTheApi(app);
  await app.register(largeBodiesPlugin);
  try {
    await build(app);
    await app.ready();
    return app;
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
}
