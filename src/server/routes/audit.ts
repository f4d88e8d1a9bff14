// /api/v1/audit: who did what, when, with the state before and after.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AuditQuery } from '../../schemas/admin.js';
import type { AdminRouteOptions } from './adminRouteOptions.js';

export async function auditRoutes(
  fastify: FastifyInstance,
  { admin }: Pick<AdminRouteOptions, 'admin'>,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/api/v1/audit', {
    schema: {
      summary: 'Who did what, when, with the state before and after (newest first)',
      tags: ['audit'],
      querystring: AuditQuery,
    },
    handler: async (request) => ({ entries: admin.queries.audit(request.query) }),
  });
}
