// Release signatures: ingest (verified against the trust store, then stored for good), and the
// signature store layout clusters read: /signatures/sha256=<hex>/signature-<N>, N = 1… then 404.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import { ReleaseParams, SignatureDoc } from '../../schemas/admin.js';
import { ErrorSchema } from '../../schemas/cincinnati.js';
import { MAX_SIGNATURE_BYTES } from '../../signatures/verify.js';
import { actorOf, requireScope } from '../auth.js';
import { BEARER_AUTH, type AdminRouteOptions } from './adminRouteOptions.js';
import { noneMatch } from '../graphAnswer.js';

const SIGNATURE_BODY_TYPES = [
  'application/octet-stream',
  'application/jose',
  'application/jose+json',
  'application/pgp-signature',
  'text/plain',
];

export async function signatureRoutes(fastify: FastifyInstance, { admin, tokens }: AdminRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Signature bodies are bytes, kept exactly as sent, JSON ones too (in this plugin only). The limit is
  // looser than a signature's so that verification answers too_large with a 400.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    [...SIGNATURE_BODY_TYPES, 'application/json'],
    { parseAs: 'buffer', bodyLimit: 16 * MAX_SIGNATURE_BYTES },
    (_req, body, done) => done(null, body),
  );

  app.post('/api/v1/releases/:arch/:version/signatures', {
    config: { accepts: [...SIGNATURE_BODY_TYPES, 'application/json'] },
    onRequest: requireScope(tokens, 'releases:write'),
    schema: {
      summary: "Add a signature of a release's payload (a JWS, or an OpenPGP signed message as OpenShift publishes)",
      description:
        `Body: the signature bytes (${SIGNATURE_BODY_TYPES.join(', ')}, or application/json for a JWS in JSON serialization), ` +
        'stored exactly as sent. 201 when it verifies and is new, 200 when it is stored already, 400 invalid_signature naming the reason otherwise.',
      tags: ['signatures'],
      security: BEARER_AUTH,
      params: ReleaseParams,
      response: {
        200: SignatureDoc,
        201: SignatureDoc,
        400: ErrorSchema,
        401: ErrorSchema,
        403: ErrorSchema,
        404: ErrorSchema,
      },
    },
    handler: async (request, reply) => {
      const { arch, version } = request.params;
      const bytes = Buffer.isBuffer(request.body) ? request.body : undefined;
      if (!bytes)
        throw new ApiError(
          'invalid_request',
          `body: the signature bytes, sent as one of ${SIGNATURE_BODY_TYPES.join(', ')}`,
        );
      const { signature, added } = await admin.signatures.addSignature(arch, version, bytes, actorOf(request));
      return reply.code(added ? 201 : 200).send(signature);
    },
  });

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
