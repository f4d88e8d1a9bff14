// A mirror laid out exactly as oc-mirror v2 leaves it, pushed with skopeo to a real registry over TLS, and
// served by `cincy serve` as a process pointed where an UpdateService points: release images in
// openshift/release-images under their upstream tags (Docker schema 2, a Docker manifest list for the
// multi-arch releases), the sigstore signature tags oc-mirror copies beside them (the image's, and for a
// manifest list the list's and each member's), the components in openshift/release, and the graph image
// openshift/graph-image:latest built on a multi-arch base with the graph-data layer on top.
import { join } from 'node:path';
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { cincyAsync, serveCli, useCleanup, waitReady } from '../support/cli.js';
import { OciLayout, type Descriptor, type LayerDescriptor } from '../support/ociLayout.js';
import {
  OC_MIRROR,
  RELEASE_TAG_ARCH,
  dockerImage,
  dockerList,
  exportDir,
  graphImage,
  ocpReleaseImage,
  signatureTag,
  sigstoreKeys,
  sigstoreSignature,
  skopeoPushDir,
} from '../support/ocMirror.js';
import { registryAvailable, startRegistry } from '../support/registry.js';

const cleanup = useCleanup();

/** The repository Red Hat publishes release images in, and signs them as. */
const UPSTREAM = 'quay.io/openshift-release-dev/ocp-release';
const COMPONENTS_UPSTREAM = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const MULTI_ARCHES = ['amd64', 'arm64', 'ppc64le', 's390x'];

interface Graph {
  nodes: Array<{ version: string; payload: string; metadata: Record<string, string> }>;
  edges: Array<[number, number]>;
  conditionalEdges: Array<{ edges: Array<{ from: string; to: string }>; risks: Array<{ name: string }> }>;
}

