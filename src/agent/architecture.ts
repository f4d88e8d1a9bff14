// The architecture the agent asks the update service for: `multi` when the cluster runs or asks for a
// multi release (decided by the caller), else the control plane's. The cluster-version-operator knows it
// as its own (runtime.GOARCH); the agent may run elsewhere, so it reads the control-plane nodes, and uses
// its own only when it may not list nodes.
import type { ClusterApi, KubeObject } from '../cluster/api.js';
import { isForbidden } from '../cluster/apiError.js';
import { KUBE_LABEL } from '../cluster/labels.js';
import { RESOURCES } from '../cluster/resources.js';

type Node = KubeObject & { status?: { nodeInfo?: { architecture?: string } } };

const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', s390x: 's390x', ppc64: 'ppc64le' };

/** The control plane's architecture; the agent's own when it may not list nodes or none is a control-plane node. */
export async function controlPlaneArch(api: ClusterApi): Promise<string> {
  try {
    const nodes = await api.list<Node>(RESOURCES.nodes, { labelSelector: KUBE_LABEL.masterRole });
    const node = nodes.items[0];
    const arch = node?.status?.nodeInfo?.architecture ?? node?.metadata?.labels?.[KUBE_LABEL.arch];
    if (arch) return arch;
  } catch (err) {
    if (!isForbidden(err)) throw err;
  }
  return GOARCH[process.arch] ?? process.arch;
}
