// The admin REST API under /api/v1: releases, channels (public and internal), risks, audit, and the
// graph-data tarball. Reads are public; every write needs a token with its scope and goes through
// AdminService (validated, one transaction, audited, one rebuild).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AdminService } from '../../app/admin/service.js';
import { ApiError } from '../../errors.js';
import { compareVersions } from '../../graph/version.js';
import type { Release } from '../../graph/model.js';
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
import { exportTarball, releaseRecord } from '../../sources/export.js';
import { channelKind, type ChannelKind } from '../../store/channels.js';
import type { Store } from '../../store/store.js';
import type { TokenVerifier } from '../../app/auth/tokenVerifier.js';
import { actorOf, requireScope } from '../auth.js';
import type { GraphService } from '../../app/graphService.js';
import { signatureDoc } from './signatures.js';
import { noneMatch } from './graph.js';
import { payloadDigest } from '../../graph/model.js';

export interface AdminRouteOptions {
  store: Store;
  graph: GraphService;
  admin: AdminService;
  tokens: TokenVerifier;
}

const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 429: ErrorSchema };
const security = [{ bearerAuth: [] }];

export async function adminRoutes(app: FastifyInstance, opts: AdminRouteOptions): Promise<void> {
  const { store, admin, tokens, graph } = opts;

  // ---- releases
  app.post('/api/v1/releases', {
    attachValidation: true, // AdminService validates, naming body[i].field
    preValidation: requireScope(tokens, 'releases:write'),
    schema: { summary: 'Add one release record or an array of them', tags: ['releases'], security, body: ReleaseBody, response: { 200: Type.Object({ releases: Type.Array(ReleaseRecordSchema) }), 201: Type.Object({ releases: Type.Array(ReleaseRecordSchema) }), ...errors } },
    handler: async (request, reply) => {
      const body = request.body;
      const records = Array.isArray(body) ? body : [body];
      if (records.length === 0) throw new ApiError('invalid_request', 'body: an empty list holds no release');
      const r = admin.addReleases(records, actorOf(request));
      return reply.code(r.created ? 201 : 200).send({ releases: r.releases.map(releaseRecord) });
    },
  });

  app.get('/api/v1/releases', {
    schema: { summary: 'List releases, sorted by version then arch, paginated', tags: ['releases'], querystring: ReleaseListQuery, response: { 200: Type.Object({ releases: Type.Array(ReleaseRecordSchema), nextCursor: Type.Optional(Type.String()) }), 400: ErrorSchema } },
    handler: async (request) => {
      const q = request.query as { arch?: string; channel?: string; version?: string; limit?: number; cursor?: string };
      let list = store.releases.all();
      if (q.arch) list = list.filter((r) => r.arch === q.arch);
      if (q.version) {
        const v = q.version;
        list = list.filter((r) => (v.endsWith('*') ? r.version.startsWith(v.slice(0, -1)) : r.version === v));
      }
      if (q.channel) {
        const channel = store.channels.get('public', q.channel) ?? store.channels.get('internal', q.channel);
        if (!channel) throw new ApiError('does_not_exist', `no channel ${q.channel}`);
        const names = new Set(channel.versions);
        list = list.filter((r) => names.has(r.version) || names.has(`${r.version}+${r.arch}`));
      }
      list.sort((a, b) => compareVersions(a.version, b.version) || (a.arch < b.arch ? -1 : a.arch > b.arch ? 1 : 0));
      let start = 0;
      if (q.cursor) {
        const after = decodeCursor(q.cursor);
        start = list.findIndex((r) => compareVersions(r.version, after.version) > 0 || (r.version === after.version && r.arch > after.arch));
        if (start < 0) start = list.length;
      }
      const limit = q.limit ?? 100;
      const page = list.slice(start, start + limit);
      const last = page[page.length - 1];
      return { releases: page.map(releaseRecord), ...(start + limit < list.length && last && { nextCursor: encodeCursor(last) }) };
    },
  });

  app.get('/api/v1/releases/:arch/:version', {
    schema: { summary: 'One release with its channels and risks', tags: ['releases'], params: ReleaseParams, response: { 404: ErrorSchema } },
    handler: async (request) => {
      const { arch, version } = request.params as { arch: string; version: string };
      const release = store.releases.get(arch, version);
      if (!release) throw new ApiError('does_not_exist', `no release ${version} for ${arch}`);
      const channels = [];
      for (const c of store.channels.all()) {
        const entry = [version, `${version}+${arch}`].find((v) => c.versions.includes(v));
        const since = entry && store.channels.memberSince(channelKind(c), c.name, entry);
        if (since) channels.push({ name: c.name, kind: channelKind(c), addedAt: since.toISOString() });
      }
      const risks = store.blockedEdges.all().filter((e) => e.to === version || e.to === `${version}+${arch}`);
      const signatures = store.signatures.list(payloadDigest(release.payload)).map(signatureDoc);
      const withheld = graph.withheld(release);
      return { release: releaseRecord(release), channels, risks, signatures, served: withheld === undefined, ...(withheld && { withheldBecause: withheld }) };
    },
  });

  app.delete('/api/v1/releases/:arch/:version', {
    preValidation: requireScope(tokens, 'releases:write'),
    schema: { summary: 'Delete a release', tags: ['releases'], security, params: ReleaseParams, querystring: ReasonQuery, response: { 200: Type.Object({ deleted: ReleaseRecordSchema }), ...errors } },
    handler: async (request) => {
      const { arch, version } = request.params as { arch: string; version: string };
      const deleted = admin.deleteRelease(arch, version, actorOf(request), (request.query as { reason?: string }).reason ?? null);
      return { deleted: releaseRecord(deleted) };
    },
  });

  // ---- channels, public and internal
  for (const [kind, base, params] of [
    ['public', '/api/v1/channels', ChannelNameParams],
    ['internal', '/api/v1/internal-channels', InternalChannelParams],
  ] as const) {
    const tag = kind === 'public' ? 'channels' : 'internal channels';
    const doc = (name: string): object | undefined => channelDoc(store, kind, name);

    app.get(base, {
      schema: { summary: `List ${tag}`, tags: [tag], response: { 200: Type.Object({ channels: Type.Array(ChannelDoc) }) } },
      handler: async () => ({ channels: store.channels.all().filter((c) => c.internal === (kind === 'internal')).map((c) => doc(c.name)) }),
    });
    app.get(`${base}/:name`, {
      schema: { summary: `One ${kind} channel with the time each version entered it`, tags: [tag], params, response: { 200: ChannelDoc, 404: ErrorSchema } },
      handler: async (request) => {
        const { name } = request.params as { name: string };
        const d = doc(name);
        if (!d) throw new ApiError('does_not_exist', `no ${kind} channel ${name}`);
        return d;
      },
    });
    app.put(`${base}/:name`, {
      preValidation: requireScope(tokens, 'channels:write'),
      schema: { summary: `Create or replace a ${kind} channel (versions, feeder, tombstones)`, tags: [tag], security, params, body: ChannelBody, response: { 200: ChannelDoc, 201: ChannelDoc, ...errors } },
      handler: async (request, reply) => {
        const { name } = request.params as { name: string };
        const body = request.body as ChannelBody;
        const problems = admin.channelProblems(name, body);
        if (problems) throw problems;
        const r = admin.putChannel(kind, name, body, actorOf(request));
        return reply.code(r.created ? 201 : 200).send(doc(name));
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
        const r = admin.promote(kind, name, request.body as { version: string; force?: boolean; reason?: string }, actorOf(request), dryRun === true);
        return reply.code(r.changed && !r.dryRun ? 201 : 200).send(r);
      },
    });
    app.delete(`${base}/:name/versions/:version`, {
      preValidation: requireScope(tokens, 'channels:write'),
      schema: { summary: `Withdraw a version from a ${kind} channel (and tombstone it there)`, tags: [tag], security, params: Type.Intersect([params, Type.Object({ version: Type.String() })]), querystring: ReasonQuery, response: { 200: Type.Object({ changed: Type.Boolean() }), ...errors } },
      handler: async (request) => {
        const { name, version } = request.params as { name: string; version: string };
        return admin.withdraw(kind, name, version, (request.query as { reason?: string }).reason ?? null, actorOf(request));
      },
    });
  }

  // ---- risks
  app.get('/api/v1/risks', {
    schema: { summary: 'List blocked edges: conditional risks and hard blocks', tags: ['risks'] },
    handler: async () => ({ risks: store.blockedEdges.all() }),
  });
  app.post('/api/v1/risks', {
    attachValidation: true, // classified and validated like a blocked-edges file
    preValidation: requireScope(tokens, 'risks:write'),
    schema: { summary: 'Declare a risk on edges (or a hard block)', tags: ['risks'], security, body: RiskBody, response: { ...errors } },
    handler: async (request, reply) => {
      if (!request.body || typeof request.body !== 'object' || Array.isArray(request.body)) throw new ApiError('invalid_request', 'body: a JSON object is expected');
      const { edge, warnings } = admin.addRisk(request.body as Record<string, unknown>, actorOf(request));
      return reply.code(201).send({ ...edge, ...(warnings.length && { warnings }) });
    },
  });
  app.delete('/api/v1/risks/:id', {
    preValidation: requireScope(tokens, 'risks:write'),
    schema: { summary: 'Withdraw a risk or a hard block', tags: ['risks'], security, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }), querystring: ReasonQuery, response: { ...errors } },
    handler: async (request) => ({ deleted: admin.deleteRisk((request.params as { id: string }).id, actorOf(request), (request.query as { reason?: string }).reason ?? null) }),
  });

  // ---- audit
  app.get('/api/v1/audit', {
    schema: { summary: 'Who did what, when, with the state before and after (newest first)', tags: ['audit'], querystring: AuditQuery },
    handler: async (request) => {
      const q = request.query as { since?: string; actor?: string; limit?: number };
      const since = q.since === undefined ? undefined : new Date(q.since);
      if (since && Number.isNaN(since.getTime())) throw new ApiError('invalid_params', `invalid client parameters: since '${q.since}' is not a time`);
      return { entries: store.audit.list({ ...q, since: since?.toISOString() }) };
    },
  });

  // ---- the state as a graph-data tarball, made once per store generation
  let tarball: { generation: number; made: Promise<{ bytes: Buffer; etag: string }> } | undefined;
  app.get('/api/upgrades_info/graph-data', {
    schema: { summary: 'The current state as a graph-data .tar.gz (importable by cincy import)', tags: ['graph'], produces: ['application/gzip'] },
    handler: async (request, reply) => {
      if (tarball?.generation !== store.generation) tarball = { generation: store.generation, made: exportTarball(store) };
      const { bytes, etag } = await tarball.made;
      reply.header('content-type', 'application/gzip');
      reply.header('content-disposition', 'attachment; filename="graph-data.tar.gz"');
      reply.header('etag', etag);
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(bytes);
    },
  });
}

function channelDoc(store: Store, kind: ChannelKind, name: string): object | undefined {
  const c = store.channels.get(kind, name);
  if (!c) return undefined;
  return { name: c.name, kind, versions: store.channels.members(kind, name), ...(c.feeder && { feeder: c.feeder }), tombstones: c.tombstones };
}

const encodeCursor = (r: Release): string => Buffer.from(JSON.stringify([r.version, r.arch])).toString('base64url');
function decodeCursor(cursor: string): { version: string; arch: string } {
  try {
    const [version, arch] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof version === 'string' && typeof arch === 'string' && compareVersions(version, version) === 0) return { version, arch };
  } catch {
    // fall through to the error below
  }
  throw new ApiError('invalid_params', 'invalid client parameters: cursor is not one this server gave');
}
