// The cluster a command talks to: --in-cluster (the pod's service account), --kubeconfig FILE, or the
// client's defaults ($KUBECONFIG, then ~/.kube/config).
import * as k8s from '@kubernetes/client-node';

export function loadKubeConfig(o: { kubeconfig?: string; inCluster?: boolean }): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (o.inCluster) kc.loadFromCluster();
  else if (o.kubeconfig) kc.loadFromFile(o.kubeconfig);
  else kc.loadFromDefault();
  return kc;
}
