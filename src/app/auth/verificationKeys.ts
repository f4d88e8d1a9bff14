// The keys admin tokens are verified with: an HS256 secret file, or a JWKS (a file, or an https URL
// whose keys are fetched and picked by kid, so keys rotate by listing old and new together).
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, type JWTVerifyGetKey } from '#jose';

export const DEFAULT_ISSUER = 'cincy';
export const DEFAULT_AUDIENCE = 'cincy-admin';
const MIN_SECRET_BYTES = 32;

export type VerificationKey = { kind: 'secret'; key: Uint8Array } | { kind: 'jwks'; key: JWTVerifyGetKey };

/** Reads an HS256 secret file, refusing one too short to be safe. */
export function readSecret(file: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`--admin-jwt-secret-file: cannot read ${file}: ${(err as Error).message}`);
  }
  const bytes = new TextEncoder().encode(text);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new Error(
      `--admin-jwt-secret-file: ${file} holds ${bytes.length} bytes; at least ${MIN_SECRET_BYTES} are needed (e.g. openssl rand -hex 32)`,
    );
  }
  return bytes;
}

/** The key of --admin-jwt-secret-file or --admin-jwks; undefined when neither is given. */
export function loadVerificationKey(source: { secretFile?: string; jwks?: string }): VerificationKey | undefined {
  if (source.secretFile && source.jwks)
    throw new Error('give either --admin-jwt-secret-file or --admin-jwks, not both');
  if (source.secretFile) return { kind: 'secret', key: readSecret(source.secretFile) };
  if (!source.jwks) return undefined;
  if (/^https?:\/\//.test(source.jwks)) {
    const url = new URL(source.jwks);
    // Keys fetched in clear text could be swapped on the way; plain http only to this machine.
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !local) throw new Error(`--admin-jwks: ${source.jwks}: use https`);
    return { kind: 'jwks', key: createRemoteJWKSet(url) };
  }
  let jwks: unknown;
  try {
    jwks = JSON.parse(readFileSync(source.jwks, 'utf8'));
  } catch (err) {
    throw new Error(`--admin-jwks: cannot read a JWKS from ${source.jwks}: ${(err as Error).message}`);
  }
  if (!jwks || typeof jwks !== 'object' || !Array.isArray((jwks as { keys?: unknown }).keys)) {
    throw new Error(`--admin-jwks: ${source.jwks} has no "keys" list`);
  }
  return { kind: 'jwks', key: createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]) };
}
