// A write is answered once the graph it changed is served (GraphService.caughtUp), so its client
// reads what it wrote. Reads (GET, HEAD, OPTIONS) are answered at once.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GraphService } from '../../app/graphService.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const writesServedPlugin = fp(async (app: FastifyInstance, { service }: { service: GraphService }) => {
  app.addHook('onSend', async (request, _reply, payload) => {
    if (!READ_METHODS.has(request.method)) await service.caughtUp();
    return payload;
  });
});
