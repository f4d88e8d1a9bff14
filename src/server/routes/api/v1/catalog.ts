// GET /api/v1/catalog: the served graph's architectures and public channels, with release counts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { GraphService } from '../../../../app/graphService.js';
import { CatalogAnswer } from '../../../../schemas/catalog.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';

export async function catalogRoutes(fastify: FastifyInstance, { service }: { service: GraphService }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/catalog', {
    schema: {
      summary: 'The architectures and public channels of the served graph, with release counts',
      tags: ['paths'],
      response: { 200: CatalogAnswer, 503: ErrorSchema },
    },
    handler: async () => {
      const snapshot = service.served();
      return { builtAt: snapshot.builtAt.toISOString(), ...snapshot.catalog };
    },
  });
}
