// Release signatures: the real OpenPGP statement, JWS envelopes with rotation and revocation, every
// refusal reason, keys made and used. Ingest over HTTP, the signature store layout, --require-signatures
// and the ConfigMap are in test/support/signaturesOverHttp.ts (run by the service and e2e tiers).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompactSign, FlattenedSign, GeneralSign, exportJWK, generateKeyPair, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeys, signWithKeyFile } from '../../../src/cli/signing.js';
import { makeStatement } from '../../../src/signatures/statement.js';
import {
  MAX_SIGNATURE_BYTES as MAX_BYTES,
  SignatureRefused,
  TrustStore,
  verifySignature,
} from '../../../src/signatures/verify.js';
import * as openpgp from 'openpgp';
import { tempDir, useCleanup } from '../../support/cleanup.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../../support/conformance.js';

const cleanup = useCleanup();
const HEX_A = 'a'.repeat(64);
const HEX_B = 'b'.repeat(64);
const PAYLOAD_B = `quay.example/ocp/release@sha256:${HEX_B}`;

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SignatureRefused) return err.reason;
    throw err;
  }
  return 'accepted';
}

describe.runIf(conformanceAvailable())('the real OpenShift OpenPGP signature', () => {
  const dir = join(CONFORMANCE_DIR, 'signatures');
  it('verifies against its public key for the digest it names, and not for another', async () => {
    const trustDir = tempDir();
    copyFileSync(join(dir, 'public-key.asc'), join(trustDir.path, 'openshift.asc'));
    const trust = await TrustStore.load(trustDir.path);
    trustDir.remove();
    const message = JSON.parse(readFileSync(join(dir, 'message.json'), 'utf8')) as {
      critical: { image: { 'docker-manifest-digest': string } };
    };
    const digest = message.critical.image['docker-manifest-digest'];
    const bytes = readFileSync(join(dir, 'signature-3'));
    const v = await verifySignature(bytes, digest, trust);
    expect(v.envelope).toBe('openpgp');
    expect(v.keyId).toBe('c21de04a3350bf4d');
    expect(v.statement).toEqual(message);
    expect(await refusal(verifySignature(bytes, `sha256:${HEX_A}`, trust))).toBe('digest_mismatch');
    expect(await refusal(verifySignature(bytes, digest, TrustStore.empty()))).toBe('unknown_key');
  });
});

