// Verifies a release signature: a JWS (compact or JSON serialization) against the JWKS keys of the
// trust store, or an OpenPGP signed message (what OpenShift publishes) against its armored keys. The
// signed content must be an atomic container signature for the release's digest.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactVerify, errors as joseErrors, flattenedVerify, generalVerify, importJWK, type JWK } from '#jose';
import type * as openpgp from 'openpgp';
import { SIGNING_ALGORITHMS } from './algorithms.js';
import { checkStatement, StatementError, type Statement } from './statement.js';
import type { Problem } from '../validation/problems.js';

export type Envelope = 'jws' | 'openpgp';
export type RefusalReason =
  | 'bad_envelope'
  | 'unknown_key'
  | 'bad_signature'
  | 'key_revoked'
  | 'key_expired'
  | 'invalid_statement'
  | 'wrong_type'
  | 'digest_mismatch'
  | 'too_large';

/** The cluster-version-operator reads at most 50 KiB of a signature. */
export const MAX_SIGNATURE_BYTES = 50 * 1024;

export class SignatureRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
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
  /**
   * The key was revoked: signatures this service verifies after this time are refused, and stored
   * ones count only if they were verified before it. (A statement's own timestamp is the signer's
   * claim, so it does not decide.)
   */
  revokedAfter?: Date;
  /** Likewise, from the key's `exp` (seconds since the epoch, as in a JWT): the key expired. */
  expiresAt?: Date;
}

/** OpenPGP, loaded the first time a key is read or a message verified: most starts need neither. */
const loadOpenpgp = (): Promise<typeof openpgp> => import('openpgp');

/** OpenPGP messages are small statements; a larger decompressed size is an attack, not a signature. */
const PGP_CONFIG = { maxDecompressedMessageSize: 64 * 1024 };

/** An OpenPGP private key found among the keys to trust. */
class PrivateKeyTrusted extends Error {}

/** The keys signatures are checked against: JWKS files and armored OpenPGP keys from one folder. */
export class TrustStore {
  constructor(
    readonly jws: JwsKey[],
    readonly pgp: openpgp.PublicKey[],
    /** The key ids of each file: a keyring, as the cluster-version-operator counts them. */
    readonly keyrings: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
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
      throw new Error(`cannot read ${dir}: ${(err as Error).message}`);
    }
    const jws: JwsKey[] = [];
    const pgp: openpgp.PublicKey[] = [];
    const keyrings = new Map<string, Set<string>>();
    for (const name of names) {
      const file = join(dir, name);
      if (name.endsWith('.json')) {
        let doc: { keys?: unknown };
        try {
          doc = JSON.parse(readFileSync(file, 'utf8')) as { keys?: unknown };
        } catch (err) {
          throw new Error(`${file}: not JSON: ${(err as Error).message}`);
        }
        if (!Array.isArray(doc.keys))
          throw new Error(
            'd' in doc
              ? `${file}: a private key; trust only public keys (the <kid>.jwks.json of cincy keys generate)`
              : `${file}: a JWKS needs a "keys" list`,
          );
        doc.keys.forEach((k: JWK & { revokedAfter?: string; exp?: unknown }, i) => {
          if (typeof k.kid !== 'string' || !k.kid) throw new Error(`${file}: keys[${i}].kid: every key needs a kid`);
          if (jws.some((other) => other.jwk.kid === k.kid))
            throw new Error(`${file}: keys[${i}].kid: '${k.kid}' is used by another trusted key`);
          if (!['RSA', 'EC', 'OKP'].includes(String(k.kty)))
            throw new Error(
              `${file}: keys[${i}].kty: '${String(k.kty)}'; only public keys (RSA, EC, OKP) sign statements`,
            );
          if ('d' in k) throw new Error(`${file}: keys[${i}]: a private key; trust only public keys`);
          const revokedAfter = k.revokedAfter === undefined ? undefined : new Date(k.revokedAfter);
          if (revokedAfter && Number.isNaN(revokedAfter.getTime()))
            throw new Error(`${file}: keys[${i}].revokedAfter: not a time`);
          if (k.exp !== undefined && typeof k.exp !== 'number')
            throw new Error(`${file}: keys[${i}].exp: seconds since the epoch`);
          const expiresAt = typeof k.exp === 'number' ? new Date(k.exp * 1000) : undefined;
          jws.push({
            jwk: k as JWK & { kid: string },
            ...(revokedAfter && { revokedAfter }),
            ...(expiresAt && { expiresAt }),
          });
          keyrings.set(name, (keyrings.get(name) ?? new Set()).add(k.kid));
        });
      } else if (name.endsWith('.asc')) {
        try {
          const { readKeys } = await loadOpenpgp();
          const keys = await readKeys({ armoredKeys: readFileSync(file, 'utf8') });
          if (keys.some((k) => k.isPrivate())) throw new PrivateKeyTrusted();
          pgp.push(...keys);
          keyrings.set(name, new Set(keys.flatMap((k) => k.getKeys().map((sub) => sub.getKeyID().toHex()))));
        } catch (err) {
          if (err instanceof PrivateKeyTrusted)
            throw new Error(
              `${file}: a private key; trust only public keys (the <kid>.asc of cincy keys generate --openpgp)`,
            );
          throw new Error(`${file}: not an armored OpenPGP public key: ${(err as Error).message}`);
        }
      }
    }
    return new TrustStore(jws, pgp, keyrings);
  }

  get size(): number {
    return this.jws.length + this.pgp.length;
  }

  /** Whether a stored signature, verified at `verifiedAt` with key `keyId`, is still vouched for by these keys. */
  vouches(envelope: Envelope, keyId: string, verifiedAt: Date): boolean {
    if (envelope === 'openpgp')
      return this.pgp.some((k) => k.getKeys().some((sub) => sub.getKeyID().toHex() === keyId));
    const key = this.jws.find((k) => k.jwk.kid === keyId);
    return !!key && keyEnd(key, verifiedAt) === undefined;
  }
}

