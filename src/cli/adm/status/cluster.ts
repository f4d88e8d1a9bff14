// What `adm upgrade status` reads of a cluster: the ClusterVersion, the ClusterOperators, the
// MachineConfigPools and nodes, the release version of each MachineConfig the nodes name, and the
// cluster's time (its API server's clock).
import type { ClusterVersion } from '../../../agent/clusterVersion.js';
import type { Condition } from '../../../agent/conditions.js';
import type { Resource } from '../../../cluster/api.js';
import { isNotFound } from '../../../cluster/apiError.js';
import { KUBE_LABEL } from '../../../cluster/labels.js';
import { RESOURCES } from '../../../cluster/resources.js';
import { kubeCall } from '../../kubeErrors.js';
import type { ClusterClient } from '../../kubeconfig.js';
import { readClusterVersion } from '../cluster.js';

export interface Meta {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface ClusterOperator {
  metadata: Meta;
  status?: { versions?: Array<{ name: string; version: string }>; conditions?: Condition[] };
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface Pool {
  metadata: Meta;
  spec?: { paused?: boolean; configuration?: { name?: string }; nodeSelector?: LabelSelector };
}

export interface Node {
  metadata: Meta;
  spec?: { unschedulable?: boolean };
  status?: { conditions?: Condition[] };
}

export interface StatusInput {
  cv: ClusterVersion;
  operators: ClusterOperator[];
  pools: Pool[];
  nodes: Node[];
  /** The release version of a MachineConfig, by name; undefined when unknown. */
  configVersion(name: string | undefined): string | undefined;
  now: number;
}

/** The annotation of a rendered MachineConfig naming the release it belongs to. */
export const RELEASE_VERSION = 'machineconfiguration.openshift.io/release-image-version';

/** `now` given, the cluster's clock is not read (a test's cluster keeps its clock in the test). */
export async function readStatusInput(cluster: ClusterClient, now?: number): Promise<StatusInput> {
  const { api, origin } = cluster;
  const list = async <T>(r: Resource): Promise<T[]> => (await kubeCall(origin, () => api.list<T>(r))).items;
  const cv = await readClusterVersion(cluster);
  const operators = await list<ClusterOperator>(RESOURCES.clusterOperators);
  const pools = await list<Pool>(RESOURCES.machineConfigPools);
  const nodes = await list<Node>(RESOURCES.nodes);

  const names = new Set<string>();
  for (const n of nodes)
    for (const key of [KUBE_LABEL.currentConfig, KUBE_LABEL.desiredConfig]) {
      const name = n.metadata.annotations?.[key];
      if (name) names.add(name);
    }
  const versions = new Map<string, string | undefined>();
  let served = true;
  for (const name of names) {
    if (!served) break;
    try {
      const mc = await api.get<{ metadata: Meta }>(RESOURCES.machineConfigs, { name });
      versions.set(name, mc.metadata.annotations?.[RELEASE_VERSION] || undefined);
    } catch (err) {
      if (!isNotFound(err)) await kubeCall(origin, () => Promise.reject(err));
      served = await kubeCall(origin, () =>
        api.list(RESOURCES.machineConfigs).then(
          () => true,
          (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
        ),
      );
    }
  }
  // A cluster that serves no MachineConfigs names no release for a node's configuration: unknown.
  const configVersion = (name: string | undefined): string | undefined =>
    served && name ? versions.get(name) : undefined;

  return { cv, operators, pools, nodes, configVersion, now: now ?? (await kubeCall(origin, () => api.serverTime())) };
}