describe('JWS signatures', () => {
  let trust: TrustStore;
  let keys: Record<string, { kid: string; alg: string; privateKey: CryptoKey }>;
  const statement = (digest = `sha256:${HEX_B}`, extra: object = {}): Uint8Array =>
    new TextEncoder().encode(
      JSON.stringify({
        ...makeStatement(`quay.example/ocp/release@${digest}`, 'test', new Date('2026-06-01T00:00:00Z')),
        ...extra,
      }),
    );
  const compact = (kid: string, content: Uint8Array = statement()): Promise<string> =>
    new CompactSign(content).setProtectedHeader({ alg: keys[kid]!.alg, kid }).sign(keys[kid]!.privateKey);

  beforeAll(async () => {
    keys = {};
    const publicKeys: JWK[] = [];
    for (const [kid, alg, extra] of [
      ['rsa-old', 'RS256', {}],
      ['ec-new', 'ES256', {}],
      ['ed', 'EdDSA', {}],
      ['revoked', 'EdDSA', { revokedAfter: '2026-01-01T00:00:00Z' }],
      ['expired', 'EdDSA', { exp: Date.parse('2026-03-01T00:00:00Z') / 1000 }],
    ] as const) {
      const pair = await generateKeyPair(alg, { extractable: true });
      keys[kid] = { kid, alg, privateKey: pair.privateKey };
      publicKeys.push({ ...(await exportJWK(pair.publicKey)), kid, alg, ...extra });
    }
    const d = tempDir();
    writeFileSync(join(d.path, 'a.json'), JSON.stringify({ keys: publicKeys.slice(0, 2) }));
    writeFileSync(join(d.path, 'b.json'), JSON.stringify({ keys: publicKeys.slice(2) }));
    trust = await TrustStore.load(d.path);
    d.remove();
  });

  it('accepts compact and JSON serializations from every trusted key (old and new keys both valid)', async () => {
    for (const kid of ['rsa-old', 'ec-new', 'ed']) {
      const v = await verifySignature(Buffer.from(await compact(kid)), `sha256:${HEX_B}`, trust);
      expect(v).toMatchObject({ envelope: 'jws', keyId: kid });
    }
    const flat = await new FlattenedSign(statement())
      .setProtectedHeader({ alg: 'EdDSA', kid: 'ed' })
      .sign(keys.ed!.privateKey);
    expect((await verifySignature(Buffer.from(JSON.stringify(flat)), `sha256:${HEX_B}`, trust)).keyId).toBe('ed');
    const general = await new GeneralSign(statement())
      .addSignature(keys['ec-new']!.privateKey)
      .setProtectedHeader({ alg: 'ES256', kid: 'ec-new' })
      .sign();
    expect((await verifySignature(Buffer.from(JSON.stringify(general)), `sha256:${HEX_B}`, trust)).keyId).toBe(
      'ec-new',
    );
  });

  it('refuses each failure with its own reason', async () => {
    const digest = `sha256:${HEX_B}`;
    const stranger = await generateKeyPair('EdDSA');
    const strangerJws = await new CompactSign(statement())
      .setProtectedHeader({ alg: 'EdDSA', kid: 'stranger' })
      .sign(stranger.privateKey);
    const forgedJws = await new CompactSign(statement())
      .setProtectedHeader({ alg: 'EdDSA', kid: 'ed' })
      .sign(stranger.privateKey);
    const wrongType = new TextEncoder().encode(
      JSON.stringify({
        critical: {
          type: 'cosign container image signature',
          image: { 'docker-manifest-digest': digest },
          identity: { 'docker-reference': 'x' },
        },
      }),
    );
    const extraField = statement(digest, { extra: true });
    const cases: Array<[string, Uint8Array | string]> = [
      ['bad_envelope', 'this is not a signature'],
      ['unknown_key', strangerJws],
      ['bad_signature', forgedJws],
      ['digest_mismatch', await compact('ed', statement(`sha256:${HEX_A}`))],
      ['wrong_type', await compact('ed', wrongType)],
      ['invalid_statement', await compact('ed', extraField)],
      ['key_revoked', await compact('revoked')],
      ['key_revoked', await compact('revoked', statement(digest, { optional: { timestamp: 0 } }))], // a backdated statement changes nothing
      ['key_expired', await compact('expired')],
      ['invalid_statement', await compact('ed', statement(digest, { optional: { timestamp: 1e17 } }))],
      [
        'unknown_key',
        JSON.stringify(
          await new GeneralSign(statement())
            .addSignature(stranger.privateKey)
            .setProtectedHeader({ alg: 'EdDSA', kid: 'stranger' })
            .sign(),
        ),
      ],
      ['too_large', 'x'.repeat(60 * 1024)],
    ];
    for (const [reason, sig] of cases) {
      expect(await refusal(verifySignature(Buffer.from(sig), digest, trust)), reason).toBe(reason);
    }
  });

  it('refuses an OpenPGP compression bomb without inflating it', async () => {
    // 20 MB of zeros in one zlib-compressed literal packet: about 20 KB on the wire.
    // openpgp.js types keep these members private; an attacker's bytes are built with them anyway.
    const literal = new openpgp.LiteralDataPacket() as unknown as { setBytes(b: Uint8Array, f: number): void };
    literal.setBytes(new Uint8Array(20 * 1024 * 1024), openpgp.enums.literal.binary);
    const compressed = new openpgp.CompressedDataPacket() as unknown as {
      algorithm: number;
      packets: openpgp.PacketList<openpgp.AnyPacket>;
    };
    compressed.algorithm = openpgp.enums.compression.zlib;
    compressed.packets = new openpgp.PacketList();
    compressed.packets.push(literal as unknown as openpgp.AnyPacket);
    const list = new openpgp.PacketList();
    list.push(compressed as unknown as openpgp.AnyPacket);
    const chunks: Uint8Array[] = [];
    const reader = (list.write() as unknown as ReadableStream<Uint8Array>).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const bomb = Buffer.concat(chunks);
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    const e = await verifySignature(bomb, `sha256:${HEX_B}`, trust).catch((err: SignatureRefused) => err);
    expect(e).toBeInstanceOf(SignatureRefused);
    expect((e as SignatureRefused).reason).toBe('bad_envelope');
    expect((e as SignatureRefused).message).toMatch(/Maximum decompressed message size exceeded/);
  });

  it('refuses an OpenPGP private key among the keys to trust, naming the file', async () => {
    const d = cleanup.dir();
    const { privateKey, publicKey } = await openpgp.generateKey({
      type: 'ecc',
      curve: 'curve25519Legacy',
      userIDs: [{ name: 'pipeline' }],
      format: 'armored',
    });
    writeFileSync(join(d, 'pipeline.asc'), publicKey);
    expect((await TrustStore.load(d)).size).toBe(1);
    writeFileSync(join(d, 'pipeline.private.asc'), privateKey);
    await expect(TrustStore.load(d)).rejects.toThrow(
      `${join(d, 'pipeline.private.asc')}: a private key; trust only public keys (the <kid>.asc of cincy keys generate --openpgp)`,
    );
  });

  it('keys generate and sign make a JWS the trust store accepts', async () => {
    const d = cleanup.dir();
    const { privateFile, jwksFile } = await generateKeys({ alg: 'ES256', kid: 'pipeline-1', out: d });
    mkdirSync(join(d, 'trust'));
    copyFileSync(jwksFile, join(d, 'trust', 'pipeline.json'));
    const signed = await signWithKeyFile(privateFile, PAYLOAD_B);
    expect(signed.binary).toBe(false); // a JWK signs a compact JWS, text
    const v = await verifySignature(
      Buffer.from(signed.bytes),
      `sha256:${HEX_B}`,
      await TrustStore.load(join(d, 'trust')),
    );
    expect(v.statement.critical.identity['docker-reference']).toBe('quay.example/ocp/release');
    await expect(TrustStore.load(d)).rejects.toThrow(
      `${privateFile}: a private key; trust only public keys (the <kid>.jwks.json of cincy keys generate)`,
    );
    await expect(generateKeys({ alg: 'ES256', kid: 'pipeline-1', out: d })).rejects.toThrow(/EEXIST/);
  });
});
