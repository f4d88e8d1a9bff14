// The command line as a shell uses it, against a real `cincy serve`: output cut
// short by `head`, unknown flags, token limits, whether `release add` stored anything, the release,
// channel, tombstone and signature commands, and OpenPGP keys and signatures a cluster can verify.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { stringify } from 'yaml';
import { cincy, serveCli, useCleanup } from '../support/cli.js';
import { release, writeTree } from '../support/trees.js';

const cleanup = useCleanup();

/**
 * A GET on a connection of its own. The commands between two requests run synchronously (spawnSync) and
 * hold this process's event loop for seconds: a pooled connection the server closed meanwhile (its
 * keep-alive timeout) would not have been noticed yet, and a request sent on it fails.
 */
async function fresh(url: string): Promise<unknown> {
  const res = await request(url, { reset: true });
  return res.body.json();
}
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cincy.js');
const HEX = 'd'.repeat(64);
const PAYLOAD = `quay.example/ocp/release@sha256:${HEX}`;

function secretFile(dir: string): string {
  const secret = join(dir, 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  return secret;
}

const token = (secret: string, scope: string): string => {
  const r = cincy(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', scope]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
};

describe('the command line', () => {
  it('stops quietly when the reader of its output goes away (cincy … | head)', () => {
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" openapi | head -c 20`], {
      encoding: 'utf8',
    });
    expect(r.stdout).toHaveLength(20);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('names an unknown flag as unknown, with a suggestion, before complaining of a missing one', () => {
    const r = cincy(['promote', '4.16.3', '--too', 'fast']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: unknown option '--too'");
    expect(r.stderr).toContain('(Did you mean --to?)');
    expect(cincy(['promote', '4.16.3']).stderr).toContain("required option '--to <channel>' not specified");
  });

  it('token create: says the --ttl cap, and takes space- or comma-separated scopes', () => {
    const secret = secretFile(cleanup.dir());
    expect(cincy(['token', 'create', '--help']).stdout).toContain('at most 366d');
    const long = cincy([
      'token',
      'create',
      '--admin-jwt-secret-file',
      secret,
      '--scope',
      'risks:write',
      '--ttl',
      '400d',
    ]);
    expect(long.code).toBe(1);
    expect(long.stderr).toContain('366d at most');
    for (const scope of ['releases:write channels:write', 'releases:write, channels:write'])
      expect(decodeJwt(token(secret, scope)).scope).toBe('releases:write channels:write');
  });

  it('release add says whether it stored; release get and rm; channel and tombstone commands', async () => {
    const work = cleanup.dir();
    const secret = secretFile(work);
    const tree = writeTree(join(work, 'tree'), {
      'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0]\n',
      'releases/amd64/4.1.0.json': release('4.1.0'),
    });
    const server = await serveCli(
      ['--db', ':memory:', '--graph-data', tree, '--admin-jwt-secret-file', secret],
      cleanup,
    );
    const env = {
      CINCY_SERVER: server.url,
      CINCY_TOKEN: token(secret, 'releases:write,channels:write'),
    };
    const file = join(work, '4.1.7.json');
    writeFileSync(file, release('4.1.7', { previous: ['4.1.0'], payload: PAYLOAD }));
    const first = cincy(['release', 'add', file], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.split('\n')[0]).toBe('stored 1 new release (201)');
    const again = cincy(['release', 'add', file], env);
    expect(again.stdout.split('\n')[0]).toBe('already stored as sent: nothing changed (200)');
    const notJson = join(work, 'broken.json');
    writeFileSync(notJson, '{');
    expect(cincy(['release', 'add', notJson], env).stderr).toContain(`${notJson}:`);

    const get = cincy(['release', 'get', '4.1.0'], env);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/^Version:\s+4\.1\.0$/m);
    expect(get.stdout).toMatch(/^Channels:\s+stable-4\.1$/m);

    // Channels: create from a file, read, list.
    const channelFile = join(work, 'fast-4.1.yaml');
    writeFileSync(channelFile, 'name: fast-4.1\nversions:\n- 4.1.0\n- 4.1.7\n');
    expect(cincy(['channel', 'put', channelFile], env).stdout).toBe('fast-4.1: created (201)\n');
    expect(cincy(['channel', 'put', channelFile], env).stdout).toBe('fast-4.1: replaced (200)\n');
    const shown = cincy(['channel', 'get', 'fast-4.1'], env);
    expect(shown.stdout).toMatch(/^Channel:\s+fast-4\.1 \(public\)$/m);
    expect(shown.stdout).toMatch(/^4\.1\.7\s/m);
    expect(cincy(['channel', 'ls'], env).stdout).toMatch(/^fast-4\.1\s+2\s+4\.1\.7/m);
    const graph = (await fresh(`${server.url}/graph?channel=fast-4.1`)) as { nodes: unknown[] };
    expect(graph.nodes).toHaveLength(2);

    // Tombstones: a member is refused (withdraw it instead); a tombstone blocks promotion until lifted.
    expect(cincy(['tombstone', 'add', '4.1.7', '--channel', 'fast-4.1'], env).stderr).toContain('409 conflict');
    expect(cincy(['withdraw', '4.1.7', '--from', 'fast-4.1'], env).code).toBe(0);
    expect(cincy(['tombstone', 'ls', '--channel', 'fast-4.1'], env).stdout).toBe('4.1.7\n');
    expect(cincy(['tombstone', 'rm', '4.1.7', '--channel', 'fast-4.1'], env).stdout).toBe(
      'tombstone of 4.1.7 lifted in fast-4.1\n',
    );
    expect(cincy(['promote', '4.1.7', '--to', 'fast-4.1'], env).stdout).toContain('promoted');
    expect(cincy(['tombstone', 'add', '4.2.0', '--channel', 'fast-4.1'], env).stdout).toBe(
      '4.2.0 tombstoned in fast-4.1\n',
    );
    expect(cincy(['tombstone', 'add', '4.2.0', '--channel', 'fast-4.1'], env).stdout).toBe(
      '4.2.0 was tombstoned already in fast-4.1\n',
    );
    expect(cincy(['tombstone', 'rm', '4.9.9', '--channel', 'fast-4.1'], env).stderr).toContain('404 does_not_exist');

    expect(cincy(['channel', 'rm', 'fast-4.1', '--reason', 'retired'], env).stdout).toBe('fast-4.1 deleted\n');
    const gone = (await fresh(`${server.url}/graph?channel=fast-4.1`)) as { nodes: unknown[] };
    expect(gone.nodes).toHaveLength(0);
    expect(cincy(['channel', 'get', 'fast-4.1'], env).stderr).toContain('404');

    expect(cincy(['release', 'rm', '4.1.7', '--reason', 'pulled'], env).stdout).toBe('4.1.7 (amd64) deleted\n');
    expect(cincy(['release', 'get', '4.1.7'], env).stderr).toContain('404 does_not_exist');
    const audit = cincy(['audit', '-o', 'json'], env);
    const actions = (JSON.parse(audit.stdout) as { entries: Array<{ action: string }> }).entries.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['channel.delete', 'channel.tombstone', 'channel.tombstone.lift', 'release.delete']),
    );
  });

  it('keys generate --openpgp and sign make a signature the server (and so a cluster) verifies; signatures add uploads it', async () => {
    const work = cleanup.dir();
    const keys = join(work, 'keys');
    const gen = cincy(['keys', 'generate', '--openpgp', '--alg', 'EdDSA', '--kid', 'release-key', '--out', keys]);
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stdout).toContain(`public key: ${join(keys, 'release-key.asc')}`);
    const sigFile = join(work, 'signature-1');
    const signed = cincy([
      'sign',
      '--key',
      join(keys, 'release-key.private.asc'),
      '--payload',
      PAYLOAD,
      '--out',
      sigFile,
    ]);
    expect(signed.code, signed.stderr).toBe(0);

    // The file is a binary OpenPGP signed message holding the statement, by the key just made.
    const publicKey = await openpgp.readKey({ armoredKey: readFileSync(join(keys, 'release-key.asc'), 'utf8') });
    const message = await openpgp.readMessage({ binaryMessage: readFileSync(sigFile) });
    const verified = await openpgp.verify({ message, verificationKeys: publicKey, format: 'binary' });
    await verified.signatures[0]!.verified;
    const statement = JSON.parse(Buffer.from(verified.data).toString('utf8')) as {
      critical: { image: { 'docker-manifest-digest': string } };
    };
    expect(statement.critical.image['docker-manifest-digest']).toBe(`sha256:${HEX}`);

    const secret = secretFile(work);
    const trust = join(work, 'trust');
    mkdirSync(trust);
    copyFileSync(join(keys, 'release-key.asc'), join(trust, 'release-key.asc'));
    const tree = writeTree(join(work, 'tree'), {
      'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.1]\n',
      'releases/amd64/4.1.1.json': release('4.1.1', { payload: PAYLOAD }),
    });
    const server = await serveCli(
      ['--db', ':memory:', '--graph-data', tree, '--admin-jwt-secret-file', secret, '--trust-keys', trust],
      cleanup,
    );
    const env = { CINCY_SERVER: server.url, CINCY_TOKEN: token(secret, 'releases:write') };
    const up = cincy(['signature', 'add', '4.1.1', sigFile], env);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/verified and stored as openpgp signature 1 of sha256:d{64} by key [0-9a-f]{16} \(201\)/);
    expect(cincy(['signatures', 'add', '4.1.1', sigFile], env).stdout).toContain('stored already');
    const served = await fetch(`${server.url}/signatures/sha256=${HEX}/signature-1`);
    expect(Buffer.from(await served.arrayBuffer()).equals(readFileSync(sigFile))).toBe(true);

    // The ConfigMaps oc-mirror writes beside the mirror, imported in one command (a List of them, as
    // `oc get configmap -o yaml` prints, with one that is not a signature ConfigMap and a digest no release has).
    const other = 'e'.repeat(64);
    const configMaps = join(work, 'signature-configmaps.yaml');
    const signatureCm = (hex: string, bytes: Buffer): object => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `sha256-${hex}`,
        namespace: 'openshift-config-managed',
        labels: { 'release.openshift.io/verification-signatures': '' },
      },
      binaryData: { [`sha256-${hex}-1`]: bytes.toString('base64') },
    });
    writeFileSync(
      configMaps,
      stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          signatureCm(HEX, readFileSync(sigFile)),
          signatureCm(other, readFileSync(sigFile)),
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unrelated' }, data: { a: 'b' } },
        ],
      }),
    );
    const imported = cincy(['signatures', 'import', configMaps], env);
    expect(imported.code, imported.stderr).toBe(1); // the digest no release has
    expect(imported.stdout, imported.stderr).toContain(`sha256-${HEX}-1: stored already for 4.1.1 (amd64)`);
    expect(imported.stderr).toContain(`sha256-${other}-1: no release on the server has the payload sha256:${other}`);
    expect(imported.stderr).toContain('ConfigMap unrelated: no release.openshift.io/verification-signatures label');
    expect(imported.stderr).toContain('1 stored, 1 refused, 1 skipped');

    // A JWS of another key is refused by the same server, naming why.
    cincy(['keys', 'generate', '--kid', 'other', '--out', keys]);
    const jws = join(work, 'other.jws');
    cincy(['sign', '--key', join(keys, 'other.private.jwk.json'), '--payload', PAYLOAD, '--out', jws]);
    expect(cincy(['signatures', 'add', '4.1.1', jws], env).stderr).toContain('400 invalid_signature');
  });
});
