// Authorization of admin writes: a JWT verified with jose (HS256, or RS256/ES256/EdDSA by kid),
// issuer, audience and expiry checked, its other claims checked (tokenClaims.ts), the scope a write
// needs, and the rate limit of its subject. Reads of internal channels and the audit log need a token
// of any scope; other reads are public. The HTTP layer only finds the token in the request and calls this.
import { errors as joseErrors, jwtVerify, type JWTPayload } from '#jose';
import { systemClock, type Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { Scope } from './scopes.js';
import { checkClaims, ClaimError, type VerifiedToken } from './tokenClaims.js';
import { DEFAULT_AUDIENCE, DEFAULT_ISSUER, loadVerificationKey, type VerificationKey } from './verificationKeys.js';
import { RateLimit, type Allowance } from '../rateLimit.js';

export type { VerifiedToken } from './tokenClaims.js';

export interface AuthConfig {
  secretFile?: string;
  jwks?: string;
  issuer?: string;
  audience?: string;
  /** Writes per subject per minute. */
  rateLimit?: number;
}

export interface Authorization {
  token: VerifiedToken;
  allowance: Allowance;
}

export class TokenVerifier {
  private readonly key: VerificationKey | undefined;
  private readonly rateLimit: RateLimit;

  constructor(
    private readonly config: AuthConfig,
    private readonly clock: Clock = systemClock,
  ) {
    this.key = loadVerificationKey(config);
    this.rateLimit = new RateLimit(config.rateLimit ?? 120, clock);
  }

  /** Throws 401 when no key is configured: every admin write is refused then. */
  requireEnabled(): void {
    if (!this.key)
      throw new ApiError(
        'unauthorized',
        'admin writes are disabled: start the server with --admin-jwt-secret-file or --admin-jwks',
      );
  }

  /**
   * Verifies a token, requires `scope` of it, and counts the write against its subject. Throws 401
   * for a token that does not verify or has a bad claim, 403 for a missing scope; an allowance over
   * the limit says so.
   */
  async authorize(token: string, scope: Scope): Promise<Authorization> {
    const verified = await this.authenticate(token);
    if (!verified.scopes.includes(scope)) {
      throw new ApiError(
        'forbidden',
        `token of '${verified.subject}' lacks scope ${scope} (has: ${verified.scopes.join(' ') || 'none'})`,
      );
    }
    return { token: verified, allowance: this.rateLimit.count(verified.subject) };
  }

  /** Verifies a token whatever its scopes (reads that need a token), counted against no limit. Throws 401 like authorize. */
  async authenticate(token: string): Promise<VerifiedToken> {
    this.requireEnabled();
    try {
      return checkClaims(await this.verify(token), Math.floor(this.clock.now() / 1000));
    } catch (err) {
      throw new ApiError('unauthorized', `invalid token: ${tokenError(err)}`);
    }
  }

  private async verify(token: string): Promise<JWTPayload> {
    const options = {
      issuer: this.config.issuer ?? DEFAULT_ISSUER,
      audience: this.config.audience ?? DEFAULT_AUDIENCE,
      currentDate: new Date(this.clock.now()),
    };
    const key = this.key!;
    const { payload } =
      key.kind === 'secret'
        ? await jwtVerify(token, key.key, { ...options, algorithms: ['HS256'] })
        : await jwtVerify(token, key.key, { ...options, algorithms: ['RS256', 'ES256', 'EdDSA'] });
    return payload;
  }
}

function tokenError(err: unknown): string {
  if (err instanceof ClaimError) return err.message;
  if (err instanceof joseErrors.JWTExpired) return 'expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return `claim ${err.claim} ${err.reason === 'check_failed' ? 'does not match' : err.reason}`;
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'no key matches its kid';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm not allowed';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'signature does not verify';
  if (err instanceof joseErrors.JOSEError) return err.code.replace(/^ERR_/, '').toLowerCase().replace(/_/g, ' ');
  return 'malformed';
}
