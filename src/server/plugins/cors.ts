// CORS: any origin's page may read the public routes, with GET and HEAD (@fastify/cors, on the whole
// app). The routes that take a token to read (the fleet, the audit log, the internal channels, the
// webhooks) answer CORS only to the origins --cors-origins names, whether or not a request carries a
// token: a page elsewhere cannot read them with a token it got hold of. The rule goes by path, not by
// the Authorization header, so a public answer (cached as `public`, varying on Origin alone) is the
// same whoever asks. The graph fast path (graphFastPath.ts) leaves every request with an Origin to
// fastify, and puts CORS_VARY in Vary of its answers as the cors plugin does.
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const CORS = { origin: true, methods: ['GET', 'HEAD'], strictPreflight: false };
/** What the cors plugin puts in Vary of every answer, since its origin option is not a fixed string. */
export const CORS_VARY = 'Origin';

/** The paths of the reads that take a token (server/routes/api/v1: fleet.ts, audit.ts, channels/, webhooks.ts). */
const TOKEN_READS = /^\/api\/v1\/(fleet|audit|internal-channels|webhooks)(\/|\?|$)/;

export const corsPlugin = fp(async (app: FastifyInstance, { origins }: { origins: readonly string[] }) => {
  const allowed = new Set(origins);
  await app.register(cors, {
    delegator: (request, callback) =>
      callback(
        null,
        TOKEN_READS.test((request as FastifyRequest).url)
          ? { ...CORS, origin: allowed.has(String(request.headers.origin ?? '')) }
          : CORS,
      ),
  });
});
