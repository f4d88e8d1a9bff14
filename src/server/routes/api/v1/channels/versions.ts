// /api/v1/channels/:name/versions (and the same under /api/v1/internal-channels): promote a version
// into the channel, following its feeder (or a dry run of that), or withdraw one, which tombstones it
// there.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  DryRunQuery,
  PromoteBody,
  PromotionResult,
  PROMOTION_RULES,
  ReasonQuery,
  WithdrawalResult,
} from '../../../../../schemas/admin.js';
import { actorOf, requireScope } from '../../../../auth.js';
import { BEARER_AUTH, WRITE_ERRORS } from '../../../adminRouteOptions.js';
import { channelKindDoc, reasonOf, type ChannelRouteOptions } from './kind.js';

const PROMOTION_DESCRIPTION =
  `Refused with 409 naming the rule (${PROMOTION_RULES.join(', ')}) ` +
  'unless force with a reason. dryRun=true changes nothing and lists the edges that would appear.';

export async function versionRoutes(
  fastify: FastifyInstance,
  { kind, admin, tokens }: ChannelRouteOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { tag, params, versionParams } = channelKindDoc(kind);

  app.post('/:name/versions', {
    onRequest: requireScope(tokens, 'channels:write'),
    schema: {
      summary: `Promote a version into a ${kind} channel, following its feeder`,
      description: PROMOTION_DESCRIPTION,
      tags: [tag],
      security: BEARER_AUTH,
      params,
      querystring: DryRunQuery,
      body: PromoteBody,
      response: { 200: PromotionResult, 201: PromotionResult, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      const r = await admin.promotion.promote(
        kind,
        request.params.name,
        request.body,
        actorOf(request),
        request.query.dryRun === true,
      );
      return reply.code(r.changed && !r.dryRun ? 201 : 200).send(r);
    },
  });

  app.delete('/:name/versions/:version', {
    onRequest: requireScope(tokens, 'channels:write'),
    schema: {
      summary: `Withdraw a version from a ${kind} channel (and tombstone it there)`,
      tags: [tag],
      security: BEARER_AUTH,
      params: versionParams,
      querystring: ReasonQuery,
      response: { 200: WithdrawalResult, ...WRITE_ERRORS },
    },
    handler: async (request) => {
      const { name, version } = request.params;
      return admin.promotion.withdraw(kind, name, version, reasonOf(request), actorOf(request));
    },
  });
}
