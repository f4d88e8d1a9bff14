// /api/v1/channels and /api/v1/internal-channels: list, read, create, replace or delete a channel;
// promote a version into it (or a dry run of that); withdraw a version, which tombstones it there;
// tombstone a version that is not in it, or lift a tombstone.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  ChannelBody,
  ChannelDoc,
  ChannelList,
  ChannelNameParams,
  ChannelPage,
  DryRunQuery,
  InternalChannelParams,
  PromoteBody,
  PromotionResult,
  PROMOTION_RULES,
  ReasonQuery,
  WithdrawalResult,
} from '../../schemas/admin.js';
import { ErrorSchema } from '../../schemas/cincinnati.js';
import { PageQuery } from '../../schemas/pagination.js';
import { actorOf, requireScope, requireToken } from '../auth.js';
import { BEARER_AUTH, WRITE_ERRORS, sendJson, type AdminRouteOptions } from './adminRouteOptions.js';

const PROMOTION_DESCRIPTION =
  `Refused with 409 naming the rule (${PROMOTION_RULES.join(', ')}) ` +
  'unless force with a reason. dryRun=true changes nothing and lists the edges that would appear.';

export async function channelRoutes(fastify: FastifyInstance, { admin, tokens }: AdminRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  for (const [kind, base, params] of [
    ['public', '/api/v1/channels', ChannelNameParams],
    ['internal', '/api/v1/internal-channels', InternalChannelParams],
  ] as const) {
    const tag = kind === 'public' ? 'channels' : 'internal channels';
    // The promotion ladder is not public: reading it takes a token, of any scope.
    const readHook = kind === 'internal' ? { onRequest: requireToken(tokens) } : {};
    const readDoc = kind === 'internal' ? { security: BEARER_AUTH } : {};
    const readErrors = kind === 'internal' ? { 401: ErrorSchema } : {};

    app.get(base, {
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

    app.get(`${base}/:name`, {
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

    app.put(`${base}/:name`, {
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

    app.delete(`${base}/:name`, {
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

    const versionParams = Type.Intersect([params, Type.Object({ version: Type.String() })]);
    app.put(`${base}/:name/tombstones/:version`, {
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
        const r = await admin.channels.changeTombstones(
          kind,
          name,
          version,
          actorOf(request),
          reasonOf(request),
          'add',
        );
        return reply.code(r.added ? 201 : 200).send(r.doc);
      },
    });

    app.delete(`${base}/:name/tombstones/:version`, {
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

    app.post(`${base}/:name/versions`, {
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

    app.delete(`${base}/:name/versions/:version`, {
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
}

const reasonOf = (request: { query: { reason?: string } }): string | null => request.query.reason ?? null;
