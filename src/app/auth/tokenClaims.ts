// The claims of an admin token that its signature, issuer, audience and expiry (checked by jose) do
// not cover: who it speaks for (sub), when it was issued (iat), how long it lives (exp) and what it
// may do (scope or scp). Each is required where it must be and checked for type and bounds, so a
// token that verified can fail only with a 401 naming the claim, never with an error of the server.
import type { JWTPayload } from '#jose';
import { CONTROL_CHARACTER } from '../../controlCharacters.js';
import { CLUSTER_ID_PATTERN } from '../../schemas/clusterId.js';

export const MAX_SUBJECT_LENGTH = 256;
/** The longest a token may live, exp − iat: a leap year. `cincy token create --ttl` has the same cap. */
export const MAX_LIFETIME_SECONDS = 366 * 86400;
/** How far ahead of this server's clock an issuer's clock may run. */
export const CLOCK_SKEW_SECONDS = 60;

export const SUBJECT_RULE = `a string of 1 to ${MAX_SUBJECT_LENGTH} characters without control characters`;

/** The claim that binds a token to one cluster: the only cluster whose reports it may send (scope fleet:report). */
export const CLUSTER_CLAIM = 'cluster_id';
const CLUSTER_ID = new RegExp(CLUSTER_ID_PATTERN);

/** Who a verified token speaks for, and what it may do. */
export interface VerifiedToken {
  subject: string;
  scopes: string[];
  /** The one cluster it may report for (lower case), when it is bound to one. */
  clusterId?: string;
}

/** A claim a token lacks, or holds in a shape or with a value it may not have. */
export class ClaimError extends Error {
  constructor(
    readonly claim: string,
    reason: string,
  ) {
    super(`claim ${claim} ${reason}`);
  }
}

/** Whether `value` may be a token's subject (and so an audit actor and a rate-limit key). */
export function isValidSubject(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_SUBJECT_LENGTH &&
    !CONTROL_CHARACTER.test(value)
  );
}

/** The subject and scopes of a token whose signature verified; throws ClaimError for the first bad claim. */
export function checkClaims(payload: JWTPayload, nowSeconds: number): VerifiedToken {
  if (!isValidSubject(payload.sub)) throw new ClaimError('sub', `must be ${SUBJECT_RULE}`);
  const iat = numericDate(payload, 'iat');
  if (iat > nowSeconds + CLOCK_SKEW_SECONDS)
    throw new ClaimError('iat', `is in the future (more than ${CLOCK_SKEW_SECONDS} s ahead of the server's clock)`);
  const exp = numericDate(payload, 'exp');
  if (exp - iat > MAX_LIFETIME_SECONDS)
    throw new ClaimError(
      'exp',
      `is more than ${MAX_LIFETIME_SECONDS / 86400} days after iat (the longest a token may live)`,
    );
  const scopes = scopesOf(payload);
  const cluster = payload[CLUSTER_CLAIM];
  if (cluster !== undefined && (typeof cluster !== 'string' || !CLUSTER_ID.test(cluster)))
    throw new ClaimError(CLUSTER_CLAIM, 'must be a cluster id (a UUID)');
  // A cluster's token lives in that cluster: it may report, and nothing else.
  if (cluster !== undefined && (scopes.length !== 1 || scopes[0] !== 'fleet:report'))
    throw new ClaimError(CLUSTER_CLAIM, 'is only for a token whose one scope is fleet:report');
  return { subject: payload.sub, scopes, ...(cluster && { clusterId: cluster.toLowerCase() }) };
}

/** A required NumericDate claim: seconds since 1970. */
function numericDate(payload: JWTPayload, claim: 'iat' | 'exp'): number {
  const value = payload[claim];
  if (value === undefined) throw new ClaimError(claim, 'is required');
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ClaimError(claim, 'must be a number (seconds since 1970)');
  return value;
}

/**
 * Scopes from `scope`, else `scp`: a string of scopes separated by spaces (or commas), or a list of
 * strings. A claim present in another shape is refused rather than read as no scope.
 */
function scopesOf(payload: JWTPayload): string[] {
  for (const claim of ['scope', 'scp'] as const) {
    const value = payload[claim];
    if (value !== undefined && !isScopeShape(value))
      throw new ClaimError(claim, 'must be a string of space-separated scopes or a list of strings');
  }
  const scope = (payload.scope ?? payload.scp) as string | string[] | undefined;
  if (typeof scope === 'string') return scope.split(/[\s,]+/).filter(Boolean);
  return scope ?? [];
}

const isScopeShape = (value: unknown): value is string | string[] =>
  typeof value === 'string' || (Array.isArray(value) && value.every((s) => typeof s === 'string'));
