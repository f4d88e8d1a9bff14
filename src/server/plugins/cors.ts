// CORS: any origin may read, with GET and HEAD (@fastify/cors, on the whole app). The graph fast path
// (graphFastPath.ts) leaves every request with an Origin to fastify, and puts CORS_VARY in Vary of its
// answers as the cors plugin does.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const CORS = { origin: true, methods: ['GET', 'HEAD'], strictPreflight: false };
/** What the cors plugin puts in Vary of every answer, since its origin option is not a fixed string. */
export const CORS_VARY = 'Origin';

export const corsPlugin = fp(async (app: FastifyInstance) => {
  await app.register(cors, CORS);
});
