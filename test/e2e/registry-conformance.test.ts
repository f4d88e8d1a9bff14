// The real conformance set served entirely from a registry, as a disconnected update service is fed:
// every release record becomes a release image (pushed with cincy's image writer), the graph-data tree
// (without its releases/) becomes a graph-data image (pushed with skopeo), and `cincy serve --releases
// … --graph-data-image …` must answer every captured channel exactly, payloads naming the test registry.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { RegistryClient } from '../../src/registry/client.js';
import { layerOf, pushImage } from '../../src/registry/imageWriter.js';
import { parseRepository } from '../../src/registry/reference.js';
import { serveCli, useCleanup, waitReady } from '../support/cli.js';
import { CONFORMANCE_DIR, conformanceAvailable, expectedChannels, normalise } from '../support/conformance.js';
import { OciLayout } from '../support/ociLayout.js';
import { registryAvailable, startRegistry } from '../support/registry.js';
import { skopeoCopy } from '../support/skopeo.js';

const cleanup = useCleanup();
const SET = 'real-2024-08-09';

/** Every file of a folder, relative to it, except what `skip` names. */
function filesOf(root: string, skip: (rel: string) => boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      const rel = relative(root, path);
      if (skip(rel)) continue;
      if (e.isDirectory()) walk(path);
      else out.set(rel, readFileSync(path));
    }
  };
  walk(root);
  return out;
}

describe.runIf(registryAvailable() && conformanceAvailable())('conformance served from a registry', () => {
  it(`reproduces every captured channel of ${SET} from release images and a graph-data image`, async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const graphData = join(CONFORMANCE_DIR, SET, 'graph-data');
    const records = readdirSync(join(graphData, 'releases', 'amd64'))
      .filter((f) => f.endsWith('.json'))
      .map(
        (f) =>
          JSON.parse(readFileSync(join(graphData, 'releases', 'amd64', f), 'utf8')) as {
            kind: string;
            version: string;
            previous?: string[];
            next?: string[];
            metadata?: Record<string, string>;
          },
      );

    // Release images: a shared base layer and a release layer each, as `oc adm release new` makes them.
    const client = new RegistryClient(parseRepository(reg.reference('ocp/release'), 'test'));
    cleanup.add(() => client.close());
    const base = await layerOf(new Map([['etc/os-release', 'ID=rhel\n']]));
    const digests = new Map<string, string>();
    const limit = pLimit(8);
    await Promise.all(
      records.map((r) =>
        limit(async () => {
          const { kind, version, previous, next, metadata } = r;
          const doc = JSON.stringify({ kind, version, previous, next, metadata });
          const top = await layerOf(new Map([['release-manifests/release-metadata', doc]]));
          const d = await pushImage(client, { layers: [base, top], arch: 'amd64', tag: `${version}-x86_64` });
          digests.set(version, d.digest);
        }),
      ),
    );

    // The graph-data image: the tree under /var/lib/cincinnati-graph-data/, without the release records.
    const layout = new OciLayout(cleanup.dir());
    const tree = filesOf(graphData, (rel) => rel === 'releases');
    const files = Object.fromEntries([...tree].map(([rel, bytes]) => [`var/lib/cincinnati-graph-data/${rel}`, bytes]));
    layout.image({ layers: [await layout.layer(files)], arch: 'amd64', tag: 'gd' });
    await skopeoCopy(layout.dir, 'gd', reg, 'ocp/graph-data:latest');

    const served = await serveCli(
      [
        '--db',
        ':memory:',
        '--releases',
        reg.reference('ocp/release'),
        '--graph-data-image',
        `${reg.reference('ocp/graph-data')}:latest`,
      ],
      cleanup,
    );
    await waitReady(served.url, 120_000);
    const ready = (await (await fetch(`${served.url}/readyz`)).json()) as {
      status: string;
      graph: { releases: number };
    };
    expect(ready.status).toBe('ready');
    expect(ready.graph.releases).toBe(records.length);

    const expected = expectedChannels(SET);
    const mismatches: string[] = [];
    for (const { channel, doc } of expected) {
      const res = await fetch(`${served.url}/api/upgrades_info/v1/graph?channel=${channel}&arch=amd64`, {
        headers: { accept: 'application/json' },
      });
      const got = (await res.json()) as Parameters<typeof normalise>[0];
      // The captured nodes, with payloads (and the manifestref label) naming the image pushed for each version.
      const want = {
        ...doc,
        nodes: doc.nodes.map((n) => ({
          ...n,
          payload: `${reg.host}/ocp/release@${digests.get(n.version)}`,
          metadata: { ...n.metadata, 'io.openshift.upgrades.graph.release.manifestref': digests.get(n.version)! },
        })),
      };
      for (const n of got.nodes)
        if (n.metadata?.['io.openshift.upgrades.graph.release.manifestref'] !== digests.get(n.version))
          mismatches.push(`${channel}: ${n.version}: manifestref is not the pushed digest`);
      const g = normalise(got);
      const w = normalise(want);
      const diffs = (Object.keys(w) as Array<keyof typeof w>).filter(
        (k) => JSON.stringify(g[k]) !== JSON.stringify(w[k]),
      );
      if (diffs.length) mismatches.push(`${channel}: ${diffs.join(', ')}`);
    }
    console.log(
      `conformance from a registry: ${expected.length - mismatches.length}/${expected.length} channels exact`,
    );
    expect(mismatches).toEqual([]);
  }, 240_000);
});
