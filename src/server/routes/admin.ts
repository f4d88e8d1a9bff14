// The admin REST API under /api/v1: releases, channels (public and internal), risks, audit, and the
// graph-data tarball. Reads are public; every write needs a token with its scope and goes through
// AdminService (validated, one transaction, audited, one rebuild).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AdminServices } from '../../app/admin/services.js';
import {
  AuditQuery,
  ChannelBody,
  ChannelDoc,
  ChannelNameParams,
  DryRunQuery,
  InternalChannelParams,
  PromoteBody,
  PromotionResult,
  ReasonQuery,
  ReleaseBody,
  ReleaseListQuery,
  ReleaseParams,
  RiskBody,
} from '../../schemas/admin.js';
import { ErrorSchema } from '../../schemas/cincinnati.js';
import { ReleaseRecordSchema } from '../../schemas/graphData.js';
import { releaseRecord } from '../../sources/export.js';
import type { TokenVerifier } from '../../app/auth/tokenVerifier.js';
import { actorOf, requireScope } from '../auth.js';
import { noneMatch } from './graph.js';

export interface AdminRouteOptions {
  admin: AdminServices;
  tokens: TokenVerifier;
}

const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 429: ErrorSchema };
const security = [{ bearerAuth: [] }];

export async function adminRoutes(app: FastifyInstance, opts: AdminRouteOptions): Promise<void> {
  const { admin, tokens } = opts;
  const { queries } = admin;

  // ---- releases
  app.post('/api/v1/releases', {
    attachValidation: true, // the release service validates, naming body[i].field
    preValidation: requireScope(tokens, 'releases:write'),
    schema: { summary: 'Add one release record or an array of them', tags: ['releases'], security, body: ReleaseBody, response: { 200: Type.Object({ releases: Type.Array(ReleaseRecordSchema) }), 201: Type.Object({ releases: Type.Array(ReleaseRecordSchema) }), ...errors } },
    handler: async (request, reply) => {
      const r = admin.releases.addReleases(request.body, actorOf(request));
      return reply.code(r.created ? 201 : 200).send({ releases: r.releases.map(releaseRecord) });
    },
  });

  app.get('/api/v1/releases', {
    schema: { summary: 'List releases, sorted by version then arch, paginated', tags: ['releases'], querystring: ReleaseListQuery, response: { 200: Type.Object({ releases: Type.Array(ReleaseRecordSchema), nextCursor: Type.Optional(Type.String()) }), 400: ErrorSchema } },
    handler: async (request) => queries.releases(request.query as { arch?: string; channel?: string; version?: string; limit?: number; cursor?: string }),
  });

  app.get('/api/v1/releases/:arch/:version', {
    schema: { summary: 'One release with its channels and risks', tags: ['releases'], params: ReleaseParams, response: { 404: ErrorSchema } },
    handler: async (request) => {
      const { arch, version } = request.params as { arch: string; version: string };
      return queries.release(arch, version);
    },
  });

  app.delete('/api/v1/releases/:arch/:version', {
    preValidation: requireScope(tokens, 'releases:write'),
    schema: { summary: 'Delete a release', tags: ['releases'], security, params: ReleaseParams, querystring: ReasonQuery, response: { 200: Type.Object({ deleted: ReleaseRecordSchema }), ...errors } },
    handler: async (request) => {
      const { arch, version } = request.params as { arch: string; version: string };
      const deleted = admin.releases.deleteRelease(arch, version, actorOf(request), (request.query as { reason?: string }).reason ?? null);
      return { deleted: releaseRecord(deleted) };
    },
  });

  // ---- channels, public and internal
  for (const [kind, base, params] of [
    ['public', '/api/v1/channels', ChannelNameParams],
    ['internal', '/api/v1/internal-channels', InternalChannelParams],
  ] as const) {
    const tag = kind === 'public' ? 'channels' : 'internal channels';

    app.get(base, {
      schema: { summary: `List ${tag}`, tags: [tag], response: { 200: Type.Object({ channels: Type.Array(ChannelDoc) }) } },
      handler: async () => ({ channels: queries.channels(kind) }),
    });
    app.get(`${base}/:name`, {
      schema: { summary: `One ${kind} channel with the time each version entered it`, tags: [tag], params, response: { 200: ChannelDoc, 404: ErrorSchema } },
      handler: async (request) => queries.channel(kind, (request.params as { name: string }).name),
    });
    app.put(`${base}/:name`, {
      preValidation: requireScope(tokens, 'channels:write'),
      schema: { summary: `Create or replace a ${kind} channel (versions, feeder, tombstones)`, tags: [tag], security, params, body: ChannelBody, response: { 200: ChannelDoc, 201: ChannelDoc, ...errors } },
      handler: async (request, reply) => {
        const { name } = request.params as { name: string };
        const r = admin.channels.putChannel(kind, name, request.body as ChannelBody, actorOf(request));
        return reply.code(r.created ? 201 : 200).send(queries.channel(kind, name));
      },
    });
    app.post(`${base}/:name/versions`, {
      preValidation: requireScope(tokens, 'channels:write'),
      schema: {
        summary: `Promote a version into a ${kind} channel, following its feeder`,
        description: 'Refused with 409 naming the rule (release, tombstone, feeder.source, feeder.filter, feeder.delay, feeder.errata) unless force with a reason. dryRun=true changes nothing and lists the edges that would appear.',
        tags: [tag],
        security,
        params,
        querystring: DryRunQuery,
        body: PromoteBody,
        response: { 200: PromotionResult, 201: PromotionResult, ...errors },
      },
      handler: async (request, reply) => {
        const { name } = request.params as { name: string };
        const { dryRun } = request.query as { dryRun?: boolean };
        const r = admin.promotion.promote(kind, name, request.body as { version: string; force?: boolean; reason?: string }, actorOf(request), dryRun === true);
        return reply.code(r.changed && !r.dryRun ? 201 : 200).send(r);
      },
    });
    app.delete(`${base}/:name/versions/:version`, {
      preValidation: requireScope(tokens, 'channels:write'),
      schema: { summary: `Withdraw a version from a ${kind} channel (and tombstone it there)`, tags: [tag], security, params: Type.Intersect([params, Type.Object({ version: Type.String() })]), querystring: ReasonQuery, response: { 200: Type.Object({ changed: Type.Boolean() }), ...errors } },
      handler: async (request) => {
        const { name, version } = request.params as { name: string; version: string };
        return admin.promotion.withdraw(kind, name, version, (request.query as { reason?: string }).reason ?? null, actorOf(request));
      },
    });
  }

  // ---- risks
  app.get('/api/v1/risks', {
    schema: { summary: 'List blocked edges: conditional risks and hard blocks', tags: ['risks'] },
    handler: async () => ({ risks: queries.risks() }),
  });
  app.post('/api/v1/risks', {
    attachValidation: true, // classified and validated like a blocked-edges file
    preValidation: requireScope(tokens, 'risks:write'),
    schema: { summary: 'Declare a risk on edges (or a hard block)', tags: ['risks'], security, body: RiskBody, response: { ...errors } },
    handler: async (request, reply) => {
      const { edge, warnings } = admin.risks.addRisk(request.body, actorOf(request));
      return reply.code(201).send({ ...edge, ...(warnings.length && { warnings }) });
    },
  });
  app.delete('/api/v1/risks/:id', {
    preValidation: requireScope(tokens, 'risks:write'),
    schema: { summary: 'Withdraw a risk or a hard block', tags: ['risks'], security, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }), querystring: ReasonQuery, response: { ...errors } },
    handler: async (request) => ({ deleted: admin.risks.deleteRisk((request.params as { id: string }).id, actorOf(request), (request.query as { reason?: string }).reason ?? null) }),
  });

  // ---- audit
  app.get('/api/v1/audit', {
    schema: { summary: 'Who did what, when, with the state before and after (newest first)', tags: ['audit'], querystring: AuditQuery },
    handler: async (request) => ({ entries: queries.audit(request.query as { since?: string; actor?: string; limit?: number }) }),
  });

  // ---- the state as a graph-data tarball, made once per store generation
  app.get('/api/upgrades_info/graph-data', {
    schema: { summary: 'The current state as a graph-data .tar.gz (importable by cincy import)', tags: ['graph'], produces: ['application/gzip'] },
    handler: async (request, reply) => {
      const { bytes, etag } = await queries.graphDataTarball();
      reply.header('content-type', 'application/gzip');
      reply.header('content-disposition', 'attachment; filename="graph-data.tar.gz"');
      reply.header('etag', etag);
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(bytes);
    },
  });
}
