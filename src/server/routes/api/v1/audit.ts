// /api/v1/audit: who did what, when, with the state before and after. Not public (entries name
// server file paths and every reason given): reading it takes a token, of any scope; webhook URLs in it
// only to a token that may manage webhooks (app/webhooks/hiddenUrls.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { withWebhookUrlsFor } from '../../../../app/webhooks/hiddenUrls.js';
import { AuditList, AuditQuery } from '../../../../schemas/admin.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import { requireToken } from '../../../auth.js';
import { BEARER_AUTH, type AdminRouteOptions } from '../../adminRouteOptions.js';

export async function auditRoutes(fastify: FastifyInstance, { admin, tokens }: AdminRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/audit', {
    onRequest: requireToken(tokens),
    schema: {
      summary: 'Who did what, when, with the state before and after (newest first), paginated',
      tags: ['audit'],
      security: BEARER_AUTH,
      querystring: AuditQuery,
      response: { 200: AuditList, 400: ErrorSchema, 401: ErrorSchema },
    },
    handler: async (request) => {
      const page = await admin.queries.audit(request.query);
      return { ...page, entries: withWebhookUrlsFor(page.entries, request.verifiedToken!.scopes) };
    },
  });
}
