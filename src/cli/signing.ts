// The work of the signature commands (signatures.ts): make keys, sign a payload digest (a JWS, or an
// OpenPGP signed message as OpenShift publishes and clusters verify), upload a signature, and print the
// ConfigMap a disconnected cluster needs to verify a release against this service's signature store.
import { request } from 'undici';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompactSign, exportJWK, generateKeyPair, importJWK, type JWK } from '#jose';
import { stringify } from '#yaml';
import { makeStatement } from '../signatures/statement.js';
import { PACKAGE_VERSION } from '../version.js';
import type { SignatureDoc } from '../schemas/admin.js';
import { call, callWithStatus, HttpError, serverUrl, type ClientOptions } from './admin.js';
import { dispatcherFor } from './serverConnection.js';
import { KUBE_LABEL } from '../cluster/labels.js';
import type { SigningAlgorithm } from '../signatures/algorithms.js';
import { signatureStorePath } from '../signatures/storePath.js';

export async function generateKeys(opts: {
  alg: SigningAlgorithm;
  kid: string;
  out: string;
}): Promise<{ privateFile: string; jwksFile: string }> {
  const { publicKey, privateKey } = await generateKeyPair(opts.alg, { extractable: true });
  const meta = { kid: opts.kid, alg: opts.alg, use: 'sig' };
  mkdirSync(opts.out, { recursive: true });
  const privateFile = join(opts.out, `${opts.kid}.private.jwk.json`);
  const jwksFile = join(opts.out, `${opts.kid}.jwks.json`);
  // Never over an existing key: a second run with the same kid would orphan what the first one signed.
  writeFileSync(privateFile, `${JSON.stringify({ ...(await exportJWK(privateKey)), ...meta }, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  writeFileSync(jwksFile, `${JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), ...meta }] }, null, 2)}\n`, {
    flag: 'wx',
  });
  return { privateFile, jwksFile };
}

/**
 * An OpenPGP key pair: <kid>.private.asc (for cincy sign) and <kid>.asc (for --trust-keys and for
 * clusters). RSA 4096 as OpenShift's own release key, or Ed25519 with `alg` EdDSA.
 */
export async function generateOpenpgpKeys(opts: {
  alg: SigningAlgorithm;
  kid: string;
  out: string;
}): Promise<{ privateFile: string; publicFile: string; fingerprint: string }> {
  if (opts.alg === 'ES256') throw new Error('--alg: ES256 is for JWS keys; an OpenPGP key is RS256 (RSA) or EdDSA');
  const pgp = await import('openpgp');
  const { privateKey, publicKey } = await pgp.generateKey({
    ...(opts.alg === 'EdDSA' ? { type: 'curve25519' as const } : { type: 'rsa' as const, rsaBits: 4096 }),
    userIDs: [{ name: opts.kid }],
    format: 'armored',
  });
  mkdirSync(opts.out, { recursive: true });
  const privateFile = join(opts.out, `${opts.kid}.private.asc`);
  const publicFile = join(opts.out, `${opts.kid}.asc`);
  writeFileSync(privateFile, privateKey, { mode: 0o600, flag: 'wx' });
  writeFileSync(publicFile, publicKey, { flag: 'wx' });
  const key = await pgp.readKey({ armoredKey: publicKey });
  return { privateFile, publicFile, fingerprint: key.getFingerprint() };
}

/**
 * A signature of a payload with a key file: a binary OpenPGP signed message for an armored OpenPGP
 * key, else a compact JWS (text).
 */
export async function signWithKeyFile(
  keyFile: string,
  payload: string,
  now = new Date(),
): Promise<{ bytes: Uint8Array; binary: boolean }> {
  const text = readFileSync(keyFile, 'utf8');
  if (text.trimStart().startsWith('-----BEGIN PGP PRIVATE KEY BLOCK-----'))
    return { bytes: await signPayloadOpenpgp(keyFile, text, payload, now), binary: true };
  return { bytes: new TextEncoder().encode(await signJws(keyFile, text, payload, now)), binary: false };
}

/** An OpenPGP signed message (binary, not detached) holding the statement, as OpenShift publishes. */
async function signPayloadOpenpgp(keyFile: string, armored: string, payload: string, now: Date): Promise<Uint8Array> {
  const pgp = await import('openpgp');
  let key;
  try {
    key = await pgp.readPrivateKey({ armoredKey: armored });
  } catch (err) {
    throw new Error(`--key: ${keyFile}: not an armored OpenPGP private key: ${(err as Error).message}`);
  }
  if (!key.isDecrypted())
    throw new Error(`--key: ${keyFile} is protected by a passphrase; cincy signs with unprotected keys`);
  const statement = makeStatement(payload, `cincy ${PACKAGE_VERSION}`, now);
  const message = await pgp.createMessage({ binary: new TextEncoder().encode(JSON.stringify(statement)) });
  return pgp.sign({ message, signingKeys: key, format: 'binary', date: now });
}

/** A JWS (compact) over the atomic container signature statement of a pull spec by digest, with a JWK's text. */
async function signJws(keyFile: string, text: string, payload: string, now: Date): Promise<string> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch (err) {
    throw new Error(`--key: ${keyFile}: neither a JWK nor an armored OpenPGP private key: ${(err as Error).message}`);
  }
  if (!jwk.d) throw new Error(`--key: ${keyFile} is not a private key`);
  if (!jwk.kid) throw new Error(`--key: ${keyFile} has no kid (cincy keys generate writes one)`);
  const alg = jwk.alg ?? (jwk.kty === 'RSA' ? 'RS256' : jwk.kty === 'EC' ? 'ES256' : 'EdDSA');
  const statement = makeStatement(payload, `cincy ${PACKAGE_VERSION}`, now);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(statement)))
    .setProtectedHeader({ alg, kid: jwk.kid })
    .sign(await importJWK(jwk, alg));
}

/** `cincy signatures add`: uploads a signature file of a release; 201 when new, 200 when stored already. */
export async function uploadSignature(
  version: string,
  file: string,
  opts: ClientOptions & { arch: string },
): Promise<number> {
  const bytes = readFileSync(file);
  const { status, body } = await callWithStatus(
    opts,
    'POST',
    `/api/v1/releases/${encodeURIComponent(opts.arch)}/${encodeURIComponent(version)}/signatures`,
    bytes,
    'application/octet-stream',
  );
  const sig = body as SignatureDoc;
  if (opts.output === 'json') process.stdout.write(`${JSON.stringify(sig, null, 2)}\n`);
  else
    process.stdout.write(
      `${file}: ${status === 201 ? 'verified and stored' : 'stored already'} as ${sig.envelope} signature ${sig.n} of ${sig.digest} by key ${sig.keyId} (${status})\n`,
    );
  return 0;
}

/** The ConfigMap the cluster-version-operator reads signatures from (openshift-config-managed). */
export function signatureConfigMap(digest: string, signatures: Buffer[]): string {
  const hex = digest.replace(/^sha256[:=]/, '');
  return stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `sha256-${hex}`,
      namespace: 'openshift-config-managed',
      labels: { [KUBE_LABEL.verificationSignatures]: '' },
    },
    binaryData: Object.fromEntries(signatures.map((b, i) => [`sha256-${hex}-${i + 1}`, b.toString('base64')])),
  });
}

/** `cincy signatures configmap`: the ConfigMap of a release's signatures on a cincy server, printed. */
export async function printSignatureConfigMap(
  release: string,
  opts: ClientOptions & { arch: string },
): Promise<number> {
  let digest = /^(sha256:)?[0-9a-f]{64}$/.test(release) ? `sha256:${release.replace(/^sha256:/, '')}` : undefined;
  if (!digest) {
    const r = (await call(
      opts,
      'GET',
      `/api/v1/releases/${encodeURIComponent(opts.arch)}/${encodeURIComponent(release)}`,
    )) as { release: { payload: string } };
    digest = r.release.payload.slice(r.release.payload.indexOf('@') + 1);
  }
  const signatures: Buffer[] = [];
  for (let n = 1; n <= 1000; n++) {
    const dispatcher = await dispatcherFor(opts);
    const res = await request(serverUrl(opts.server, `signatures/${signatureStorePath(digest, n)}`), {
      ...(dispatcher && { dispatcher }),
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode === 404) break;
    if (res.statusCode >= 300) throw new HttpError(res.statusCode, {});
    signatures.push(bytes);
  }
  if (signatures.length === 0) throw new Error(`${opts.server} has no signature for ${digest}`);
  // Clusters verify OpenPGP signed messages; a JWS alone does not let them verify the release.
  if (signatures.every((b) => /^\s*(eyJ|\{)/.test(b.subarray(0, 8).toString('latin1')))) {
    process.stderr.write(
      `warning: every signature of ${digest} is a JWS; a cluster verifies OpenPGP signatures only\n`,
    );
  }
  process.stdout.write(signatureConfigMap(digest, signatures));
  return 0;
}
