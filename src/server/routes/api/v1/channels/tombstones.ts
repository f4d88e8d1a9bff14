// /api/v1/channels/:name/tombstones/:version (and the same under /api/v1/internal-channels): tombstone
// a version that is not in the channel, so that promotion will not add it, or lift a tombstone.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ChannelDoc, ReasonQuery } from '../../../../../schemas/admin.js';
import { actorOf, requireScope } from '../../../../auth.js';
import { BEARER_AUTH, WRITE_ERRORS } from '../../../adminRouteOptions.js';
import { channelKindDoc, reasonOf, type ChannelRouteOptions } from './kind.js';

export async function tombstoneRoutes(
  fastify: FastifyInstance,
  { kind, admin, tokens }: ChannelRouteOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { tag, versionParams } = channelKindDoc(kind);

  app.put('/:name/tombstones/:version', {
    onRequest: requireScope(tokens, 'channels:write'),
    schema: {
      summary: `Tombstone a version in a ${kind} channel: promotion will not add it`,
      description:
        '201 when tombstoned now, 200 when it was already. A version in the channel is a 409: withdraw it instead.',
      tags: [tag],
      security: BEARER_AUTH,
      params: versionParams,
      querystring: ReasonQuery,
      response: { 200: ChannelDoc, 201: ChannelDoc, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      const { name, version } = request.params;
      const r = await admin.channels.changeTombstones(kind, name, version, actorOf(request), reasonOf(request), 'add');
      return reply.code(r.added ? 201 : 200).send(r.doc);
    },
  });

  app.delete('/:name/tombstones/:version', {
    onRequest: requireScope(tokens, 'channels:write'),
    schema: {
      summary: `Lift a tombstone of a ${kind} channel, so promotion may add the version again`,
      tags: [tag],
      security: BEARER_AUTH,
      params: versionParams,
      querystring: ReasonQuery,
      response: { 200: ChannelDoc, ...WRITE_ERRORS },
    },
    handler: async (request) => {
      const { name, version } = request.params;
      return (await admin.channels.changeTombstones(kind, name, version, actorOf(request), reasonOf(request), 'lift'))
        .doc;
    },
  });
}
