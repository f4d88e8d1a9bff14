// Liveness and readiness: /livez answers 200 while the process serves; /readyz answers 200 once a
// graph is served (still 200 when a later build or import failed, which its body reports), 503 before.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { GraphService } from '../../app/graphService.js';

const ReadySchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
  graph: Type.Optional(Type.Object({ builtAt: Type.String(), releases: Type.Integer(), channels: Type.Integer(), buildSeconds: Type.Number() })),
  lastBuildFailure: Type.Optional(Type.Object({ at: Type.String(), message: Type.String() })),
  lastImportFailure: Type.Optional(Type.Object({ at: Type.String(), message: Type.String(), problems: Type.Array(Type.String()) })),
});

export async function healthRoutes(app: FastifyInstance, opts: { service: GraphService }): Promise<void> {
  app.get('/livez', { schema: { summary: 'Liveness', tags: ['health'], response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({ status: 'ok' as const }));
  app.get('/readyz', {
    schema: {
      summary: 'Readiness: 200 once a graph is served (also when a later rebuild failed), 503 before',
      tags: ['health'],
      response: { 200: ReadySchema, 503: ReadySchema },
    },
    handler: async (_request, reply) => {
      const s = opts.service;
      const snap = s.current;
      const body = {
        status: snap ? ('ready' as const) : ('not ready' as const),
        ...(snap && { graph: { builtAt: snap.builtAt.toISOString(), releases: snap.graph.nodes.length, channels: snap.channels.size, buildSeconds: snap.buildSeconds } }),
        ...(s.lastBuildFailure && { lastBuildFailure: s.lastBuildFailure }),
        ...(s.lastImportFailure && { lastImportFailure: s.lastImportFailure }),
      };
      return reply.code(snap ? 200 : 503).send(body);
    },
  });
}
