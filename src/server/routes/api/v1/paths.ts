// GET /api/v1/paths: the best update paths from one version to another, planned on the served snapshot.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { GraphService } from '../../../../app/graphService.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import { DEFAULT_PATH_LIMIT, MAX_PATH_LIMIT, PathsAnswer, PathsQuery } from '../../../../schemas/paths.js';
import type { PlanningBudget } from './planning.js';

export async function pathRoutes(
  fastify: FastifyInstance,
  { service, planning }: { service: GraphService; planning: PlanningBudget },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/paths', {
    schema: {
      summary: 'Plan update paths between two versions',
      description:
        'Paths over the recommended and conditional edges of the public channels (or of one channel), ranked by ' +
        'risks not accepted, then hops, then prerelease stops, then channel switches. mode=eus plans an EUS-to-EUS ' +
        'update: through the odd minor between, in eus-, stable- and fast- channels (or the one channel asked ' +
        'for), on GA releases and recommended edges wherever such a path exists. No path: paths is empty and ' +
        'reason says why.',
      tags: ['paths'],
      querystring: PathsQuery,
      response: { 200: PathsAnswer, 400: ErrorSchema, 429: ErrorSchema, 503: ErrorSchema },
    },
    handler: async (request, reply) => {
      const snapshot = service.served();
      // More than one path runs the search for alternatives, whatever the number: priced as the most.
      planning.charge(request, reply, (request.query.limit ?? DEFAULT_PATH_LIMIT) > 1 ? MAX_PATH_LIMIT : 1);
      // The planner (and graphology under it) loads with the first question, not with the server.
      const { planPaths } = await import('../../../../graph/paths.js');
      const q = request.query;
      return planPaths(snapshot.graph, {
        from: q.from,
        to: q.to,
        arch: q.arch ?? 'amd64',
        ...(q.channel !== undefined && { channel: q.channel }),
        acceptRisks: (q.acceptRisks ?? '').split(',').filter((r) => r !== ''),
        mode: q.mode ?? 'fewest-hops',
        limit: q.limit ?? DEFAULT_PATH_LIMIT,
      });
    },
  });
}
