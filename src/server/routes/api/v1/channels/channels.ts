// /api/v1/channels and /api/v1/internal-channels (the prefix of one kind, channels/index.ts): list
// the channels of the kind, read one with its versions, create or replace one, delete one.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '#typebox';
import { ChannelBody, ChannelDoc, ChannelList, ChannelPage, ReasonQuery } from '../../../../../schemas/admin.js';
import { ErrorSchema } from '../../../../../schemas/cincinnati.js';
import { PageQuery } from '../../../../../schemas/pagination.js';
import { actorOf, requireScope, requireToken } from '../../../../auth.js';
import { BEARER_AUTH, WRITE_ERRORS, sendJson } from '../../../adminRouteOptions.js';
import { channelKindDoc, reasonOf, type ChannelRouteOptions } from './kind.js';

export async function channelDocRoutes(
  fastify: FastifyInstance,
  { kind, admin, tokens }: ChannelRouteOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { tag, params } = channelKindDoc(kind);
  // The promotion ladder is not public: reading it takes a token, of any scope.
  const readHook = kind === 'internal' ? { onRequest: requireToken(tokens) } : {};
  const readDoc = kind === 'internal' ? { security: BEARER_AUTH } : {};
  const readErrors = kind === 'internal' ? { 401: ErrorSchema } : {};

  app.get('', {
    ...readHook,
    schema: {
      summary: `List ${tag} by name, paginated`,
      tags: [tag],
      ...readDoc,
      querystring: PageQuery,
      response: { 200: ChannelList, 400: ErrorSchema, ...readErrors },
    },
    handler: async (request, reply) => sendJson(reply, await admin.queries.channels(kind, request.query)),
  });

  app.get('/:name', {
    ...readHook,
    schema: {
      summary: `One ${kind} channel with the time each version entered it`,
      description: 'Its versions are paginated, in the order they entered the channel.',
      tags: [tag],
      ...readDoc,
      params,
      querystring: PageQuery,
      response: { 200: ChannelPage, 400: ErrorSchema, 404: ErrorSchema, ...readErrors },
    },
    handler: async (request) => admin.queries.channel(kind, request.params.name, request.query),
  });

  app.put('/:name', {
    onRequest: requireScope(tokens, 'channels:write'),
    schema: {
      summary: `Create or replace a ${kind} channel (versions, feeder, tombstones)`,
      tags: [tag],
      security: BEARER_AUTH,
      params,
      body: ChannelBody,
      response: { 200: ChannelDoc, 201: ChannelDoc, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      const { name } = request.params;
      const r = await admin.channels.putChannel(kind, name, request.body, actorOf(request));
      return reply.code(r.created ? 201 : 200).send(r.doc);
    },
  });

  app.delete('/:name', {
    onRequest: requireScope(tokens, 'channels:write'),
    schema: {
      summary: `Delete a ${kind} channel with its versions and tombstones`,
      tags: [tag],
      security: BEARER_AUTH,
      params,
      querystring: ReasonQuery,
      response: { 200: Type.Object({ deleted: ChannelDoc }), ...WRITE_ERRORS },
    },
    handler: async (request) => ({
      deleted: await admin.channels.deleteChannel(kind, request.params.name, actorOf(request), reasonOf(request)),
    }),
  });
}
