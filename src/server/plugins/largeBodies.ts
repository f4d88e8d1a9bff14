// An answer given before a large body was read (401, 403, 404, 413 from the headers) closes the
// connection: draining a body nobody will use would cost as much as taking it. A small one (within
// DEFAULT_BODY_LIMIT) is drained, and its connection kept.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DEFAULT_BODY_LIMIT } from './body.js';

export const largeBodiesPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onSend', async (request, reply, payload) => {
    const { complete, headers } = request.raw;
    const large =
      headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > DEFAULT_BODY_LIMIT;
    if (!complete && large) reply.header('connection', 'close');
    return payload;
  });
});
