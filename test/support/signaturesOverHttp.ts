// The tests of `signatures over HTTP on <engine>`: the signatures a server stores, serves and exports
// are the same on PostgreSQL. Those of a server in this process run in the service tier on SQLite
// (test/service/server/routes/api/v1/releases/signatures.test.ts); those that run `cincy` as a process, and all of them on
// PostgreSQL (a process too), in the e2e tier (test/e2e/signatures-http.test.ts).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlattenedSign, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { generateKeys, signatureConfigMap } from '../../src/cli/signing.js';
import { signPayload } from './signing.js';
import { createToken } from '../../src/cli/token.js';
import { makeStatement } from '../../src/signatures/statement.js';
import { TrustStore } from '../../src/signatures/verify.js';
import type { Engine } from '../../src/store/sql.js';
import { cincy, serveCli } from './cli.js';
import { useCleanup } from './cleanup.js';
import { startServer, tempDir, type TestServer } from './server.js';
import { writeTree } from './trees.js';

const HEX_A = 'a'.repeat(64);
const HEX_B = 'b'.repeat(64);
const PAYLOAD_B = `quay.example/ocp/release@sha256:${HEX_B}`;

/**
 * Registers the tests in the describe that calls it: `inProcess` those against servers in this process,
 * `processes` the one that runs `cincy serve` and `cincy signatures configmap`. `database` gives each
 * PostgreSQL database (the engine's own), on SQLite a file of the test's folder is used.
 */
export function signaturesOverHttp(
  engine: Engine,
  o: { inProcess: boolean; processes: boolean; database?: () => Promise<string> },
): void {
  const cleanup = useCleanup();
  let server: TestServer;
  let token: string;
  let privateFile: string;
  let dir: string;
  let removeDir = (): void => {};
  beforeAll(async () => {
    const d = tempDir();
    dir = d.path;
    removeDir = d.remove;
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
      ...(engine === 'postgres' && { db: await o.database!() }),
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
    removeDir();
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

  if (o.inProcess) {
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
      // Past the route's own limit (16 signatures' worth), refused unread, naming that limit.
      const huge = await post('4.1.1', 'x'.repeat(1024 * 1024), 'application/octet-stream');
      expect(huge.status).toBe(413);
      expect(await huge.json()).toEqual({ kind: 'invalid_request', value: 'request body over 819200 bytes' });
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
  }
  if (o.processes) {
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
        expect(bytes.toString()).toBe(
          readFileSync(join(dir, 'tree', 'releases', 'amd64', '4.1.0.signature-1'), 'utf8'),
        );
      }
      expect(cincy(['signatures', 'configmap', '4.1.1', '--server', served.url]).stderr).toContain(
        'has no signature for',
      );
    });
  }
  if (o.inProcess) {
    it('stops counting a signature whose key is no longer trusted', async () => {
      const db = engine === 'postgres' ? await o.database!() : join(dir, 'trust-change.db');
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
  }
}
