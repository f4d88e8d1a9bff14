// Verifies a release signature: a JWS (compact or JSON serialization) against the JWKS keys of the
// trust store, or an OpenPGP signed message (what OpenShift publishes) against its armored keys. The
// signed content must be an atomic container signature for the release's digest.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactVerify, errors as joseErrors, flattenedVerify, generalVerify, importJWK, type JWK } from 'jose';
import * as openpgp from 'openpgp';
import { checkStatement, StatementError, type Statement } from './statement.js';

export type Envelope = 'jws' | 'openpgp';
export type RefusalReason = 'bad_envelope' | 'unknown_key' | 'bad_signature' | 'key_revoked' | 'key_expired' | 'invalid_statement' | 'wrong_type' | 'digest_mismatch' | 'too_large';

/** The cluster-version-operator reads at most 50 KiB of a signature. */
export const MAX_SIGNATURE_BYTES = 50 * 1024;

export class SignatureRefused extends Error {
  constructor(readonly reason: RefusalReason, message: string) {
    super(message);
  }
}

export interface Verified {
  envelope: Envelope;
  keyId: string;
  statement: Statement;
}

interface JwsKey {
  jwk: JWK & { kid: string };
  /** Statements signed after this time (by their timestamp, else now) are refused: the key was revoked. */
  revokedAfter?: Date;
  /** Likewise, from the key's `exp` (seconds since the epoch, as in a JWT): the key expired. */
  expiresAt?: Date;
}

/** The keys signatures are checked against: JWKS files and armored OpenPGP keys from one folder. */
export class TrustStore {
  constructor(
    readonly jws: JwsKey[],
    readonly pgp: openpgp.PublicKey[],
  ) {}

  static empty(): TrustStore {
    return new TrustStore([], []);
  }

  /**
   * Reads every `*.json` (a JWKS; a key may carry `revokedAfter`, an ISO time, and `exp`, seconds
   * since the epoch) and `*.asc` (armored OpenPGP public keys) of a folder.
   */
  static async load(dir: string): Promise<TrustStore> {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (err) {
      throw new Error(`--trust-keys: cannot read ${dir}: ${(err as Error).message}`);
    }
    const jws: JwsKey[] = [];
    const pgp: openpgp.PublicKey[] = [];
    for (const name of names) {
      const file = join(dir, name);
      if (name.endsWith('.json')) {
        let doc: { keys?: unknown };
        try {
          doc = JSON.parse(readFileSync(file, 'utf8')) as { keys?: unknown };
        } catch (err) {
          throw new Error(`--trust-keys: ${file}: not JSON: ${(err as Error).message}`);
        }
        if (!Array.isArray(doc.keys)) throw new Error(`--trust-keys: ${file}: a JWKS needs a "keys" list`);
        doc.keys.forEach((k: JWK & { revokedAfter?: string; exp?: unknown }, i) => {
          if (typeof k.kid !== 'string' || !k.kid) throw new Error(`--trust-keys: ${file}: keys[${i}].kid: every key needs a kid`);
          if ('d' in k) throw new Error(`--trust-keys: ${file}: keys[${i}]: a private key; trust only public keys`);
          const revokedAfter = k.revokedAfter === undefined ? undefined : new Date(k.revokedAfter);
          if (revokedAfter && Number.isNaN(revokedAfter.getTime())) throw new Error(`--trust-keys: ${file}: keys[${i}].revokedAfter: not a time`);
          if (k.exp !== undefined && typeof k.exp !== 'number') throw new Error(`--trust-keys: ${file}: keys[${i}].exp: seconds since the epoch`);
          const expiresAt = typeof k.exp === 'number' ? new Date(k.exp * 1000) : undefined;
          jws.push({ jwk: k as JWK & { kid: string }, ...(revokedAfter && { revokedAfter }), ...(expiresAt && { expiresAt }) });
        });
      } else if (name.endsWith('.asc')) {
        try {
          pgp.push(...(await openpgp.readKeys({ armoredKeys: readFileSync(file, 'utf8') })));
        } catch (err) {
          throw new Error(`--trust-keys: ${file}: not an armored OpenPGP public key: ${(err as Error).message}`);
        }
      }
    }
    return new TrustStore(jws, pgp);
  }

  get size(): number {
    return this.jws.length + this.pgp.length;
  }
}

/** Checks one signature for a release digest (`sha256:<hex>`); throws SignatureRefused with the reason. */
export async function verifySignature(bytes: Uint8Array, digest: string, trust: TrustStore, now: Date = new Date()): Promise<Verified> {
  if (bytes.length > MAX_SIGNATURE_BYTES) throw new SignatureRefused('too_large', `a signature is at most ${MAX_SIGNATURE_BYTES} bytes; this one is ${bytes.length}`);
  if (bytes.length === 0) throw new SignatureRefused('bad_envelope', 'empty signature');
  const text = Buffer.from(bytes).toString('utf8').trim();
  const verified = /^[\w-]+\.[\w-]*\.[\w-]+$/.test(text) || text.startsWith('{') ? await verifyJws(text, trust, now) : await verifyPgp(bytes, text, trust);
  try {
    return { ...verified, statement: checkStatement(verified.content, digest) } satisfies Verified;
  } catch (err) {
    if (err instanceof StatementError) throw new SignatureRefused(err.reason, err.message);
    throw err;
  }
}

