// What bounds a connection, from the serve settings, where the server is created: how long a request
// may take to arrive (headers, then the whole request), how long a silent or idle connection stays
// open, how many requests per connection, and how closing treats idle connections. The connection cap
// and the bound on closing are the server's, set by plugins/connections.ts.
import type { FastifyHttpOptions } from 'fastify';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { HttpLimits } from '../config.js';

/** How often Node looks for requests over their headers or request timeout (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * The node:http server (node:https with `tls`) with the limits, for fastify's serverFactory (the server is created here, not
 * by fastify, so that the graph fast path sees a request first). What fastify would set, set the same.
 */
export function createLimitedServer(
  limits: HttpLimits,
  listener: RequestListener,
  tls?: { cert: Buffer; key: Buffer },
): Server {
  const requestTimeout = limits.requestTimeout * 1000;
  // node:http checks headersTimeout against requestTimeout when it creates the server: both go here.
  const options = {
    requestTimeout,
    headersTimeout: limits.headersTimeout * 1000,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  };
  // An HTTPS server has the HTTP server's interface (it is one, over TLS).
  const server = tls
    ? (createHttpsServer({ ...options, cert: tls.cert, key: tls.key }, listener) as unknown as Server)
    : createServer(options, listener);
  server.keepAliveTimeout = limits.keepAliveTimeout * 1000;
  server.setTimeout(limits.connectionTimeout * 1000);
  // 0 is no limit, as Node's default (null) is.
  if (limits.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  return server;
}

/** The fastify options that carry the limits of closing. */
export function closingOptions(): FastifyHttpOptions<Server> {
  return {
    // Closing closes idle connections at once and answers 503 to a request that arrives meanwhile.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  };
}
