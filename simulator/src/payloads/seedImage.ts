// The seed image of an image-based upgrade, as the Lifecycle Agent reads it (openshift-kni/lifecycle-agent:
// lca-cli builds it from a seed cluster, FROM scratch): labels naming its format and the seed cluster, and
// files at the root of its layer — manifest.json, the seed cluster's info with its OpenShift version, and
// containers.list, the images precaching pulls. Shared by the lifecycle agent (what it checks), the mock
// host (what it reads when it pulls the image) and `cincy seed push` (what it writes).

/** The seed format lca-cli writes and the agent accepts (internal/common/consts.go SeedFormatVersion). */
export const SEED_FORMAT_VERSION = 4;
export const SEED_FORMAT_LABEL = 'com.openshift.lifecycle-agent.seed_format_version';
export const SEED_CLUSTER_INFO_LABEL = 'com.openshift.lifecycle-agent.seed_cluster_info';
/** Files at the root of the seed image (SeedClusterInfoFileName, the containers list). */
export const SEED_CLUSTER_INFO_FILE = 'manifest.json';
export const CONTAINERS_LIST_FILE = 'containers.list';
export const SEED_FILES = [SEED_CLUSTER_INFO_FILE, CONTAINERS_LIST_FILE];
/** The key of a pull secret's config.json (corev1.DockerConfigJsonKey), as spec.seedImageRef.pullSecretRef names it. */
export const PULL_SECRET_KEY = '.dockerconfigjson';

/** lca-cli/seedclusterinfo.SeedClusterInfo, the fields cincy writes and reads. */
export interface SeedClusterInfo {
  seed_cluster_ocp_version?: string;
  base_domain?: string;
  cluster_name?: string;
  release_registry?: string;
  has_proxy: boolean;
  has_fips: boolean;
}

/**
 * What the agent finds wrong with a seed image's labels before it pulls the image (validateSeedImageConfig),
 * in the real agent's words; undefined when they are fine.
 */
export function seedLabelsProblem(labels: Record<string, string>): string | undefined {
  const format = labels[SEED_FORMAT_LABEL];
  if (format === undefined)
    return `checking seed image compatibility: seed image is missing the ${SEED_FORMAT_LABEL} label, please build a new image using the latest version of the lca-cli`;
  if (format !== String(SEED_FORMAT_VERSION))
    return `checking seed image compatibility: seed image format version mismatch: expected ${SEED_FORMAT_VERSION}, got ${format}`;
  const info = labels[SEED_CLUSTER_INFO_LABEL];
  if (info !== undefined) {
    try {
      JSON.parse(info);
    } catch (err) {
      return `failed to get seed cluster info from label: failed to unmarshal seed cluster info: ${(err as Error).message}`;
    }
  }
  return undefined;
}

/**
 * The OpenShift version of the seed from the manifest.json its stateroot setup reads, or why it cannot be
 * read, in the real agent's words.
 */
export function seedVersion(files: Record<string, string>): { version: string } | { error: string } {
  const text = files[SEED_CLUSTER_INFO_FILE];
  if (text === undefined)
    return { error: `failed to get version from ClusterInfo: the seed image has no ${SEED_CLUSTER_INFO_FILE}` };
  try {
    const info = JSON.parse(text) as SeedClusterInfo;
    if (typeof info.seed_cluster_ocp_version !== 'string' || !info.seed_cluster_ocp_version)
      return {
        error: `failed to get version from ClusterInfo: ${SEED_CLUSTER_INFO_FILE} has no seed_cluster_ocp_version`,
      };
    return { version: info.seed_cluster_ocp_version };
  } catch (err) {
    return { error: `failed to get version from ClusterInfo: ${(err as Error).message}` };
  }
}
