// /api/v1/risks: list, declare and withdraw conditional risks and hard blocks on edges.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '#typebox';
import { ReasonQuery, RiskAdded, RiskBody, RiskDeleted, RiskList } from '../../../../schemas/admin.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import { PageQuery } from '../../../../schemas/pagination.js';
import { actorOf, requireScope } from '../../../auth.js';
import { BEARER_AUTH, WRITE_ERRORS, sendJson, type AdminRouteOptions } from '../../adminRouteOptions.js';

export async function riskRoutes(fastify: FastifyInstance, { admin, tokens }: AdminRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/risks', {
    schema: {
      summary: 'List blocked edges: conditional risks and hard blocks, by id, paginated',
      tags: ['risks'],
      querystring: PageQuery,
      response: { 200: RiskList, 400: ErrorSchema },
    },
    handler: async (request, reply) => sendJson(reply, await admin.queries.risks(request.query)),
  });

  app.post('/risks', {
    attachValidation: true, // the risk service classifies and validates it like a blocked-edges file
    onRequest: requireScope(tokens, 'risks:write'),
    schema: {
      summary: 'Declare a risk on edges (or a hard block)',
      tags: ['risks'],
      security: BEARER_AUTH,
      body: RiskBody,
      response: { 201: RiskAdded, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      return reply.code(201).send(await admin.risks.addRisk(request.body, actorOf(request)));
    },
  });

  app.delete('/risks/:id', {
    onRequest: requireScope(tokens, 'risks:write'),
    schema: {
      summary: 'Withdraw a risk or a hard block',
      tags: ['risks'],
      security: BEARER_AUTH,
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
      querystring: ReasonQuery,
      response: { 200: RiskDeleted, ...WRITE_ERRORS },
    },
    handler: async (request) => ({
      deleted: await admin.risks.deleteRisk(request.params.id, actorOf(request), request.query.reason ?? null),
    }),
  });
}
