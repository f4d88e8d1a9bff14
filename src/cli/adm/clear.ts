// `cincy adm upgrade --clear`, as `oc adm upgrade --clear`: spec.desiredUpdate removed (its accepted risks
// kept), which cancels a request the cluster has not started on; an update under way goes on.
import type { ClusterRelease, DesiredUpdate } from '../../agent/clusterVersion.js';
import type { ClusterClient } from '../kubeconfig.js';
import { patchClusterVersion, readClusterVersion } from './cluster.js';

/** Whether a request names the release the cluster is at (or on its way to). */
function equivalent(a: DesiredUpdate, b: ClusterRelease | undefined): boolean {
  if (a.image && b?.image) return a.image === b.image;
  if (a.version && b?.version) return a.version === b.version;
  return false;
}

const named = (r: { version?: string; image?: string } | undefined): string => r?.version || r?.image || '<unknown>';

/** Clears the request; returns the line oc prints. */
export async function clearUpdate(cluster: ClusterClient): Promise<string> {
  const cv = await readClusterVersion(cluster);
  const original = cv.spec.desiredUpdate;
  if (!original) return 'info: No update in progress';
  const desiredUpdate = original.acceptRisks
    ? { version: null, image: null, architecture: null, force: null, acceptRisks: original.acceptRisks }
    : null;
  const updated = await patchClusterVersion(cluster, { spec: { desiredUpdate } });
  return equivalent(original, updated.status.desired)
    ? `Cleared the update field, still at ${named(updated.status.desired)}`
    : `Cancelled requested upgrade to ${named(original)}`;
}
