// The signature store layout clusters read: /signatures/sha256=<hex>/signature-<N>, N = 1… then 404,
// also under /api/upgrades_info/signatures/. The signatures are those ingested by POST
// /api/v1/releases/:arch/:version/signatures (api/v1/releases/signatures.ts), never rewritten.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '#typebox';
import { ApiError } from '../../errors.js';
import { ErrorSchema } from '../../schemas/cincinnati.js';
import type { AdminRouteOptions } from './adminRouteOptions.js';
import { noneMatch } from '../graphAnswer.js';

export async function signatureStoreRoutes(
  fastify: FastifyInstance,
  { admin }: Pick<AdminRouteOptions, 'admin'>,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  for (const prefix of ['/signatures', '/api/upgrades_info/signatures']) {
    app.get(`${prefix}/:digest/:name`, {
      schema: {
        summary: 'A signature in the layout of the cluster-version-operator signature store',
        tags: ['signatures'],
        params: Type.Object({
          digest: Type.String({ pattern: '^sha256=[0-9a-f]{64}$' }),
          name: Type.String({ pattern: '^signature-[1-9][0-9]{0,5}$' }),
        }),
        produces: ['application/octet-stream'],
        response: { 304: { type: 'null', description: 'Not modified' }, 404: ErrorSchema },
      },
      handler: async (request, reply) => {
        const { digest, name } = request.params;
        const sig = await admin.queries.signature(digest.replace('=', ':'), Number(name.slice('signature-'.length)));
        if (!sig) throw new ApiError('does_not_exist', `no ${name} for ${digest}`);
        const etag = `"${sig.sha256.slice(0, 32)}"`;
        reply.header('content-type', 'application/octet-stream');
        reply.header('etag', etag);
        reply.header('cache-control', 'public, max-age=86400, immutable'); // never rewritten
        if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
        return reply.send(sig.bytes);
      },
    });
  }
}
