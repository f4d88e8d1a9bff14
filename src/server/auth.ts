// The HTTP side of admin authorization: hooks, run on the request's headers before any byte of its
// body is read, that find the Bearer token, have the token verifier check it (for a write, the
// route's scope, with the rate-limit headers in the answer; for a protected read, any valid token).
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Actor } from '../app/admin/writes.js';
import type { TokenVerifier, VerifiedToken } from '../app/auth/tokenVerifier.js';
import type { Allowance } from '../app/rateLimit.js';
import { ApiError } from '../errors.js';
import type { Scope } from '../app/auth/scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    verifiedToken?: VerifiedToken;
  }
}

/** A write: the token must verify and carry `scope`; the write counts against its subject's rate limit. */
export function requireScope(tokens: TokenVerifier, scope: Scope): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    tokens.requireEnabled();
    const { token, allowance } = await tokens.authorize(bearerToken(request), scope);
    request.verifiedToken = token;
    reply.header('x-ratelimit-limit', allowance.limit);
    reply.header('x-ratelimit-remaining', allowance.remaining);
    refuseOverLimit(allowance, reply);
  };
}

/** Answers 429 with Retry-After when `allowance` is over its limit; nothing otherwise. */
export function refuseOverLimit(allowance: Allowance, reply: FastifyReply): void {
  if (!allowance.refused) return;
  reply.header('retry-after', allowance.refused.retryAfterSeconds);
  throw allowance.refused.error;
}

/** A read that is not public (internal channels, the audit log): any token that verifies, whatever its scopes. */
export function requireToken(tokens: TokenVerifier): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    tokens.requireEnabled();
    const token = await tokens.authenticate(bearerToken(request));
    if (isReportToken(token))
      throw new ApiError('forbidden', `token of '${token.subject}' is a cluster's report token: it reads nothing`);
    request.verifiedToken = token;
  };
}

/** A read of what is sensitive (the fleet: cluster ids): the token must verify and carry `scope`; no rate limit. */
export function requireReadScope(tokens: TokenVerifier, scope: Scope): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    tokens.requireEnabled();
    const token = await tokens.authenticate(bearerToken(request));
    if (isReportToken(token))
      throw new ApiError('forbidden', `token of '${token.subject}' is a cluster's report token: it reads nothing`);
    if (!token.scopes.includes(scope))
      throw new ApiError(
        'forbidden',
        `token of '${token.subject}' lacks scope ${scope} (has: ${token.scopes.join(' ') || 'none'})`,
      );
    request.verifiedToken = token;
  };
}

/** A cluster's report token lives in that cluster: it sends its reports and reads nothing. */
const isReportToken = (token: VerifiedToken): boolean =>
  token.clusterId !== undefined || token.scopes.includes('fleet:report');

function bearerToken(request: FastifyRequest): string {
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!m) throw new ApiError('unauthorized', 'missing bearer token (Authorization: Bearer <JWT>)');
  return m[1]!;
}

/** Who a write is audited as: the subject of the token the hook verified. */
export function actorOf(request: FastifyRequest): Actor {
  return { subject: request.verifiedToken!.subject };
}
