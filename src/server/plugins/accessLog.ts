// The access log, opt-in (--access-log): one line per answered request, at info, with the method,
// the path without its query, the status and the time taken. fastify's own request lines are off
// (buildApp), so without it a request logs nothing unless it fails; /metrics counts every request.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export const accessLogPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?')[0]!.slice(0, 200),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
});
