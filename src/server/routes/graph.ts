// GET/HEAD /graph and its aliases, as fastify routes: the answer (parameters, negotiation, headers,
// 304, bytes) is GraphAnswers'; this writes it. Cached answers to plain requests usually take the
// fast path (graphFastPath.ts) before routing; the rest, errors included, come here.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorSchema, GraphDocumentSchema, GraphQuerySchema, MEDIA_TYPES } from '../../schemas/cincinnati.js';
import { GRAPH_PATHS, type GraphAnswers } from '../graphAnswer.js';

export interface GraphRouteOptions {
  answers: GraphAnswers;
}

export async function graphRoutes(fastify: FastifyInstance, opts: GraphRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  for (const url of GRAPH_PATHS) {
    app.get(url, {
      // The schema documents the route; GraphAnswers checks the query, with the exact Cincinnati bodies.
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Update graph of a channel',
        description: 'The Cincinnati graph of one channel and architecture, as OpenShift clusters read it.',
        tags: ['graph'],
        querystring: GraphQuerySchema,
        produces: [...MEDIA_TYPES],
        response: {
          200: GraphDocumentSchema,
          304: { type: 'null', description: 'Not modified' },
          400: ErrorSchema,
          406: ErrorSchema,
          503: ErrorSchema,
        },
      },
      handler: (request, reply) => {
        const answer = opts.answers.answer(request.query, request.headers);
        for (const [name, value] of answer.headers)
          if (name === 'vary') addVary(reply, value);
          else reply.header(name, value);
        return reply.code(answer.status).send(answer.body);
      },
    });
  }
}

/** Appends to Vary (CORS has already put Origin there). */
function addVary(reply: FastifyReply, value: string): void {
  const current = reply.getHeader('vary');
  reply.header('vary', current ? `${String(current)}, ${value}` : value);
}
