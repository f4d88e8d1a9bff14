// What a single-node cluster's host holds that the Kubernetes API does not: its ostree stateroots (the booted
// one, the default boot entry, one per release installed), its container-storage disk (size and images, pinned
// or not), a pending reboot, the Lifecycle Agent's init monitor and the seed image pull Prep asked for. The
// mock cluster keeps it as data of the ConfigMap openshift-lifecycle-agent/cincy-mock-host, so that it
// persists with the cluster's state, shows with `kubectl get cm cincy-mock-host -n openshift-lifecycle-agent
// -o yaml`, and can be changed there (to fill the disk, say). The lifecycle agent reads and writes it as the
// real one works on the host's files; the mock carries out what the host does itself (rebooting into the
// default stateroot, the init monitor's rollback, pulling the seed image from its registry).

export const HOST_CONFIGMAP = { namespace: 'openshift-lifecycle-agent', name: 'cincy-mock-host' };

/** What a stateroot's cluster said of its version when it was last booted out of (its own etcd keeps it). */
export interface ClusterSnapshot {
  desired: Record<string, unknown>;
  history: Array<Record<string, unknown>>;
}

export interface Stateroot {
  /** `rhcos` for the installed one, `rhcos_<version>` for one written by Prep. */
  name: string;
  version: string;
  /** The release image (the installed one's) or the seed image it was written from. */
  image: string;
  createdAt: string;
  /** The cluster's version objects as this stateroot last had them; unset until it was booted and left. */
  cluster?: ClusterSnapshot;
  /** Written before the pivot: the OADP Restore manifests, extra manifests and cluster configuration. */
  restores?: string[];
  extraManifests?: string[];
  clusterConfig?: Record<string, string>;
  /** When the cluster's cryptography was regenerated for this cluster, at its first boot (recert). */
  cryptoRegeneratedAt?: string;
  /** Fingerprint of the regenerated cluster CA. */
  clusterCaFingerprint?: string;
}

export interface ContainerImage {
  image: string;
  sizeBytes: number;
  /** A pinned image is never deleted by the clean-up. */
  pinned: boolean;
  /** Used by a running container: never deleted either. */
  inUse: boolean;
  created: string;
  /** Pulled by Prep for this stateroot (the seed image and the images it lists): removed with it. */
  stateroot?: string;
}

export interface ContainerStorage {
  sizeBytes: number;
  images: ContainerImage[];
}

export interface InitMonitor {
  /** Armed by the upgrade for the stateroot it pivots to; disarmed when the upgrade completes. */
  enabled: boolean;
  stateroot: string;
  timeoutSeconds: number;
  /** The stateroot a timeout rolls back to. */
  rollbackTo: string;
  /** Set at the boot of `stateroot`: when the monitor rolls back. */
  deadline?: string;
}

/**
 * A seed image Prep asked the host to pull (podman pull with an authfile, as the Lifecycle Agent's stateroot
 * setup does), and, once the host has tried, what it found.
 */
export interface SeedPull {
  image: string;
  /** A Secret of openshift-lifecycle-agent whose .dockerconfigjson the pull uses; without it, the cluster's pull secret. */
  pullSecret?: string;
  requestedAt: string;
  result?: SeedPullResult;
}

export interface SeedPullResult {
  at: string;
  /** Why the pull failed: reading the manifest and configuration (inspect), or the layers (pull). */
  failed?: { stage: 'inspect' | 'pull'; reason: string };
  /** The image manifest's digest and its configuration's labels, once inspected. */
  digest?: string;
  labels?: Record<string, string>;
  /** Once pulled: the bytes it takes in container storage (its layers unpacked) and the seed's root files. */
  sizeBytes?: number;
  files?: Record<string, string>;
}

export interface HostData {
  node: string;
  stateroots: Stateroot[];
  booted: string;
  defaultDeployment: string;
  containerStorage: ContainerStorage;
  /** A reboot asked for (into the default deployment); `down` once the node went down. */
  reboot?: { requestedAt: string; reason: string; downAt?: string };
  lastBoot?: { at: string; stateroot: string };
  initMonitor?: InitMonitor;
  /** Why the host rolled back on its own (the init monitor, or the agent after a post-pivot failure). */
  rollbackMessage?: string;
  seedPull?: SeedPull;
}

const JSON_KEYS = ['stateroots', 'containerStorage', 'reboot', 'lastBoot', 'initMonitor', 'seedPull'] as const;

/** The host data a ConfigMap's data holds; an Error naming the key that does not parse. */
export function hostFromData(data: Record<string, string> | undefined): HostData {
  const d = data ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if ((JSON_KEYS as readonly string[]).includes(k)) {
      try {
        out[k] = JSON.parse(v);
      } catch (err) {
        throw new Error(
          `ConfigMap ${HOST_CONFIGMAP.namespace}/${HOST_CONFIGMAP.name}: data.${k} is not JSON: ${(err as Error).message}`,
        );
      }
    } else out[k] = v;
  }
  for (const k of ['node', 'booted', 'defaultDeployment'])
    if (typeof out[k] !== 'string')
      throw new Error(`ConfigMap ${HOST_CONFIGMAP.namespace}/${HOST_CONFIGMAP.name}: data.${k} is missing`);
  if (!Array.isArray(out.stateroots) || typeof out.containerStorage !== 'object' || out.containerStorage === null)
    throw new Error(
      `ConfigMap ${HOST_CONFIGMAP.namespace}/${HOST_CONFIGMAP.name}: data.stateroots and data.containerStorage are required`,
    );
  return out as unknown as HostData;
}

/** The ConfigMap data for `host`: JSON for the structured keys, text for the others. */
export function hostToData(host: HostData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(host)) {
    if (v === undefined) continue;
    out[k] = (JSON_KEYS as readonly string[]).includes(k) ? JSON.stringify(v, null, 1) : String(v);
  }
  return out;
}

/** The stateroot Prep writes for a seed of `version` (the name the Lifecycle Agent gives it). */
export const staterootFor = (version: string): string => `rhcos_${version.replace(/[^A-Za-z0-9._-]/g, '_')}`;

export const usedBytes = (s: ContainerStorage): number => s.images.reduce((n, i) => n + i.sizeBytes, 0);
export const usagePercent = (s: ContainerStorage): number => Math.round((usedBytes(s) * 100) / s.sizeBytes);

/** A duration as Go prints a time.Duration of whole seconds (1800 s: 30m0s, 3600 s: 1h0m0s), as LCA's messages do. */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

export const GIB = 1024 ** 3;

/** What the host's pass reads: how the pull made for a request went, if one was made. */
export interface SeedPullOutcomes {
  outcome(request: SeedPull): { pending: true } | { pending: false; result: Omit<SeedPullResult, 'at'> } | undefined;
}
