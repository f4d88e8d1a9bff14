// /api/v1/webhooks…: subscriptions to the changes of the graph and of the fleet, delivered signed to a
// URL (app/webhooks/). Every route takes a token with the scope webhooks:write: a subscription's URL
// and counts are for those who manage them only.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TokenVerifier } from '../../../../app/auth/tokenVerifier.js';
import type { Webhooks } from '../../../../app/webhooks/service.js';
import { Webhook, WebhookCreate, WebhookList, WebhookParams, WebhookPing } from '../../../../schemas/webhooks.js';
import { actorOf, requireScope } from '../../../auth.js';
import { BEARER_AUTH, WRITE_ERRORS } from '../../adminRouteOptions.js';

export async function webhookRoutes(
  fastify: FastifyInstance,
  { webhooks, tokens }: { webhooks: Webhooks; tokens: TokenVerifier },
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const onRequest = requireScope(tokens, 'webhooks:write');
  const common = { tags: ['webhooks'], security: BEARER_AUTH };
  app.post('/webhooks', {
    onRequest,
    schema: {
      ...common,
      summary: 'Subscribes a URL to kinds of change; deliveries are signed with the secret',
      body: WebhookCreate,
      response: { 201: Webhook, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send(await webhooks.add(request.body, actorOf(request))),
  });
  app.get('/webhooks', {
    onRequest,
    schema: {
      ...common,
      summary: 'The webhooks, each with its deliveries in numbers (never its secret)',
      response: { 200: WebhookList, ...WRITE_ERRORS },
    },
    handler: async () => ({ webhooks: await webhooks.list() }),
  });
  app.get('/webhooks/:id', {
    onRequest,
    schema: {
      ...common,
      summary: 'One webhook, with its deliveries in numbers',
      params: WebhookParams,
      response: { 200: Webhook, ...WRITE_ERRORS },
    },
    handler: (request) => webhooks.get(request.params.id),
  });
  app.delete('/webhooks/:id', {
    onRequest,
    schema: {
      ...common,
      summary: 'Removes a webhook and the deliveries it was still owed',
      params: WebhookParams,
      response: { 204: { type: 'null' }, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      await webhooks.remove(request.params.id, actorOf(request));
      return reply.code(204).send();
    },
  });
  app.post('/webhooks/:id/ping', {
    onRequest,
    schema: {
      ...common,
      summary: 'Queues a ping event for the webhook, delivered like any other',
      params: WebhookParams,
      response: { 202: WebhookPing, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => reply.code(202).send(await webhooks.ping(request.params.id)),
  });
}
