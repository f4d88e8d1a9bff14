// An answer given before a large body was read (401, 403, 404, 413 from the headers) closes the
// connection: draining a body nobody will use would cost as much as taking it. A small one (within
// DEFAULT_BODY_LIMIT) is drained, and its connection kept.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DEFAULT_BODY_LIMIT } from './body.js';

export const largeBodiesPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onSend', async (request, reply, payload) => {
    if (largeBodyUnread(request.raw)) reply.header('connection', 'close');
    return payload;
  });
});

/** Whether the request announces a body over DEFAULT_BODY_LIMIT (or of no stated length) not read to its end. */
export function largeBodyUnread({ complete, headers }: IncomingMessage): boolean {
  const large =
    headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > DEFAULT_BODY_LIMIT;
  return !complete && large;
}