async function verifyJws(text: string, trust: TrustStore, now: Date): Promise<{ envelope: Envelope; keyId: string; content: Uint8Array }> {
  let usedKid = '';
  const getKey = async (header: { kid?: string; alg?: string }): Promise<CryptoKey | Uint8Array> => {
    const key = trust.jws.find((k) => k.jwk.kid === header.kid);
    if (!key) throw new SignatureRefused('unknown_key', header.kid ? `no trusted key has kid '${header.kid}'` : 'the JWS header names no kid');
    usedKid = key.jwk.kid;
    const alg = header.alg ?? key.jwk.alg;
    if (!alg || !['RS256', 'ES256', 'EdDSA'].includes(alg)) throw new SignatureRefused('bad_signature', `algorithm ${String(alg)} is not accepted (RS256, ES256, EdDSA)`);
    return (await importJWK(key.jwk, alg)) as CryptoKey | Uint8Array;
  };
  let content: Uint8Array;
  try {
    if (text.startsWith('{')) {
      const doc = JSON.parse(text) as { signatures?: unknown };
      content = (Array.isArray(doc.signatures) ? await generalVerify(doc as never, getKey) : await flattenedVerify(doc as never, getKey)).payload;
    } else {
      content = (await compactVerify(text, getKey)).payload;
    }
  } catch (err) {
    if (err instanceof SignatureRefused) throw err;
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) throw new SignatureRefused('bad_signature', `the JWS signature of key '${usedKid}' does not verify`);
    if (err instanceof SyntaxError || err instanceof joseErrors.JWSInvalid) throw new SignatureRefused('bad_envelope', `not a valid JWS: ${err.message}`);
    throw new SignatureRefused('bad_signature', `JWS refused: ${(err as Error).message}`);
  }
  const key = trust.jws.find((k) => k.jwk.kid === usedKid)!;
  // A key's end applies to what it signed after that end: by the statement's timestamp, else now.
  const signedAt = signedTime(content) ?? now;
  const when = `this statement is from ${signedAt.toISOString()}`;
  if (key.revokedAfter && signedAt > key.revokedAfter) throw new SignatureRefused('key_revoked', `key '${usedKid}' was revoked after ${key.revokedAfter.toISOString()}; ${when}`);
  if (key.expiresAt && signedAt > key.expiresAt) throw new SignatureRefused('key_expired', `key '${usedKid}' expired at ${key.expiresAt.toISOString()}; ${when}`);
  return { envelope: 'jws', keyId: usedKid, content };
}

/** The statement's optional.timestamp, when it parses. */
function signedTime(content: Uint8Array): Date | undefined {
  try {
    const ts = (JSON.parse(Buffer.from(content).toString('utf8')) as { optional?: { timestamp?: unknown } }).optional?.timestamp;
    return typeof ts === 'number' ? new Date(ts * 1000) : undefined;
  } catch {
    return undefined;
  }
}

async function verifyPgp(bytes: Uint8Array, text: string, trust: TrustStore): Promise<{ envelope: Envelope; keyId: string; content: Uint8Array }> {
  let message: openpgp.Message<Uint8Array>;
  try {
    message = text.startsWith('-----BEGIN PGP MESSAGE-----')
      ? ((await openpgp.readMessage({ armoredMessage: text })) as openpgp.Message<Uint8Array>)
      : await openpgp.readMessage({ binaryMessage: bytes });
  } catch (err) {
    throw new SignatureRefused('bad_envelope', `neither a JWS nor an OpenPGP signed message: ${(err as Error).message}`);
  }
  const signers = message.getSigningKeyIDs().map((id) => id.toHex());
  if (signers.length === 0) throw new SignatureRefused('bad_envelope', 'the OpenPGP message is not signed');
  const keys = trust.pgp.filter((k) => k.getKeys().some((sub) => signers.includes(sub.getKeyID().toHex())));
  if (keys.length === 0) throw new SignatureRefused('unknown_key', `no trusted OpenPGP key has id ${signers.join(', ')}`);
  try {
    const result = await openpgp.verify({ message, verificationKeys: keys, expectSigned: true, format: 'binary' });
    return { envelope: 'openpgp', keyId: result.signatures[0]!.keyID.toHex(), content: result.data };
  } catch (err) {
    const msg = (err as Error).message;
    if (/expired/i.test(msg)) throw new SignatureRefused('key_expired', `OpenPGP key ${signers.join(', ')} had expired when it signed: ${msg}`);
    throw new SignatureRefused('bad_signature', `the OpenPGP signature does not verify: ${msg}`);
  }
}

export interface VerifiedFile {
  digest: string;
  envelope: Envelope;
  keyId: string;
  bytes: Buffer;
}

/** Verifies the signature files of a tree; those that fail become warnings naming the file and the reason. */
export async function verifyTreeSignatures(
  signatures: Array<{ file: string; digest: string; bytes: Buffer }>,
  trust: TrustStore,
  now: Date = new Date(),
): Promise<{ verified: VerifiedFile[]; warnings: Array<{ file: string; field: string; message: string }> }> {
  const verified: VerifiedFile[] = [];
  const warnings: Array<{ file: string; field: string; message: string }> = [];
  for (const s of signatures) {
    try {
      const v = await verifySignature(s.bytes, s.digest, trust, now);
      verified.push({ digest: s.digest, envelope: v.envelope, keyId: v.keyId, bytes: s.bytes });
    } catch (err) {
      if (!(err instanceof SignatureRefused)) throw err;
      warnings.push({ file: s.file, field: err.reason, message: `${err.message}; not stored` });
    }
  }
  return { verified, warnings };
}
