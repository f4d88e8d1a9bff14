// Events (core/v1), as the components the mock stands in for record them: the Machine Config Daemon and the
// kubelet on a node being updated (Cordon, Drain, OSUpdateStarted, Reboot, NodeReady, Uncordon…), and the
// operators on their ClusterOperator's changes (OperatorStatusChanged, OperatorVersionChanged). Each is a new
// Event named <object>.<16 hex digits>, in the object's namespace (default for a cluster-scoped one).
import { createHash } from 'node:crypto';
import { kubeTime } from 'cincy/clock';
import { kindNamed, type StoredObject } from './kinds.js';
import type { ClusterState } from './state.js';

export interface EventRecord {
  /** The object it is about. */
  about: StoredObject;
  reason: string;
  message: string;
  type?: 'Normal' | 'Warning';
  /** The component that reports it (machineconfigdaemon, kubelet, the operator's name). */
  component: string;
  /** The node it was reported from, for node components. */
  host?: string;
  /** When it happened (ms). */
  at: number;
}

/** Records an event. Its name depends only on what it says, so a simulation replayed names it the same. */
export function recordEvent(state: ClusterState, e: EventRecord): void {
  const namespace = e.about.metadata.namespace ?? 'default';
  const time = kubeTime(Math.min(e.at, Date.now())); // as kubectl ages it: never after the wall clock
  const kind = kindNamed('Event');
  // The API server's clients name an event after its object and a timestamp in hex.
  let name: string;
  for (let n = 0; ; n++) {
    const suffix = createHash('sha256')
      .update(`${e.about.metadata.uid}/${e.at}/${e.reason}/${e.message}/${n}`)
      .digest('hex')
      .slice(0, 16);
    name = `${e.about.metadata.name}.${suffix}`;
    if (!state.has(kind, namespace, name)) break;
  }
  state.create(
    kind,
    namespace,
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: e.about.apiVersion,
        kind: e.about.kind,
        name: e.about.metadata.name,
        ...(e.about.metadata.namespace && { namespace: e.about.metadata.namespace }),
        uid: e.about.metadata.uid,
        ...(e.about.metadata.resourceVersion && { resourceVersion: e.about.metadata.resourceVersion }),
      },
      reason: e.reason,
      message: e.message,
      type: e.type ?? 'Normal',
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: e.component, ...(e.host && { host: e.host }) },
      reportingComponent: e.component,
      reportingInstance: e.host ?? '',
    },
    e.at,
  );
}
