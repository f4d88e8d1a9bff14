// The ClusterVersion as the adm commands read and change it: through the Kubernetes API, each failure
// one clear line (kubeErrors.ts).
import { CLUSTER_VERSION_KEY, type ClusterVersion } from '../../agent/clusterVersion.js';
import { RESOURCES } from '../../cluster/resources.js';
import { kubeCall, type Asked } from '../kubeErrors.js';
import type { ClusterClient } from '../kubeconfig.js';

const VERSION: Asked = { kind: 'ClusterVersion', name: CLUSTER_VERSION_KEY.name };

/** The ClusterVersion, once the cluster has written its status: every adm command reads status.desired. */
export async function readClusterVersion({ api, origin }: ClusterClient): Promise<ClusterVersion> {
  const cv = await kubeCall(
    origin,
    () => api.get<ClusterVersion>(RESOURCES.clusterVersions, CLUSTER_VERSION_KEY),
    VERSION,
  );
  // Made without status (a create on a real API server drops it), until the cluster writes it.
  if (!cv.status?.desired?.version)
    throw new Error('ClusterVersion "version" has no status.desired yet: the cluster has not written its status');
  return cv;
}

/** A JSON merge patch of the ClusterVersion, as `oc patch --type merge` sends one. */
export function patchClusterVersion({ api, origin }: ClusterClient, body: object): Promise<ClusterVersion> {
  return kubeCall(
    origin,
    () => api.patch<ClusterVersion>(RESOURCES.clusterVersions, CLUSTER_VERSION_KEY, { type: 'merge', body }),
    VERSION,
  );
}
