// Release signatures: the real OpenPGP statement, JWS envelopes with rotation and revocation, every
// refusal reason, ingest over HTTP, the signature store layout, --require-signatures, the ConfigMap.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompactSign, FlattenedSign, GeneralSign, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { generateKeys, signatureConfigMap, signPayload } from '../src/cli/signing.js';
import { createToken } from '../src/cli/token.js';
import { makeStatement } from '../src/signatures/statement.js';
import {
  MAX_SIGNATURE_BYTES as MAX_BYTES,
  SignatureRefused,
  TrustStore,
  verifySignature,
} from '../src/signatures/verify.js';
import * as openpgp from 'openpgp';
import { cincy, serveCli, useCleanup } from './support/cli.js';
import { CONFORMANCE_DIR, conformanceAvailable } from './support/conformance.js';
import type { Engine } from '../src/store/sql.js';
import { usePostgres } from './support/postgres.js';
import { startServer, tempDir, type TestServer } from './support/server.js';
import { writeTree } from './support/trees.js';

const postgres = usePostgres();
const engines: Engine[] = postgres.available ? ['sqlite', 'postgres'] : ['sqlite'];

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

  it('keys generate and sign make a JWS the trust store accepts', async () => {
    const d = cleanup.dir();
    const { privateFile, jwksFile } = await generateKeys({ alg: 'ES256', kid: 'pipeline-1', out: d });
    mkdirSync(join(d, 'trust'));
    copyFileSync(jwksFile, join(d, 'trust', 'pipeline.json'));
    const jws = await signPayload(privateFile, PAYLOAD_B);
    const v = await verifySignature(Buffer.from(jws), `sha256:${HEX_B}`, await TrustStore.load(join(d, 'trust')));
    expect(v.statement.critical.identity['docker-reference']).toBe('quay.example/ocp/release');
    await expect(TrustStore.load(d)).rejects.toThrow(/a private key; trust only public keys|keys/);
    await expect(generateKeys({ alg: 'ES256', kid: 'pipeline-1', out: d })).rejects.toThrow(/EEXIST/);
  });
});

