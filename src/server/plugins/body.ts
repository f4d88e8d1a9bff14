// Request bodies: a JSON body goes through the parser of jsonBody.ts (a duplicate key, `__proto__`
// or nesting too deep is a 400 naming where), set on the root before any route plugin, so that every
// one inherits it (the signature ingest route replaces it in its own plugin). A route takes at most
// DEFAULT_BODY_LIMIT bytes unless it sets a limit of its own, of the content types its config.accepts
// names (application/json when unset). bodyRefusal is how the error handler (errors.ts) answers a body
// refused for its size (413) or its type (415).
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { registerJsonBodyParser } from '../jsonBody.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body content types a route takes, named by its 415 (application/json when unset). */
    accepts?: string[];
  }
}

/** The body limit of every route that sets none of its own (fastify's bodyLimit option, buildApp). */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export const bodyPlugin = fp(async (app: FastifyInstance) => {
  registerJsonBodyParser(app);
});

/** The answer to a body refused before it was parsed: too large (413) or of a type the route does not take (415). */
export function bodyRefusal(
  err: FastifyError,
  request: FastifyRequest,
): { status: 413 | 415; body: { kind: 'invalid_request'; value: string } } | undefined {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = request.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT;
    return { status: 413, body: { kind: 'invalid_request', value: `request body over ${limit} bytes` } };
  }
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    const accepted = request.routeOptions.config.accepts ?? ['application/json'];
    const sent = request.headers['content-type'] ?? '(none)';
    return {
      status: 415,
      body: {
        kind: 'invalid_request',
        value: `content-type ${sent.slice(0, 100)} is not accepted here; send one of: ${accepted.join(', ')}`,
      },
    };
  }
  return undefined;
}
