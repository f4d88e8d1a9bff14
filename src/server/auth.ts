// Authorization of admin writes: a Bearer JWT verified with jose (HS256 from a secret file, or
// RS256/ES256/EdDSA from a JWKS file or URL with kid rotation), issuer, audience and expiry checked,
// scopes required per route, and a per-subject rate limit. Reads stay public.
import { readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Scope } from '../schemas/admin.js';

export const DEFAULT_ISSUER = 'cincy';
export const DEFAULT_AUDIENCE = 'cincy-admin';
export const MIN_SECRET_BYTES = 32;

export interface AuthConfig {
  secretFile?: string;
  jwks?: string;
  issuer?: string;
  audience?: string;
  /** Writes per subject per minute. */
  rateLimit?: number;
}

export interface Actor {
  subject: string;
  scopes: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
}

/** Reads an HS256 secret file, refusing one too short to be safe. */
export function readSecret(file: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`--admin-jwt-secret-file: cannot read ${file}: ${(err as Error).message}`);
  }
  const bytes = new TextEncoder().encode(text);
  if (bytes.length < MIN_SECRET_BYTES) throw new Error(`--admin-jwt-secret-file: ${file} holds ${bytes.length} bytes; at least ${MIN_SECRET_BYTES} are needed (e.g. openssl rand -hex 32)`);
  return bytes;
}

type Key = { kind: 'secret'; key: Uint8Array } | { kind: 'jwks'; key: JWTVerifyGetKey };

function loadKey(config: AuthConfig): Key | undefined {
  if (config.secretFile && config.jwks) throw new Error('give either --admin-jwt-secret-file or --admin-jwks, not both');
  if (config.secretFile) return { kind: 'secret', key: readSecret(config.secretFile) };
  if (!config.jwks) return undefined;
  if (/^https?:\/\//.test(config.jwks)) {
    const url = new URL(config.jwks);
    // Keys fetched in clear text could be swapped on the way; plain http only to this machine.
    if (url.protocol !== 'https:' && !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) throw new Error(`--admin-jwks: ${config.jwks}: use https`);
    return { kind: 'jwks', key: createRemoteJWKSet(url) };
  }
  let jwks: unknown;
  try {
    jwks = JSON.parse(readFileSync(config.jwks, 'utf8'));
  } catch (err) {
    throw new Error(`--admin-jwks: cannot read a JWKS from ${config.jwks}: ${(err as Error).message}`);
  }
  if (!jwks || typeof jwks !== 'object' || !Array.isArray((jwks as { keys?: unknown }).keys)) throw new Error(`--admin-jwks: ${config.jwks} has no "keys" list`);
  return { kind: 'jwks', key: createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]) };
}

export class Authorizer {
  private readonly key: Key | undefined;
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly config: AuthConfig, private readonly clock: Clock) {
    this.key = loadKey(config);
  }

  async verify(token: string): Promise<JWTPayload> {
    const options = {
      issuer: this.config.issuer ?? DEFAULT_ISSUER,
      audience: this.config.audience ?? DEFAULT_AUDIENCE,
      currentDate: new Date(this.clock.now()),
      requiredClaims: ['exp', 'sub'],
    };
    const key = this.key!;
    const { payload } =
      key.kind === 'secret'
        ? await jwtVerify(token, key.key, { ...options, algorithms: ['HS256'] })
        : await jwtVerify(token, key.key, { ...options, algorithms: ['RS256', 'ES256', 'EdDSA'] });
    return payload;
  }

  /** A hook, run before the body is validated, that lets the request through only with a valid token carrying `scope`. */
  require(scope: Scope): preValidationAsyncHookHandler {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      if (!this.key) throw new ApiError('unauthorized', 'admin writes are disabled: start the server with --admin-jwt-secret-file or --admin-jwks');
      const header = request.headers.authorization ?? '';
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (!m) throw new ApiError('unauthorized', 'missing bearer token (Authorization: Bearer <JWT>)');
      let payload: JWTPayload;
      try {
        payload = await this.verify(m[1]!);
      } catch (err) {
        throw new ApiError('unauthorized', `invalid token: ${tokenError(err)}`);
      }
      const scopes = scopesOf(payload);
      const actor = { subject: String(payload.sub), scopes };
      request.actor = actor;
      if (!scopes.includes(scope)) throw new ApiError('forbidden', `token of '${actor.subject}' lacks scope ${scope} (has: ${scopes.join(' ') || 'none'})`);
      this.limit(actor.subject, reply);
    };
  }

  /** A fixed one-minute window per subject; the subject is known only once the token verified. */
  private limit(subject: string, reply: FastifyReply): void {
    const max = this.config.rateLimit ?? 120;
    const now = this.clock.now();
    let w = this.windows.get(subject);
    if (!w || now - w.start >= 60_000) this.windows.set(subject, (w = { start: now, count: 0 }));
    w.count += 1;
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - w.count));
    if (w.count > max) {
      reply.header('retry-after', Math.ceil((w.start + 60_000 - now) / 1000));
      throw new ApiError('rate_limited', `more than ${max} writes in a minute by '${subject}'`);
    }
  }
}

export function scopesOf(payload: JWTPayload): string[] {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === 'string') return scope.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === 'string');
  return [];
}

function tokenError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `claim ${err.claim} ${err.reason === 'check_failed' ? 'does not match' : err.reason}`;
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'no key matches its kid';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm not allowed';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'signature does not verify';
  if (err instanceof joseErrors.JOSEError) return err.code.replace(/^ERR_/, '').toLowerCase().replace(/_/g, ' ');
  return 'malformed';
}
