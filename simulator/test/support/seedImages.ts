// Seed images for the image-based upgrade tests, made as lca-cli makes them (FROM scratch: the seed format and
// seed cluster labels, manifest.json and containers.list at the root, beside the stateroot's archives) in an
// OCI layout and pushed to a test registry with skopeo, a writer independent of the code under test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OciLayout } from '../../../test/support/ociLayout.js';
import type { TestRegistry } from '../../../test/support/registry.js';
import { skopeoCopy } from '../../../test/support/skopeo.js';

const FORMAT_LABEL = 'com.openshift.lifecycle-agent.seed_format_version';
const INFO_LABEL = 'com.openshift.lifecycle-agent.seed_cluster_info';

export interface SeedSpec {
  /** The seed cluster's version, in its labels and manifest.json. */
  version: string;
  /** The version manifest.json says, when it is to differ from `version`. */
  manifestVersion?: string;
  /** The seed format label: a value, or null for none (default 4, as the agent wants). */
  format?: string | null;
  /** The images containers.list names. */
  images?: string[];
  /** Bytes of the stateroot archive (ostree.tgz stands for it). */
  ostreeBytes?: number;
}

export interface PushedSeed {
  /** `host:port/repository:tag`, as spec.seedImageRef.image names it. */
  image: string;
  /** The image manifest's digest. */
  digest: string;
  /** Its files' bytes and its configuration's: what it takes in container storage once pulled. */
  unpackedBytes: number;
}

/** Makes the seed image in the layout `dir` and pushes it to `registry` as `repo:tag`. */
export async function pushSeed(
  dir: string,
  registry: TestRegistry,
  repo: string,
  tag: string,
  s: SeedSpec,
): Promise<PushedSeed> {
  const layout = new OciLayout(dir);
  const info = JSON.stringify({
    seed_cluster_ocp_version: s.version,
    cluster_name: 'seed',
    base_domain: 'example.com',
    has_proxy: false,
    has_fips: false,
  });
  const files: Record<string, string | Buffer> = {
    'manifest.json': JSON.stringify({ ...JSON.parse(info), seed_cluster_ocp_version: s.manifestVersion ?? s.version }),
    'containers.list': (s.images ?? ['quay.example/ocp/etcd@sha256:1', 'quay.example/ocp/coredns@sha256:2'])
      .map((i) => `${i}\n`)
      .join(''),
    'ostree.tgz': Buffer.alloc(s.ostreeBytes ?? 64 * 1024, 7),
    'etc.tgz': Buffer.alloc(1024, 1),
    'var.tgz': Buffer.alloc(2048, 2),
  };
  const labels: Record<string, string> = { [INFO_LABEL]: info };
  if (s.format !== null) labels[FORMAT_LABEL] = s.format ?? '4';
  const layer = await layout.layer(files);
  const manifest = layout.image({ layers: [layer], arch: 'amd64', labels, tag });
  const doc = JSON.parse(readFileSync(join(dir, 'blobs', 'sha256', manifest.digest.slice(7)), 'utf8')) as {
    config: { size: number };
  };
  await skopeoCopy(dir, tag, registry, `${repo}:${tag}`);
  const unpackedBytes = Object.values(files).reduce((n, f) => n + Buffer.byteLength(f), doc.config.size);
  return { image: `${registry.host}/${repo}:${tag}`, digest: manifest.digest, unpackedBytes };
}
