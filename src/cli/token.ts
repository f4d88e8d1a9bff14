// `cincy token create`: mint an admin token for local use, HS256 with the server's secret file or
// signed with a private JWK whose public half is in the server's --admin-jwks.
import { readFileSync } from 'node:fs';
import { importJWK, SignJWT, type JWK } from '#jose';
import { CLUSTER_CLAIM, isValidSubject, MAX_LIFETIME_SECONDS, SUBJECT_RULE } from '../app/auth/tokenClaims.js';
import { CLUSTER_ID_PATTERN } from '../schemas/clusterId.js';
import { DEFAULT_AUDIENCE, DEFAULT_ISSUER, readSecret } from '../app/auth/verificationKeys.js';
import { parseSingleUnitDuration } from '../duration.js';
import { SCOPES } from '../app/auth/scopes.js';

export interface TokenOptions {
  adminJwtSecretFile?: string;
  privateKey?: string;
  scope: string;
  ttl: string;
  /** Default: $USER, or `cluster:<id>` for a report token (so each cluster is its own rate-limit subject). */
  subject?: string;
  clusterId?: string;
  issuer?: string;
  audience?: string;
}

/** `90s`, `30m`, `1h`, `7d`, or plain seconds; at most the longest lifetime the server accepts. */
function parseTtl(text: string): number {
  const ms = parseSingleUnitDuration(text);
  if (!ms) throw new Error(`--ttl: '${text}' is not a duration such as 30m, 1h or 7d`);
  const seconds = ms / 1000;
  if (seconds > MAX_LIFETIME_SECONDS)
    throw new Error(`--ttl: '${text}' is longer than a token may live (${MAX_LIFETIME_SECONDS / 86400}d at most)`);
  return seconds;
}

export async function createToken(opts: TokenOptions, now = new Date()): Promise<string> {
  const scopes = opts.scope.split(/[\s,]+/).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length)
    throw new Error(
      `--scope: ${unknown.length ? `unknown scope ${unknown.join(', ')}` : 'none given'} (known: ${SCOPES.join(', ')})`,
    );
  const cluster = clusterClaim(scopes, opts.clusterId);
  const seconds = parseTtl(opts.ttl);
  const subject =
    opts.subject ?? (cluster[CLUSTER_CLAIM] ? `cluster:${cluster[CLUSTER_CLAIM]}` : (process.env.USER ?? 'admin'));
  if (!isValidSubject(subject)) throw new Error(`--subject: '${subject}' is not ${SUBJECT_RULE}`);
  const iat = Math.floor(now.getTime() / 1000);
  const jwt = new SignJWT({ scope: scopes.join(' '), ...cluster })
    .setSubject(subject)
    .setIssuer(opts.issuer ?? DEFAULT_ISSUER)
    .setAudience(opts.audience ?? DEFAULT_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + seconds);
  if (opts.adminJwtSecretFile && opts.privateKey)
    throw new Error('give either --admin-jwt-secret-file or --private-key, not both');
  if (opts.adminJwtSecretFile)
    return jwt.setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(readSecret(opts.adminJwtSecretFile));
  if (!opts.privateKey)
    throw new Error(
      '--admin-jwt-secret-file (or CINCY_ADMIN_JWT_SECRET_FILE, which serve reads too) or --private-key is required',
    );
  const jwk = JSON.parse(readFileSync(opts.privateKey, 'utf8')) as JWK;
  const alg = jwk.alg ?? (jwk.kty === 'RSA' ? 'RS256' : jwk.kty === 'EC' ? 'ES256' : 'EdDSA');
  return jwt.setProtectedHeader({ alg, typ: 'JWT', ...(jwk.kid && { kid: jwk.kid }) }).sign(await importJWK(jwk, alg));
}

/**
 * The claim binding a report token to its cluster: a fleet:report token is handed to one cluster, so it
 * names that cluster and carries no other scope; a cluster id on any other token is a mistake.
 */
function clusterClaim(scopes: string[], clusterId: string | undefined): Record<string, string> {
  const reports = scopes.includes('fleet:report');
  if (!reports) {
    if (clusterId !== undefined) throw new Error('--cluster-id: only a token of --scope fleet:report names a cluster');
    return {};
  }
  if (scopes.length > 1)
    throw new Error(
      `--scope: fleet:report is a cluster's own token; give it no other scope (got: ${scopes.join(', ')})`,
    );
  if (clusterId === undefined) throw new Error('--cluster-id is required with --scope fleet:report');
  if (!new RegExp(CLUSTER_ID_PATTERN).test(clusterId))
    throw new Error(`--cluster-id: '${clusterId.slice(0, 80)}' is not a cluster id (a UUID, as spec.clusterID holds)`);
  return { [CLUSTER_CLAIM]: clusterId.toLowerCase() };
}
