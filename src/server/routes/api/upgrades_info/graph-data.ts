// GET /api/upgrades_info/graph-data: the whole state as a graph-data .tar.gz, with an ETag.
import type { FastifyInstance } from 'fastify';
import type { AdminRouteOptions } from '../../adminRouteOptions.js';
import { noneMatch } from '../../../graphAnswer.js';

export async function graphDataRoutes(
  app: FastifyInstance,
  { admin }: Pick<AdminRouteOptions, 'admin'>,
): Promise<void> {
  app.get('/graph-data', {
    schema: {
      summary: 'The current state as a graph-data .tar.gz (importable by cincy import)',
      tags: ['graph'],
      produces: ['application/gzip'],
    },
    handler: async (request, reply) => {
      const { bytes, etag } = await admin.queries.graphDataTarball();
      reply.header('content-type', 'application/gzip');
      reply.header('content-disposition', 'attachment; filename="graph-data.tar.gz"');
      reply.header('etag', etag);
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(bytes);
    },
  });
}