/** Why a JWS key may not vouch for a signature verified at `at`, or undefined. */
function keyEnd(key: JwsKey, at: Date): { reason: 'key_revoked' | 'key_expired'; message: string } | undefined {
  if (key.revokedAfter && at > key.revokedAfter)
    return {
      reason: 'key_revoked',
      message: `key '${key.jwk.kid}' was revoked after ${key.revokedAfter.toISOString()}`,
    };
  if (key.expiresAt && at > key.expiresAt)
    return { reason: 'key_expired', message: `key '${key.jwk.kid}' expired at ${key.expiresAt.toISOString()}` };
  return undefined;
}

/** Checks one signature for a release digest (`sha256:<hex>`); throws SignatureRefused with the reason. */
export async function verifySignature(
  bytes: Uint8Array,
  digest: string,
  trust: TrustStore,
  now: Date = new Date(),
): Promise<Verified> {
  if (bytes.length > MAX_SIGNATURE_BYTES)
    throw new SignatureRefused(
      'too_large',
      `a signature is at most ${MAX_SIGNATURE_BYTES} bytes; this one is ${bytes.length}`,
    );
  if (bytes.length === 0) throw new SignatureRefused('bad_envelope', 'empty signature');
  const text = Buffer.from(bytes).toString('utf8').trim();
  try {
    const verified =
      /^[\w-]+\.[\w-]*\.[\w-]+$/.test(text) || text.startsWith('{')
        ? await verifyJws(text, trust, now)
        : await verifyPgp(bytes, text, trust);
    return { ...verified, statement: checkStatement(verified.content, digest) } satisfies Verified;
  } catch (err) {
    if (err instanceof SignatureRefused) throw err;
    if (err instanceof StatementError) throw new SignatureRefused(err.reason, err.message);
    // Whatever else a malformed input makes a library throw is a refusal, never a crash.
    throw new SignatureRefused('bad_signature', `refused: ${(err as Error).message}`);
  }
}

