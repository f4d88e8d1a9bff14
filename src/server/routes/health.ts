// Liveness and readiness: /livez answers 200 while the process serves; /readyz answers 200 once a
// graph is served (still 200 when a later build or import failed, which its body reports), 503 before.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { GraphService } from '../../app/graphService.js';
import { ReadinessSchema } from '../../schemas/health.js';

export async function healthRoutes(fastify: FastifyInstance, opts: { service: GraphService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/livez',
    {
      schema: { summary: 'Liveness', tags: ['health'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get('/readyz', {
    schema: {
      summary: 'Readiness: 200 once a graph is served (also when a later rebuild failed), 503 before',
      tags: ['health'],
      response: { 200: ReadinessSchema, 503: ReadinessSchema },
    },
    handler: async (_request, reply) => {
      const s = opts.service;
      const snap = s.current;
      const body = {
        status: snap ? ('ready' as const) : ('not ready' as const),
        ...(snap && {
          graph: {
            builtAt: snap.builtAt.toISOString(),
            releases: snap.graph.nodes.length,
            channels: snap.channels.size,
            buildSeconds: snap.buildSeconds,
          },
        }),
        ...(s.lastBuildFailure && { lastBuildFailure: s.lastBuildFailure }),
        ...(s.lastImportFailure && { lastImportFailure: s.lastImportFailure }),
      };
      return reply.code(snap ? 200 : 503).send(body);
    },
  });
}
