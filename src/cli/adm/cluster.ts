// The ClusterVersion as the adm commands read and change it: through the Kubernetes API, each failure
// one clear line (kubeErrors.ts).
import { CLUSTER_VERSION_KEY, type ClusterVersion } from '../../agent/clusterVersion.js';
import { RESOURCES } from '../../cluster/resources.js';
import { kubeCall, type Asked } from '../kubeErrors.js';
import type { ClusterClient } from '../kubeconfig.js';

const VERSION: Asked = { kind: 'ClusterVersion', name: CLUSTER_VERSION_KEY.name };

export function readClusterVersion({ api, origin }: ClusterClient): Promise<ClusterVersion> {
  return kubeCall(origin, () => api.get<ClusterVersion>(RESOURCES.clusterVersions, CLUSTER_VERSION_KEY), VERSION);
}

/** A JSON merge patch of the ClusterVersion, as `oc patch --type merge` sends one. */
export function patchClusterVersion({ api, origin }: ClusterClient, body: object): Promise<ClusterVersion> {
  return kubeCall(
    origin,
    () => api.patch<ClusterVersion>(RESOURCES.clusterVersions, CLUSTER_VERSION_KEY, { type: 'merge', body }),
    VERSION,
  );
}