describe.runIf(registryAvailable())('a mirror as oc-mirror v2 lays it out, served as is', () => {
  it('serves every release by digest (multi-arch under arch=multi), signatures neither releases nor noise, channels from the graph image', async () => {
    const reg = await startRegistry({ dir: cleanup.dir(), tls: true }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    const keys = sigstoreKeys();
    /** What goes to the mirror: each image or manifest list, and the repository:tag oc-mirror gives it. */
    const copies: Array<{ d: Descriptor; to: string; list: boolean }> = [];
    const mirror = (d: Descriptor, to: string, list = false): void => void copies.push({ d, to, list });
    /** Signs a manifest as Red Hat signs a release, and mirrors the signature tag beside it. */
    const signed = (d: Descriptor): void =>
      mirror(
        sigstoreSignature(layout, d.digest, UPSTREAM, keys.privateKey),
        `${OC_MIRROR.releaseImages}:${signatureTag(d.digest)}`,
      );

    const base = await layout.layer({ 'etc/os-release': 'NAME="Red Hat Enterprise Linux CoreOS"\n' });
    const history: Record<string, string[]> = { '4.16.0': [], '4.16.1': ['4.16.0'], '4.16.2': ['4.16.0', '4.16.1'] };
    const releases: Array<{ version: string; arch: string }> = [
      ...['4.16.0', '4.16.1', '4.16.2'].map((version) => ({ version, arch: 'amd64' })),
      ...['4.16.1', '4.16.2'].map((version) => ({ version, arch: 'arm64' })),
    ];
    /** The digest each release was pushed with, by `arch/version` (arch `multi` for a manifest list). */
    const payloads = new Map<string, string>();

    // A release's components: images of their own, mirrored to openshift/release as <release tag>-<name>.
    const components = async (releaseTag: string, arches: string[]): Promise<Record<string, string>> => {
      const named: Record<string, string> = {};
      for (const name of ['cli', 'etcd']) {
        const images: Descriptor[] = [];
        for (const arch of arches) {
          const layer = await layout.layer({ [`usr/bin/${name}`]: `${name} ${releaseTag} ${arch}\n` });
          images.push(dockerImage(layout, { layers: [base, layer], arch }));
        }
        const d = images.length > 1 ? dockerList(layout, images) : images[0]!;
        mirror(d, `${OC_MIRROR.releaseComponents}:${releaseTag}-${name}`, images.length > 1);
        named[name] = `${COMPONENTS_UPSTREAM}@${d.digest}`;
      }
      return named;
    };

    for (const { version, arch } of releases) {
      const tag = `${version}-${RELEASE_TAG_ARCH[arch]}`;
      const d = await ocpReleaseImage(layout, {
        version,
        previous: history[version],
        arch,
        below: [base],
        components: await components(tag, [arch]),
      });
      mirror(d, `${OC_MIRROR.releaseImages}:${tag}`);
      signed(d);
      payloads.set(`${arch}/${version}`, d.digest);
    }
    for (const version of ['4.16.1', '4.16.2']) {
      const tag = `${version}-multi`;
      const named = await components(tag, MULTI_ARCHES);
      const members: Descriptor[] = [];
      for (const arch of MULTI_ARCHES)
        members.push(
          await ocpReleaseImage(layout, {
            version,
            previous: history[version],
            arch,
            metadata: { 'release.openshift.io/architecture': 'multi', url: `https://errata.example.com/${version}` },
            below: [base],
            components: named,
          }),
        );
      const list = dockerList(layout, members);
      mirror(list, `${OC_MIRROR.releaseImages}:${tag}`, true);
      // oc-mirror copies the signature of the list and of every image in it.
      for (const d of [list, ...members]) signed(d);
      payloads.set(`multi/${version}`, list.digest);
    }

    // The graph image: UBI's platforms, each with the graph-data tarball's entries on top.
    const ubi: Record<string, LayerDescriptor[]> = {};
    for (const arch of MULTI_ARCHES)
      ubi[arch] = [
        await layout.layer({
          'etc/os-release': 'NAME="Red Hat Enterprise Linux"\nVERSION_ID="9.4"\n',
          'usr/bin/bash': `bash for ${arch}\n`,
          'var/lib/.keep': '',
        }),
      ];
    const channel = (name: string): string => `name: ${name}\nversions:\n- 4.16.0\n- 4.16.1\n- 4.16.2\n`;
    const graph = await graphImage(layout, ubi, {
      LICENSE: 'Apache License, Version 2.0\n',
      version: '1.1.0\n',
      'channels/stable-4.16.yaml': channel('stable-4.16'),
      'channels/fast-4.16.yaml': channel('fast-4.16'),
      'channels/candidate-4.16.yaml': channel('candidate-4.16'),
      'blocked-edges/4.16.2-ExampleRisk.yaml':
        'to: 4.16.2\nfrom: 4[.]16[.]0\nurl: https://issues.example/1\nname: ExampleRisk\nmessage: It breaks.\nmatchingRules:\n- type: Always\n',
    });
    mirror(graph, `${OC_MIRROR.graphImage}:latest`, true);

    const exports = cleanup.dir();
    const limit = pLimit(8);
    await Promise.all(
      copies.map(({ d, to, list }, i) =>
        limit(() => skopeoPushDir(exportDir(layout, d, join(exports, String(i))), reg, to, list)),
      ),
    );
    // 5 single-arch releases, 2 manifest lists of 4: a signature for each of the 5 + 2 × 5 manifests.
    expect(copies.filter(({ to }) => to.endsWith('.sig'))).toHaveLength(15);

    // Pointed where oc-mirror's updateService.yaml points the UpdateService.
    const releasesRepo = reg.reference(OC_MIRROR.releaseImages);
    const graphRef = `${reg.reference(OC_MIRROR.graphImage)}:latest`;
    const db = join(cleanup.dir(), 'cincy.db');
    const served = await serveCli(
      ['--db', db, '--releases', releasesRepo, '--graph-data-image', graphRef, '--registry-ca', reg.caFile!],
      cleanup,
    );
    await waitReady(served.url);
    const graphOf = async (channelName: string, arch: string): Promise<Graph> => {
      const res = await fetch(`${served.url}/graph?channel=${channelName}&arch=${arch}`, {
        headers: { accept: 'application/json' },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Graph;
    };

    // Every release, its payload the mirror's repository by digest; the manifest list under arch=multi.
    for (const arch of ['amd64', 'arm64', 'multi']) {
      const g = await graphOf('stable-4.16', arch);
      const expected = [...payloads].filter(([k]) => k.startsWith(`${arch}/`));
      expect(g.nodes.map((n) => [`${arch}/${n.version}`, n.payload]).sort()).toEqual(
        expected.map(([k, digest]) => [k, `${reg.host}/${OC_MIRROR.releaseImages}@${digest}`]).sort(),
      );
      const edges = g.edges.map(([a, b]) => `${g.nodes[a]!.version}->${g.nodes[b]!.version}`).sort();
      const conditional = g.conditionalEdges.flatMap((c) => c.edges.map((e) => `${e.from}->${e.to}`));
      if (arch === 'arm64') expect(edges).toEqual(['4.16.1->4.16.2']);
      else {
        // 4.16.0 -> 4.16.2 is blocked by the graph image's blocked-edges: offered with its risk.
        expect(edges).toEqual(arch === 'multi' ? ['4.16.1->4.16.2'] : ['4.16.0->4.16.1', '4.16.1->4.16.2']);
        if (arch === 'amd64') expect(conditional).toEqual(['4.16.0->4.16.2']);
      }
    }
    const multi = await graphOf('stable-4.16', 'multi');
    expect(multi.nodes.every((n) => n.metadata['release.openshift.io/architecture'] === 'multi')).toBe(true);
    for (const channelName of ['fast-4.16', 'candidate-4.16'])
      expect((await graphOf(channelName, 'amd64')).nodes.map((n) => n.version).sort()).toEqual([
        '4.16.0',
        '4.16.1',
        '4.16.2',
      ]);

    // The signature tags are counted as what they are, and not warned about: they belong beside the images.
    const ready = (await (await fetch(`${served.url}/readyz`)).json()) as {
      sources: Array<{ name: string; kind: string; digest?: string; warnings?: string[]; releases?: number }>;
    };
    const releaseSource = ready.sources.find((s) => s.kind === 'registry-releases')!;
    expect(releaseSource.warnings).toBeUndefined();
    expect(releaseSource.releases).toBe(7);
    expect(ready.sources.find((s) => s.kind !== 'registry-releases')!.digest).toBe(graph.digest);
    const log = served.log();
    expect(log).not.toContain('registry tag skipped');
    const scraped = log
      .split('\n')
      .filter((l) => l.includes('"msg":"registry scraped"'))
      .map((l) => JSON.parse(l) as { tags: number; skipped: Record<string, number> });
    expect(scraped[0]).toMatchObject({ tags: 22, skipped: { signature: 15, notRelease: 0, member: 0 } });

    // A one-shot import says the same in its summary.
    const imported = await cincyAsync([
      'import',
      '--db',
      join(cleanup.dir(), 'import.db'),
      '--releases',
      releasesRepo,
      '--registry-ca',
      reg.caFile!,
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).not.toContain('not a release image');
    expect(imported.stdout).toMatch(/7 releases from 22 tags .*skipped: 0 not release images, .*15 signatures/);
  });
});
