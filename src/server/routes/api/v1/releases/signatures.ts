// POST /api/v1/releases/:arch/:version/signatures: a signature of a release's payload, ingested
// (verified against the trust store, then stored for good) as the bytes sent, JSON ones too: this
// plugin replaces the JSON body parser in its own context only. Clusters read the signatures stored
// from the signature store layout (routes/signatures.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../../../errors.js';
import { ReleaseParams, SignatureDoc } from '../../../../../schemas/admin.js';
import { ErrorSchema } from '../../../../../schemas/cincinnati.js';
import { MAX_SIGNATURE_BYTES } from '../../../../../signatures/verify.js';
import { actorOf, requireScope } from '../../../../auth.js';
import { BEARER_AUTH, type AdminRouteOptions } from '../../../adminRouteOptions.js';

const SIGNATURE_BODY_TYPES = [
  'application/octet-stream',
  'application/jose',
  'application/jose+json',
  'application/pgp-signature',
  'text/plain',
];

export async function signatureIngestRoutes(
  fastify: FastifyInstance,
  { admin, tokens }: AdminRouteOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Signature bodies are bytes, kept exactly as sent, JSON ones too (in this plugin only). The limit is
  // looser than a signature's so that verification answers too_large with a 400; it is the route's too,
  // so that a 413 names it.
  const bodyLimit = 16 * MAX_SIGNATURE_BYTES;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    [...SIGNATURE_BODY_TYPES, 'application/json'],
    { parseAs: 'buffer', bodyLimit },
    (_req, body, done) => done(null, body),
  );

  app.post('/:arch/:version/signatures', {
    bodyLimit,
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
}
