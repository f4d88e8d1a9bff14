// The token verifier of the routes that take a token (app/auth/tokenVerifier.ts), made once from the
// auth settings and the clock, and decorated on the app as `tokens`; the route plugins hand it to the
// bearer hooks of ../auth.ts. No key configured: every route that takes a token answers 401.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { TokenVerifier, type AuthConfig } from '../../app/auth/tokenVerifier.js';
import type { Clock } from '../../clock.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The token verifier (plugins/auth.ts). */
    tokens: TokenVerifier;
  }
}

export interface AuthOptions {
  auth?: AuthConfig;
  /** The clock tokens expire and writes are rate-limited on. */
  clock: Clock;
}

export const authPlugin = fp(async (app: FastifyInstance, opts: AuthOptions) => {
  app.decorate('tokens', new TokenVerifier(opts.auth ?? {}, opts.clock));
});
