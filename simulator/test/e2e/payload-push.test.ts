// `cincy payload push` to a real registry (Debian's docker-registry), read back by a real client (skopeo):
// a single-architecture release image and a multi-architecture index, the same digest when pushed again,
// the release of a cincy server (--release), the payload also in the local store, TLS and credentials
// (and the mock cluster's payload Job pulling with the same), and the flags it refuses.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobKey } from '@cincy/simulator/controllers/jobs';
import { kindNamed } from '@cincy/simulator/apiserver/kinds';
import { PayloadPuller } from '@cincy/simulator/controllers/payloadPuller';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { LABEL } from 'cincy/graph/model';
import { RELEASE_IMAGE_PLACEHOLDER } from 'cincy/payload/load';
import { pullPayload } from 'cincy/payload/pull';
import { PayloadStore } from 'cincy/payload/store';
import { RegistryCredentials } from 'cincy/registry/credentials';
import { parseImage } from 'cincy/registry/reference';
import { cincyAsync, useCleanup } from '../../../test/support/cli.js';
import { registryAvailable, startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { SKOPEO } from '../../../test/support/skopeo.js';
import { startServer, tempDir } from '../../../test/support/server.js';
import { release, writeTree } from '../../../test/support/trees.js';

const cleanup = useCleanup();
const available = registryAvailable();
let registry: TestRegistry;

beforeAll(async () => {
  if (!available) return;
  const dir = tempDir();
  const stopped: Array<() => unknown> = [];
  registry = await startRegistry({ dir: dir.path }, { add: (f) => void stopped.push(f) });
  return async () => {
    for (const f of stopped) await f();
    dir.remove();
  };
}, 60_000);

const skopeo = (...args: string[]): string =>
  execFileSync(SKOPEO, ['inspect', '--tls-verify=false', ...args], { encoding: 'utf8', timeout: 30_000 });
/** The release files of a pushed image, as a cluster's payload Job reads them. */
const pulled = (spec: string, arch?: string): Promise<Map<string, string>> => {
  const ref = parseImage(spec, 'spec');
  return pullPayload({ ...ref, secure: false }, { arch });
};
const SPEC = /^(127\.0\.0\.1:\d+\/ocp\/release@sha256:[0-9a-f]{64})\n$/;

describe.skipIf(!available)('cincy payload push', () => {
  it('pushes a release image a real client reads, prints its pull spec by digest, and stores its payload', async () => {
    const store = cleanup.dir();
    const args = [
      'payload',
      'push',
      '--version',
      '4.16.1',
      '--previous',
      '4.16.0',
      '--url',
      'https://errata.example/1',
    ];
    const r = await cincyAsync([...args, '--registry', registry.reference('ocp/release'), '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    const spec = SPEC.exec(r.stdout)![1]!;
    expect(r.stderr).toContain(`pushed 4.16.1 amd64 to ${registry.reference('ocp/release')}:4.16.1-x86_64\n`);

    const inspected = JSON.parse(skopeo(`docker://${registry.host}/ocp/release:4.16.1-x86_64`)) as {
      Digest: string;
      Architecture: string;
      Os: string;
      Labels: Record<string, string>;
      Layers: string[];
    };
    expect(inspected).toMatchObject({
      Digest: spec.split('@')[1],
      Architecture: 'amd64',
      Os: 'linux',
      Labels: { 'io.openshift.release': '4.16.1' },
    });
    expect(inspected.Layers).toHaveLength(1);
    const raw = JSON.parse(skopeo('--raw', `docker://${spec}`)) as { mediaType: string };
    expect(raw.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');

    // The image holds the payload of `payload create`, with the release image left for the agent to render.
    const files = await pulled(spec);
    expect(JSON.parse(files.get('release-metadata')!)).toEqual({
      kind: 'cincinnati-metadata-v0',
      version: '4.16.1',
      previous: ['4.16.0'],
      metadata: { url: 'https://errata.example/1' },
    });
    const cvo = files.get('0000_00_cluster-version-operator_03_deployment.yaml')!;
    expect(cvo).toContain(`image: "${RELEASE_IMAGE_PLACEHOLDER}"`);
    expect(cvo).toContain(`--release-image=${RELEASE_IMAGE_PLACEHOLDER}`);
    expect(files.get('image-references')).toContain(`"name": "${registry.host}/ocp/ocp-v4.0-art-dev@sha256:`);
    expect(files.size).toBeGreaterThan(500);

    // The same payload in the local store, under the pull spec; loaded for it, the CVO runs the release image.
    const stored = new PayloadStore(store);
    const payload = stored.load(spec);
    const deployment = payload.manifests
      .find((m) => m.file === '0000_00_cluster-version-operator_03_deployment.yaml')!
      .docs.find((d) => d.kind === 'Deployment') as unknown as {
      spec: { template: { spec: { containers: Array<{ image: string; args: string[] }> } } };
    };
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: spec,
      args: expect.arrayContaining([`--release-image=${spec}`]),
    });

    // Deterministic: pushed again (not stored), the same digest.
    const again = await cincyAsync([...args, '--registry', registry.reference('ocp/release'), '--no-store']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(r.stdout);
    expect(again.stderr).not.toContain('wrote its payload');
  });

  it('pushes a multi-architecture release as an index of one image per architecture', async () => {
    const r = await cincyAsync([
      'payload',
      'push',
      '--version',
      '4.16.2',
      '--arch',
      'multi',
      '--registry',
      registry.reference('ocp/release'),
      '--no-store',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const spec = SPEC.exec(r.stdout)![1]!;
    expect(r.stderr).toContain(`pushed 4.16.2 multi (amd64, arm64, ppc64le, s390x) to `);
    const index = JSON.parse(skopeo('--raw', `docker://${registry.host}/ocp/release:4.16.2-multi`)) as {
      mediaType: string;
      manifests: Array<{ digest: string; platform: { architecture: string; os: string } }>;
    };
    expect(index.mediaType).toBe('application/vnd.oci.image.index.v1+json');
    expect(index.manifests.map((m) => m.platform)).toEqual(
      ['amd64', 'arm64', 'ppc64le', 's390x'].map((architecture) => ({ architecture, os: 'linux' })),
    );
    const arm = JSON.parse(
      skopeo('--override-arch', 'arm64', `docker://${registry.host}/ocp/release:4.16.2-multi`),
    ) as { Digest: string; Architecture: string };
    // skopeo reports the architecture of the member it picked, and the digest of the index it was asked for.
    expect(arm).toMatchObject({ Architecture: 'arm64', Digest: spec.split('@')[1] });
    expect(JSON.parse(skopeo('--raw', `docker://${spec}`))).toEqual(index);
    const metadata = JSON.parse((await pulled(spec, 's390x')).get('release-metadata')!) as {
      metadata: Record<string, string>;
    };
    expect(metadata.metadata).toEqual({ [LABEL.architecture]: 'multi' });
  });

  it('pushes the release a cincy server holds (--release)', async () => {
    const tree = writeTree(join(cleanup.dir(), 'tree'), {
      'releases/arm64/4.16.5.json': release('4.16.5', {
        architecture: 'arm64',
        previous: ['4.16.4'],
        metadata: { url: 'https://errata.example/RHBA-1' },
      }),
    });
    const server = await startServer({ graphData: tree });
    cleanup.add(() => server.close());
    const r = await cincyAsync([
      'payload',
      'push',
      '--release',
      '4.16.5',
      '--arch',
      'arm64',
      '--server',
      server.url,
      '--registry',
      registry.reference('ocp/release'),
      '--no-store',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const spec = SPEC.exec(r.stdout)![1]!;
    const arch = JSON.parse(skopeo(`docker://${registry.host}/ocp/release:4.16.5-aarch64`)) as {
      Digest: string;
      Architecture: string;
    };
    expect(arch).toEqual(expect.objectContaining({ Digest: spec.split('@')[1], Architecture: 'arm64' }));
    expect(JSON.parse((await pulled(spec)).get('release-metadata')!)).toEqual({
      kind: 'cincinnati-metadata-v0',
      version: '4.16.5',
      previous: ['4.16.4'],
      metadata: { url: 'https://errata.example/RHBA-1' },
    });
  });

  it('pushes over TLS with credentials, which the payload Job pulls with as well', async () => {
    const secure = await startRegistry(
      { dir: cleanup.dir(), tls: true, auth: { user: 'ci', password: 's3cret' } },
      cleanup,
    );
    const push = (...flags: string[]) =>
      cincyAsync([
        'payload',
        'push',
        '--version',
        '4.16.3',
        '--registry',
        secure.reference('ocp/release'),
        '--no-store',
        ...flags,
      ]);
    const [refused, pushed] = await Promise.all([
      push('--registry-ca', secure.caFile!),
      push('--registry-ca', secure.caFile!, '--registry-credentials', secure.credentialsFile!),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the registry wants credentials (give --registry-credentials)');
    expect(pushed.code, pushed.stderr).toBe(0);
    const spec = pushed.stdout.trim();
    expect(spec).toMatch(new RegExp(`^${secure.host.replace(/\./g, '\\.')}/ocp/release@sha256:[0-9a-f]{64}$`));

    // The mock cluster's Job with the same flags: --registry-credentials and --registry-ca, no --registry-plain-http.
    const state = new ClusterState();
    state.create(kindNamed('Job'), 'openshift-cluster-version', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'version-4.16.3-abcde' },
      spec: { template: { spec: { containers: [{ name: 'payload', image: spec }] } } },
    });
    const store = new PayloadStore(cleanup.dir());
    const puller = new PayloadPuller({
      store,
      credentials: RegistryCredentials.load(secure.credentialsFile!),
      ca: readFileSync(secure.caFile!, 'utf8'),
    });
    puller.start(state);
    await puller.idle();
    expect(
      puller.outcome(jobKey(state.get(kindNamed('Job'), 'openshift-cluster-version', 'version-4.16.3-abcde'))),
    ).toEqual({
      state: 'done',
    });
    expect(store.load(spec).version).toBe('4.16.3');
  });

  it('refuses flags it cannot use, naming them, before writing anything', async () => {
    const store = cleanup.dir();
    const repo = registry.reference('ocp/release');
    const cases: Array<[string[], string]> = [
      [['--registry', 'release'], "--registry: 'release' names no repository: expected HOST[:PORT]/REPOSITORY"],
      [['--registry', `${repo}:4.16.1`], `--registry: '${repo}:4.16.1' names an image`],
      [['--registry', repo, '--tag', '-x'], "--tag: '-x' is not a tag"],
      [['--registry', repo, '--arches', 'amd64,arm64'], '--arches: only with --arch multi'],
      [['--registry', repo, '--registry-ca', join(store, 'nope.pem')], '--registry-ca: '],
    ];
    // In parallel: each is a process start.
    const runs = await Promise.all(
      cases.map(([args]) => cincyAsync(['payload', 'push', '--version', '4.16.1', ...args, '--store', store])),
    );
    for (const [i, [args, message]] of cases.entries()) {
      const r = runs[i]!;
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.stdout).toBe('');
    }
    const noRegistry = await cincyAsync(['payload', 'push', '--version', '4.16.1']);
    expect(noRegistry.code).toBe(1);
    expect(noRegistry.stderr).toContain("required option '--registry <repository>' not specified");
    expect(existsSync(join(store, 'sha256'))).toBe(false);
  });
});