// On each engine: the signatures a server stores, serves and exports are the same on PostgreSQL.
describe.each(engines)('signatures over HTTP on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let privateFile: string;
  let dir: string;
  beforeAll(async () => {
    const d = tempDir();
    dir = d.path;
    const keys = await generateKeys({ alg: 'EdDSA', kid: 'k1', out: join(dir, 'keys') });
    privateFile = keys.privateFile;
    mkdirSync(join(dir, 'trust'));
    copyFileSync(keys.jwksFile, join(dir, 'trust', 'k1.json'));
    writeFileSync(join(dir, 'secret'), 'signature-test-secret-0123456789abcdef\n');
    const tree = writeTree(join(dir, 'tree'));
    // 4.1.0 is signed in the tree, next to its release record.
    writeFileSync(
      join(tree, 'releases', 'amd64', '4.1.0.signature-1'),
      await signPayload(privateFile, `quay.example/ocp/release@sha256:${HEX_A}`),
    );
    server = await startServer({
      graphData: tree,
      ...(engine === 'postgres' && { db: await postgres.database() }),
      auth: { secretFile: join(dir, 'secret') },
      trust: await TrustStore.load(join(dir, 'trust')),
      requireSignatures: true,
    });
    token = await createToken({
      adminJwtSecretFile: join(dir, 'secret'),
      scope: 'releases:write',
      ttl: '10m',
      subject: 'signer',
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const post = (version: string, body: string, type = 'application/jose'): Promise<Response> =>
    fetch(`${server.url}/api/v1/releases/amd64/${version}/signatures`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body,
    });
  const versions = async (): Promise<string[]> =>
    (
      (await (await fetch(`${server.url}/graph?channel=stable-4.1`)).json()) as { nodes: Array<{ version: string }> }
    ).nodes.map((n) => n.version);

  it('hides an unsigned release under --require-signatures, and says why', async () => {
    expect(await versions()).toEqual(['4.1.0']);
    const info = (await (await fetch(`${server.url}/api/v1/releases/amd64/4.1.1`)).json()) as {
      served: boolean;
      withheldBecause: string;
      signatures: unknown[];
    };
    expect(info).toMatchObject({ served: false, signatures: [] });
    expect(info.withheldBecause).toMatch(/no signature of its payload digest is vouched for/);
  });

  it('ingests a valid signature (201, then 200 for the same bytes), refuses others with the reason, and the release appears', async () => {
    const jws = await signPayload(privateFile, PAYLOAD_B);
    const bad = await post('4.1.1', await signPayload(privateFile, `quay.example/ocp/release@sha256:${HEX_A}`));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      kind: 'invalid_signature',
      value: expect.stringMatching(/^digest_mismatch: /),
    });
    const noToken = await fetch(`${server.url}/api/v1/releases/amd64/4.1.1/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/jose' },
      body: jws,
    });
    expect(noToken.status).toBe(401);
    const first = await post('4.1.1', jws);
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({
      n: 1,
      envelope: 'jws',
      keyId: 'k1',
      url: `/signatures/sha256=${HEX_B}/signature-1`,
    });
    expect((await post('4.1.1', jws)).status).toBe(200);
    expect(await versions()).toEqual(['4.1.0', '4.1.1']);
    const info = (await (await fetch(`${server.url}/api/v1/releases/amd64/4.1.1`)).json()) as {
      served: boolean;
      signatures: Array<{ envelope: string; keyId: string; verifiedAt: string }>;
    };
    expect(info.served).toBe(true);
    expect(info.signatures[0]).toMatchObject({ envelope: 'jws', keyId: 'k1' });
  });

  it('stores a JSON-serialized JWS exactly as sent, and answers a too large body with the reason', async () => {
    const key = await importJWK(JSON.parse(readFileSync(privateFile, 'utf8')) as JWK, 'EdDSA');
    const content = new TextEncoder().encode(JSON.stringify(makeStatement(PAYLOAD_B, 'test', new Date())));
    const body = JSON.stringify(
      await new FlattenedSign(content).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).sign(key),
    );
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const res = await post('4.1.1', pretty, 'application/json');
    expect(res.status).toBe(201);
    const stored = (await res.json()) as { url: string };
    expect(await (await fetch(`${server.url}${stored.url}`)).text()).toBe(pretty);
    const big = await post('4.1.1', 'x'.repeat(60 * 1024), 'application/octet-stream');
    expect(big.status).toBe(400);
    expect(((await big.json()) as { value: string }).value).toMatch(/^too_large: /);
  });

  it('serves the signature store byte-exact, with ETag, on both paths, 404 after the last', async () => {
    const jws = await signPayload(privateFile, PAYLOAD_B);
    await post('4.1.1', jws, 'application/octet-stream');
    const stored = await server.store.read((tx) => tx.signatures.list(`sha256:${HEX_B}`));
    for (const prefix of ['/signatures', '/api/upgrades_info/signatures']) {
      for (const s of stored) {
        const res = await fetch(`${server.url}${prefix}/sha256=${HEX_B}/signature-${s.n}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/octet-stream');
        expect(Buffer.from(await res.arrayBuffer()).equals(s.bytes)).toBe(true);
        const again = await fetch(`${server.url}${prefix}/sha256=${HEX_B}/signature-${s.n}`, {
          headers: { 'if-none-match': res.headers.get('etag')! },
        });
        expect(again.status).toBe(304);
      }
      expect((await fetch(`${server.url}${prefix}/sha256=${HEX_B}/signature-${stored.length + 1}`)).status).toBe(404);
    }
    expect((await fetch(`${server.url}/signatures/sha256=${HEX_A}/signature-1`)).status).toBe(200); // from the tree
    await expect(server.store.write((tx) => tx.sql.run("UPDATE signatures SET key_id = 'x'"))).rejects.toThrow(
      /never rewritten/,
    );
    await expect(server.store.write((tx) => tx.sql.run('DELETE FROM signatures'))).rejects.toThrow(/never removed/);
  });

  it('prints a ConfigMap for a disconnected cluster, by version or digest', async () => {
    const cm = parseYaml(signatureConfigMap(`sha256:${HEX_B}`, [Buffer.from('one'), Buffer.from('two')])) as Record<
      string,
      never
    >;
    expect(cm).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `sha256-${HEX_B}`,
        namespace: 'openshift-config-managed',
        labels: { 'release.openshift.io/verification-signatures': '' },
      },
      binaryData: { [`sha256-${HEX_B}-1`]: 'b25l', [`sha256-${HEX_B}-2`]: 'dHdv' },
    });
    const served = await serveCli(
      ['--db', ':memory:', '--graph-data', join(dir, 'tree'), '--trust-keys', join(dir, 'trust')],
      cleanup,
    );
    for (const arg of ['4.1.0', `sha256:${HEX_A}`]) {
      const r = cincy(['signatures', 'configmap', arg, '--server', served.url]);
      expect(r.code, r.stderr).toBe(0);
      const doc = parseYaml(r.stdout) as { metadata: { name: string }; binaryData: Record<string, string> };
      expect(doc.metadata.name).toBe(`sha256-${HEX_A}`);
      const bytes = Buffer.from(doc.binaryData[`sha256-${HEX_A}-1`]!, 'base64');
      expect(bytes.toString()).toBe(readFileSync(join(dir, 'tree', 'releases', 'amd64', '4.1.0.signature-1'), 'utf8'));
    }
    expect(cincy(['signatures', 'configmap', '4.1.1', '--server', served.url]).stderr).toContain(
      'has no signature for',
    );
  });

  it('stops counting a signature whose key is no longer trusted', async () => {
    const db = engine === 'postgres' ? await postgres.database() : join(dir, 'trust-change.db');
    const first = await startServer({
      graphData: join(dir, 'tree'),
      db,
      trust: await TrustStore.load(join(dir, 'trust')),
      requireSignatures: true,
    });
    await first.close();
    const other = await generateKeys({ alg: 'EdDSA', kid: 'k2', out: join(dir, 'keys2') });
    mkdirSync(join(dir, 'trust2'));
    copyFileSync(other.jwksFile, join(dir, 'trust2', 'k2.json'));
    const second = await startServer({
      graphData: join(dir, 'tree'),
      db,
      trust: await TrustStore.load(join(dir, 'trust2')),
      requireSignatures: true,
    });
    try {
      expect(await second.store.read((tx) => tx.signatures.all())).toHaveLength(1); // still stored, never removed
      expect(
        ((await (await fetch(`${second.url}/graph?channel=stable-4.1`)).json()) as { nodes: unknown[] }).nodes,
      ).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('writes signatures into the exported tree, where a new store reads them back', async () => {
    const res = await fetch(`${server.url}/api/upgrades_info/graph-data`);
    const file = join(dir, 'state.tar.gz');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const copy = await startServer({
      graphData: file,
      trust: await TrustStore.load(join(dir, 'trust')),
      requireSignatures: true,
    });
    try {
      const keys = async (s: TestServer): Promise<unknown[]> =>
        (await s.store.read((tx) => tx.signatures.all())).map((sig) => [sig.digest, sig.n, sig.sha256]);
      expect(await keys(copy)).toEqual(await keys(server));
      expect(await (await fetch(`${copy.url}/graph?channel=stable-4.1`)).text()).toBe(
        await (await fetch(`${server.url}/graph?channel=stable-4.1`)).text(),
      );
    } finally {
      await copy.close();
    }
  });
});
