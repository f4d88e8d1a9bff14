// The ClusterVersion as the adm commands read and change it: through the Kubernetes API, each failure
// one clear line (kubeErrors.ts).
import * as k8s from '@kubernetes/client-node';
import { CV, type ClusterVersion } from '../../agent/clusterVersion.js';
import { kubeCall, type Asked } from '../kubeErrors.js';

const VERSION: Asked = { kind: 'ClusterVersion', name: CV.name };

export function readClusterVersion(kc: k8s.KubeConfig): Promise<ClusterVersion> {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  return kubeCall(kc, async () => (await custom.getClusterCustomObject(CV)) as ClusterVersion, VERSION);
}

/** A JSON merge patch of the ClusterVersion, as `oc patch --type merge` sends one. */
export function patchClusterVersion(kc: k8s.KubeConfig, body: object): Promise<ClusterVersion> {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  return kubeCall(
    kc,
    async () =>
      (await custom.patchClusterCustomObject(
        { ...CV, body },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )) as ClusterVersion,
    VERSION,
  );
}