async function verifyJws(
  text: string,
  trust: TrustStore,
  now: Date,
): Promise<{ envelope: Envelope; keyId: string; content: Uint8Array }> {
  let usedKid = '';
  const getKey = async (header: { kid?: string; alg?: string }): Promise<CryptoKey | Uint8Array> => {
    const key = trust.jws.find((k) => k.jwk.kid === header.kid);
    if (!key)
      throw new SignatureRefused(
        'unknown_key',
        header.kid ? `no trusted key has kid '${header.kid}'` : 'the JWS header names no kid',
      );
    usedKid = key.jwk.kid;
    const alg = header.alg ?? key.jwk.alg;
    if (!alg || !(SIGNING_ALGORITHMS as readonly string[]).includes(alg))
      throw new SignatureRefused('bad_signature', `algorithm ${String(alg)} is not accepted (RS256, ES256, EdDSA)`);
    return (await importJWK(key.jwk, alg)) as CryptoKey | Uint8Array;
  };
  let content: Uint8Array;
  try {
    if (text.startsWith('{')) {
      const doc = JSON.parse(text) as { signatures?: Array<{ protected?: string }>; protected?: string };
      // jose swallows errors of the key lookup for a general JWS, so say here when no key is known.
      const kids = (Array.isArray(doc.signatures) ? doc.signatures : [doc]).map((sig) => protectedKid(sig.protected));
      if (!kids.some((kid) => trust.jws.some((k) => k.jwk.kid === kid))) {
        throw new SignatureRefused(
          'unknown_key',
          `no trusted key has kid ${kids.map((k) => `'${k ?? ''}'`).join(', ')}`,
        );
      }
      content = (
        Array.isArray(doc.signatures)
          ? await generalVerify(doc as never, getKey)
          : await flattenedVerify(doc as never, getKey)
      ).payload;
    } else {
      content = (await compactVerify(text, getKey)).payload;
    }
  } catch (err) {
    if (err instanceof SignatureRefused) throw err;
    if (err instanceof joseErrors.JWSSignatureVerificationFailed)
      throw new SignatureRefused('bad_signature', `the JWS signature of key '${usedKid}' does not verify`);
    if (err instanceof SyntaxError || err instanceof joseErrors.JWSInvalid)
      throw new SignatureRefused('bad_envelope', `not a valid JWS: ${err.message}`);
    throw new SignatureRefused('bad_signature', `JWS refused: ${(err as Error).message}`);
  }
  const end = keyEnd(
    trust.jws.find((k) => k.jwk.kid === usedKid)!,
    now,
  );
  if (end) throw new SignatureRefused(end.reason, `${end.message}; no signature of it is accepted after that`);
  return { envelope: 'jws', keyId: usedKid, content };
}

function protectedKid(header: string | undefined): string | undefined {
  try {
    return (JSON.parse(Buffer.from(header ?? '', 'base64url').toString('utf8')) as { kid?: string } | null)?.kid;
  } catch (err) {
    if (err instanceof SyntaxError) return undefined; // not a JWS header: verification refuses it next
    throw err;
  }
}

async function verifyPgp(
  bytes: Uint8Array,
  text: string,
  trust: TrustStore,
): Promise<{ envelope: Envelope; keyId: string; content: Uint8Array }> {
  const pgp = await loadOpenpgp();
  let message: openpgp.Message<Uint8Array>;
  try {
    message = text.startsWith('-----BEGIN PGP MESSAGE-----')
      ? ((await pgp.readMessage({ armoredMessage: text, config: PGP_CONFIG })) as openpgp.Message<Uint8Array>)
      : await pgp.readMessage({ binaryMessage: bytes, config: PGP_CONFIG });
  } catch (err) {
    throw new SignatureRefused(
      'bad_envelope',
      `neither a JWS nor an OpenPGP signed message: ${(err as Error).message}`,
    );
  }
  const signers = message.getSigningKeyIDs().map((id) => id.toHex());
  if (signers.length === 0) throw new SignatureRefused('bad_envelope', 'the OpenPGP message is not signed');
  const keys = trust.pgp.filter((k) => k.getKeys().some((sub) => signers.includes(sub.getKeyID().toHex())));
  if (keys.length === 0)
    throw new SignatureRefused('unknown_key', `no trusted OpenPGP key has id ${signers.join(', ')}`);
  let result;
  try {
    result = await pgp.verify({
      message,
      verificationKeys: keys,
      expectSigned: true,
      format: 'binary',
      config: PGP_CONFIG,
    });
  } catch (err) {
    throw pgpRefusal(err, signers);
  }
  // Record the key whose signature verified, not merely the first signer listed.
  for (const sig of result.signatures) {
    try {
      await sig.verified;
      return { envelope: 'openpgp', keyId: sig.keyID.toHex(), content: result.data };
    } catch (err) {
      // `verified` rejects exactly when this signature is by another key or does not verify: try the next.
      void err;
    }
  }
  throw new SignatureRefused('bad_signature', 'no OpenPGP signature of the message verifies against a trusted key');
}

function pgpRefusal(err: unknown, signers: string[]): SignatureRefused {
  const msg = (err as Error).message;
  if (/revoked/i.test(msg))
    return new SignatureRefused('key_revoked', `OpenPGP key ${signers.join(', ')} is revoked: ${msg}`);
  if (/expired/i.test(msg))
    return new SignatureRefused('key_expired', `OpenPGP key ${signers.join(', ')} had expired when it signed: ${msg}`);
  return new SignatureRefused('bad_signature', `the OpenPGP signature does not verify: ${msg}`);
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
): Promise<{ verified: VerifiedFile[]; warnings: Problem[] }> {
  const verified: VerifiedFile[] = [];
  const warnings: Problem[] = [];
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
