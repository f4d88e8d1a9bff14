// CORS: any origin's page may read the public routes, with GET and HEAD (@fastify/cors, on the whole
// app). A request that carries a token (Authorization, or a preflight asking to send one) is answered
// with CORS headers only for the origins --cors-origins names: a page elsewhere cannot read the fleet,
// the audit log or the internal channels with a token it got hold of, nor learn what they answer. The
// graph fast path (graphFastPath.ts) leaves every request with an Origin to fastify, and puts CORS_VARY
// in Vary of its answers as the cors plugin does.
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const CORS = { origin: true, methods: ['GET', 'HEAD'], strictPreflight: false };
/** What the cors plugin puts in Vary of every answer, since its origin option is not a fixed string. */
export const CORS_VARY = 'Origin';

/** Whether a request carries a token, or is the preflight of one that will. */
const carriesToken = (request: FastifyRequest): boolean =>
  request.headers.authorization !== undefined ||
  /(^|,)\s*authorization\s*(,|$)/i.test(String(request.headers['access-control-request-headers'] ?? ''));

export const corsPlugin = fp(async (app: FastifyInstance, { origins }: { origins: readonly string[] }) => {
  const allowed = new Set(origins);
  await app.register(cors, {
    delegator: (request, callback) =>
      callback(
        null,
        carriesToken(request as FastifyRequest)
          ? { ...CORS, origin: allowed.has(String(request.headers.origin ?? '')) }
          : CORS,
      ),
  });
});
