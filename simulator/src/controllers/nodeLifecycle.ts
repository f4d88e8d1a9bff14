// The node lifecycle controller's part the simulation needs: a node whose kubelet reports Ready loses the
// `node.kubernetes.io/not-ready` taint, which the API server's TaintNodesByCondition admission puts on every
// new node (a real API server does; the mock's own makes its nodes Ready from the start, without it).
import { clone, save } from './controller.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import type { ClusterState } from '../apiserver/state.js';

const NOT_READY = 'node.kubernetes.io/not-ready';

interface NodeShape {
  spec?: { taints?: Array<{ key: string; effect: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

export function reconcileNodeLifecycle(state: ClusterState): void {
  const kind = kindNamed('Node');
  for (const before of state.list(kind)) {
    const node = before as StoredObject & NodeShape;
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    const taints = node.spec?.taints ?? [];
    if (!ready || !taints.some((t) => t.key === NOT_READY)) continue;
    const after = clone(node);
    after.spec!.taints = taints.filter((t) => t.key !== NOT_READY);
    if (after.spec!.taints.length === 0) delete after.spec!.taints;
    save(state, kind, before, after);
  }
}
