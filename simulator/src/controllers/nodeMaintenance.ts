// The lifecycle manager's side of node maintenance, for the mock Machine Config Operator's rollout on a
// cluster with workload locks (seed 004, phases 3 and 4). Before the MCO cordons and drains a node it asks
// for the node's maintenance with a NodeMaintenanceRequest and waits until every controller's
// NodeWorkloadLock of that node is inactive; once the node is back (uncordoned) the request is removed, and
// the controllers make their locks active again. No node is taken before every ClusterWorkloadLock is
// inactive (the applications have been updated, phase 2), while any lock has failed (the flow stops there
// until it recovers), nor, in a pool after the master pool, before the control-plane nodes are done.
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { timeAnnotation } from './controller.js';
import type { ClusterState } from '../apiserver/state.js';
import { lockSpec, lockState, STATE_CHANGED } from './workloadLocks.js';

/** The scope of the node requests: the MCO's update reboots the node into its new OS. */
export const NODE_SCOPE = 'os';

export interface NodeMaintenanceGate {
  /**
   * Asks for the node's maintenance at `t` (when nodes may be taken at all); returns the time from which
   * its locks let it be drained, or undefined while they do not.
   */
  admit(node: StoredObject, t: number): number | undefined;
  /** The node's maintenance is over: its request is removed. */
  release(node: StoredObject): void;
  /** The gate for a later pool: it takes no node while this one's are not all done. */
  after(earlierDone: boolean): NodeMaintenanceGate;
}

/** The gate of this pass of the MCO, or undefined on a cluster without workload locks (nodes go as they always did). */
export function nodeMaintenanceGate(state: ClusterState, now: number): NodeMaintenanceGate | undefined {
  const nodeLock = kindNamed('NodeWorkloadLock');
  const request = kindNamed('NodeMaintenanceRequest');
  const clusterLocks = state.list(kindNamed('ClusterWorkloadLock'));
  const nodeLocks = state.list(nodeLock);
  if (clusterLocks.length === 0 && nodeLocks.length === 0) return undefined;
  const open =
    clusterLocks.every((l) => lockState(l) === 'inactive') &&
    ![...clusterLocks, ...nodeLocks].some((l) => lockState(l) === 'failed');
  const make = (mayTake: boolean): NodeMaintenanceGate => ({
    admit(node, t) {
      if (!mayTake) return undefined;
      const name = node.metadata.name;
      if (!state.has(request, undefined, name))
        state.create(
          request,
          undefined,
          {
            apiVersion: 'lcm.mirantis.com/v1alpha1',
            kind: 'NodeMaintenanceRequest',
            metadata: { name },
            spec: { nodeName: name, scope: NODE_SCOPE },
          },
          Math.min(t, now),
        );
      const mine = nodeLocks.filter((l) => lockSpec(l).nodeName === name);
      if (!mine.every((l) => lockState(l) === 'inactive')) return undefined;
      return Math.max(t, ...mine.map((l) => timeAnnotation(l, STATE_CHANGED) ?? now));
    },
    release(node) {
      if (state.has(request, undefined, node.metadata.name)) state.delete(request, undefined, node.metadata.name);
    },
    after: (earlierDone) => make(mayTake && earlierDone),
  });
  return make(open);
}
