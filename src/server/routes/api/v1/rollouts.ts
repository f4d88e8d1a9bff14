// /api/v1/rollouts: phased rollouts declared, listed, halted, resumed and cancelled.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RolloutReads } from '../../../../app/rollouts/rolloutReads.js';
import type { TokenVerifier } from '../../../../app/auth/tokenVerifier.js';
import type { AdminServices } from '../../../../app/admin/services.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import {
  RolloutActionBody,
  RolloutBody,
  RolloutDoc,
  RolloutList,
  RolloutListQuery,
  RolloutParams,
} from '../../../../schemas/rollouts.js';
import { actorOf, requireScope } from '../../../auth.js';
import { BEARER_AUTH, WRITE_ERRORS } from '../../adminRouteOptions.js';

export interface RolloutRouteOptions {
  admin: AdminServices;
  tokens: TokenVerifier;
  reads: RolloutReads;
}

const ACTIONS = {
  halt: 'Halt a rollout: no further cluster is offered its edges, and every cluster is served them conditional on the risk PhasedRolloutHalted',
  resume: 'Resume a halted rollout: the risk goes, each cluster is offered the edges at its turn',
  cancel:
    'Cancel a rollout: its edges are served to no cluster until another rollout of its channel and target is declared',
} as const;

export async function rolloutRoutes(
  fastify: FastifyInstance,
  { admin, tokens, reads }: RolloutRouteOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/rollouts', {
    schema: {
      summary: 'List phased rollouts, newest first, paginated',
      tags: ['rollouts'],
      querystring: RolloutListQuery,
      response: { 200: RolloutList, 400: ErrorSchema },
    },
    handler: (request) => reads.list(request.query),
  });

  app.get('/rollouts/:id', {
    schema: {
      summary: 'One phased rollout: where it stands and what its clusters came to',
      tags: ['rollouts'],
      params: RolloutParams,
      response: { 200: RolloutDoc, 400: ErrorSchema, 404: ErrorSchema },
    },
    handler: (request) => reads.get(request.params.id),
  });

  app.post('/rollouts', {
    onRequest: requireScope(tokens, 'rollouts:write'),
    schema: {
      summary: 'Declare a phased rollout of the edges into a release of a channel',
      tags: ['rollouts'],
      security: BEARER_AUTH,
      body: RolloutBody,
      response: { 201: RolloutDoc, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      const r = await admin.rollouts.declare(request.body, actorOf(request));
      return reply.code(201).send(await reads.get(r.id));
    },
  });

  for (const [action, summary] of Object.entries(ACTIONS) as Array<[keyof typeof ACTIONS, string]>) {
    app.post(`/rollouts/:id/${action}`, {
      onRequest: requireScope(tokens, 'rollouts:write'),
      schema: {
        summary,
        tags: ['rollouts'],
        security: BEARER_AUTH,
        params: RolloutParams,
        body: RolloutActionBody,
        response: { 200: RolloutDoc, ...WRITE_ERRORS },
      },
      handler: async (request) => {
        const reason = request.body?.reason ?? null;
        const r = await admin.rollouts[action](request.params.id, actorOf(request), reason);
        return reads.get(r.id);
      },
    });
  }
}
