// /api/v1/releases: add release records (one or a list, all or nothing), list them, read and delete one.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '#typebox';
import {
  ReasonQuery,
  ReleaseBody,
  ReleaseDetail,
  ReleaseList,
  ReleaseListQuery,
  ReleaseParams,
} from '../../../../../schemas/admin.js';
import { ErrorSchema } from '../../../../../schemas/cincinnati.js';
import { ReleaseRecordSchema } from '../../../../../schemas/graphData.js';
import { actorOf, requireScope } from '../../../../auth.js';
import { BEARER_AUTH, WRITE_ERRORS, sendJson, type AdminRouteOptions } from '../../../adminRouteOptions.js';

const ReleasesAdded = Type.Object({
  releases: Type.Array(ReleaseRecordSchema),
  counts: Type.Object(
    { added: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer() },
    { description: 'records stored new, records whose metadata changed, records already stored as sent' },
  ),
});
/** A list of release records may be large; only an authorized writer's body is read (the token is checked first). */
const RELEASE_LIST_BODY_LIMIT = 8 * 1024 * 1024;

export async function releaseRecordRoutes(
  fastify: FastifyInstance,
  { admin, tokens }: AdminRouteOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('', {
    attachValidation: true, // the release service validates, naming body[i].field
    bodyLimit: RELEASE_LIST_BODY_LIMIT,
    onRequest: requireScope(tokens, 'releases:write'),
    schema: {
      summary: 'Add one release record or an array of them',
      description: '201 when at least one record is new; 200 when every record was stored already.',
      tags: ['releases'],
      security: BEARER_AUTH,
      body: ReleaseBody,
      response: { 200: ReleasesAdded, 201: ReleasesAdded, ...WRITE_ERRORS },
    },
    handler: async (request, reply) => {
      const r = await admin.releases.addReleases(request.body, actorOf(request));
      return reply.code(r.counts.added > 0 ? 201 : 200).send(r);
    },
  });

  app.get('', {
    schema: {
      summary: 'List releases, sorted by version then arch, paginated',
      tags: ['releases'],
      querystring: ReleaseListQuery,
      response: { 200: ReleaseList, 400: ErrorSchema },
    },
    handler: async (request, reply) => sendJson(reply, await admin.queries.releases(request.query)),
  });

  app.get('/:arch/:version', {
    schema: {
      summary: 'One release with its channels and risks',
      tags: ['releases'],
      params: ReleaseParams,
      response: { 200: ReleaseDetail, 404: ErrorSchema },
    },
    handler: async (request) => admin.queries.release(request.params.arch, request.params.version),
  });

  app.delete('/:arch/:version', {
    onRequest: requireScope(tokens, 'releases:write'),
    schema: {
      summary: 'Delete a release',
      tags: ['releases'],
      security: BEARER_AUTH,
      params: ReleaseParams,
      querystring: ReasonQuery,
      response: { 200: Type.Object({ deleted: ReleaseRecordSchema }), ...WRITE_ERRORS },
    },
    handler: async (request) => {
      const { arch, version } = request.params;
      return {
        deleted: await admin.releases.deleteRelease(arch, version, actorOf(request), request.query.reason ?? null),
      };
    },
  });
}
