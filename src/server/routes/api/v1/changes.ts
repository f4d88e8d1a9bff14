// /api/v1/changes: graph history, public like the graph itself (it holds nothing the graph does not
// show, besides the subjects of the admin tokens that made a change).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listChanges } from '../../../../app/history/changeReads.js';
import { ErrorSchema } from '../../../../schemas/cincinnati.js';
import { Changes, ChangesQuery } from '../../../../schemas/changes.js';
import type { Store } from '../../../../store/store.js';

export async function changeRoutes(fastify: FastifyInstance, { store }: { store: Store }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/changes', {
    schema: {
      tags: ['changes'],
      summary: 'Changes to the served graph (edges, risks, releases) with their cause and actor, newest first',
      querystring: ChangesQuery,
      response: { 200: Changes, 400: ErrorSchema, 503: ErrorSchema },
    },
    handler: (request) => listChanges(store, request.query),
  });
}
