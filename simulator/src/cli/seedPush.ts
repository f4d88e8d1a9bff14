// `cincy seed push`: makes the seed image of an image-based upgrade to a release, as lca-cli builds one from a
// seed cluster (FROM scratch: the seed format and seed cluster labels, manifest.json with the seed cluster's
// info and version, containers.list with the images precaching pulls), and pushes it to a registry, where the
// single-node mock cluster's host pulls it at Prep. Prints its pull spec by digest.
import { createHash } from 'node:crypto';
import { isReleaseVersion } from 'cincy/graph/version';
import { registryAccess } from 'cincy/cli/registryFlags';
import { RegistryClient } from 'cincy/registry/client';
import { layerOf, pushImage } from 'cincy/registry/imageWriter';
import { describe, parseRepository, pullSpec, TAG } from 'cincy/registry/reference';
import {
  CONTAINERS_LIST_FILE,
  SEED_CLUSTER_INFO_FILE,
  SEED_CLUSTER_INFO_LABEL,
  SEED_FORMAT_LABEL,
  SEED_FORMAT_VERSION,
  type SeedClusterInfo,
} from '../payloads/seedImage.js';

export interface SeedPushOptions {
  version: string;
  registry: string;
  tag?: string;
  registryCredentials?: string;
  registryCa?: string;
}

/** Components whose images a seed of a release lists for precaching (a sample of a release's). */
const COMPONENTS = ['cli', 'coredns', 'etcd', 'haproxy-router', 'hyperkube', 'machine-config-operator', 'oauth-proxy'];

/** The seed's files (path → content) and labels for `version`. */
export function seedContent(version: string): { files: Map<string, string>; labels: Record<string, string> } {
  const info: SeedClusterInfo = {
    seed_cluster_ocp_version: version,
    base_domain: 'example.com',
    cluster_name: 'seed',
    release_registry: 'quay.io',
    has_proxy: false,
    has_fips: false,
  };
  const images = COMPONENTS.map(
    (c) =>
      `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${createHash('sha256').update(`${c} ${version}`).digest('hex')}`,
  );
  return {
    files: new Map([
      [SEED_CLUSTER_INFO_FILE, `${JSON.stringify(info)}\n`],
      [CONTAINERS_LIST_FILE, `${images.join('\n')}\n`],
    ]),
    labels: { [SEED_FORMAT_LABEL]: String(SEED_FORMAT_VERSION), [SEED_CLUSTER_INFO_LABEL]: JSON.stringify(info) },
  };
}

export async function seedPush(o: SeedPushOptions): Promise<number> {
  if (!isReleaseVersion(o.version)) throw new Error(`--version: '${o.version}' is not a release version (x.y.z)`);
  const ref = parseRepository(o.registry, '--registry');
  const tag = o.tag ?? o.version;
  if (!TAG.test(tag))
    throw new Error(`--tag: '${tag}' is not a tag (letters, digits, _ . -, at most 128, not starting with . or -)`);
  const { files, labels } = seedContent(o.version);
  const client = new RegistryClient(ref, registryAccess(o));
  let digest: string;
  try {
    digest = (await pushImage(client, { layers: [await layerOf(files)], arch: 'amd64', tag, labels })).digest;
  } catch (err) {
    throw new Error(`pushing the seed of ${o.version} to ${describe({ ...ref, tag })}: ${(err as Error).message}`);
  } finally {
    await client.close();
  }
  process.stderr.write(`pushed the seed image of ${o.version} to ${describe({ ...ref, tag })}\n`);
  process.stdout.write(`${pullSpec(ref, digest)}\n`);
  return 0;
}
