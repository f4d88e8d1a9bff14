// What the admin route plugins share: the services they call, the token verifier their writes go
// through, the error responses and security scheme every write documents, and how an answer already
// serialized is sent.
import type { FastifyReply } from 'fastify';
import type { AdminServices } from '../../app/admin/services.js';
import type { TokenVerifier } from '../../app/auth/tokenVerifier.js';
import { ErrorSchema } from '../../schemas/cincinnati.js';

export interface AdminRouteOptions {
  admin: AdminServices;
  tokens: TokenVerifier;
}

export const WRITE_ERRORS = {
  400: ErrorSchema,
  401: ErrorSchema,
  403: ErrorSchema,
  404: ErrorSchema,
  409: ErrorSchema,
  429: ErrorSchema,
};
export const BEARER_AUTH = [{ bearerAuth: [] }];

/** Sends a JSON answer already serialized; the route's response schema documents it but does not run. */
export const sendJson = (reply: FastifyReply, json: Buffer): FastifyReply =>
  reply.type('application/json; charset=utf-8').send(json);
