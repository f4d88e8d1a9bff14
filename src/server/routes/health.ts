// Liveness and readiness: /livez answers 200 while the process serves; /readyz answers 200 once a
// graph is served and every registry source was read once (still 200 when a later build, import or
// scrape failed, which its body reports), 503 before.
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
      summary:
        'Readiness: 200 once a graph is served and the registry sources were read (also when a later read failed), 503 before',
      tags: ['health'],
      response: { 200: ReadinessSchema, 503: ReadinessSchema },
    },
    handler: async (_request, reply) => {
      const s = opts.service;
      const snap = s.current;
      // Not ready until every registry source has been read once (now, or by an earlier run on this store).
      const ready = snap !== undefined && s.sources.every((src) => src.ready) && !s.applyingFirstRead;
      const body = {
        status: ready ? ('ready' as const) : ('not ready' as const),
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
        ...(s.sources.length && { sources: s.sources }),
      };
      return reply.code(ready ? 200 : 503).send(body);
    },
  });
}
