// GET /api/v1/explain: why the served snapshot has, or has not, an edge between two versions in a channel.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { GraphService } from '../../../../app/graphService.js';
import { explainEdge } from '../../../../explain/edge.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import { ExplainAnswer, ExplainQuery } from '../../../../schemas/paths.js';

export async function explainRoutes(fastify: FastifyInstance, { service }: { service: GraphService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/explain', {
    schema: {
      summary: 'Explain why an update edge is or is not in a channel',
      description:
        'One of: not a release of that arch; not in the channel (with the channels that have it and what promotion ' +
        "from the channel's feeder needs); not listed by previous/next; removed by a metadata rule; blocked by a " +
        'blocked-edges file; or present, recommended or conditional with its risks.',
      tags: ['paths'],
      querystring: ExplainQuery,
      response: { 200: ExplainAnswer, 400: ErrorSchema, 503: ErrorSchema },
    },
    handler: async (request) => {
      const snapshot = service.served();
      const q = request.query;
      return explainEdge(
        snapshot.graph,
        snapshot.input,
        { ...q, arch: q.arch ?? 'amd64' },
        { membership: snapshot.membership, now: new Date() },
      );
    },
  });
}
