// The pods of the mock cluster's workloads, as the Deployment, DaemonSet and scheduler controllers keep
// them: a Deployment's replicas on the nodes its template selects and tolerates (the fewest pods first),
// named <deployment>-<template hash>-<5 characters>; a DaemonSet's pod on each node it selects and tolerates.
// A new template replaces the pods; a pod whose node is drained is evicted and made again elsewhere; a
// pod on a node that is gone is deleted. Pods run at once (Running, every container ready).
import { createHash } from 'node:crypto';
import { kubeTime } from 'cincy/clock';
import { annotation } from './controller.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { PHASE } from './mco.js';
import type { ClusterState } from '../apiserver/state.js';

interface Template {
  metadata?: { labels?: Record<string, string> };
  spec?: {
    nodeSelector?: Record<string, string>;
    tolerations?: Array<{ key?: string; operator?: string; value?: string; effect?: string }>;
    containers?: Array<{ name: string; image?: string }>;
    [key: string]: unknown;
  };
}
interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** Node phases in which the Machine Config Daemon has drained the node: its evictable pods are gone. */
const DRAINED = new Set(['drain', 'update', 'reboot']);

const templateOf = (o: StoredObject): Template => (o.spec as { template?: Template } | undefined)?.template ?? {};
const hashOf = (t: Template): string => createHash('sha256').update(JSON.stringify(t)).digest('hex').slice(0, 10);
const ownerOf = (p: StoredObject): { kind?: string; name?: string } =>
  (p.metadata.ownerReferences as Array<{ kind: string; name: string }> | undefined)?.[0] ?? {};

/** Whether a pod of `t` may run on node `n`: its node selector matches and it tolerates the node's NoSchedule taints. */
function fits(t: Template, n: StoredObject): boolean {
  const labels = n.metadata.labels ?? {};
  if (!Object.entries(t.spec?.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return false;
  const taints = ((n.spec as { taints?: Taint[] } | undefined)?.taints ?? []).filter(
    (x) => x.effect === 'NoSchedule' && x.key !== 'node.kubernetes.io/unschedulable',
  );
  return taints.every((taint) =>
    (t.spec?.tolerations ?? []).some(
      (tol) =>
        (tol.key === undefined || tol.key === taint.key) &&
        (tol.effect === undefined || tol.effect === '' || tol.effect === taint.effect) &&
        (tol.operator === 'Exists' || tol.value === taint.value),
    ),
  );
}

const schedulable = (n: StoredObject): boolean => !(n.spec as { unschedulable?: boolean } | undefined)?.unschedulable;
const drained = (n: StoredObject | undefined): boolean => !n || DRAINED.has(annotation(n, PHASE) ?? '');

/** A running pod of `owner`'s template on `node`, made at `now`. */
function runningPod(
  owner: StoredObject,
  ownerRef: { apiVersion: string; kind: string; name: string; uid: string },
  template: Template,
  node: StoredObject,
  generateName: string,
  now: number,
  extraLabels: Record<string, string>,
): unknown {
  const at = kubeTime(now);
  const nodeIp =
    (node.status as { addresses?: Array<{ type: string; address: string }> } | undefined)?.addresses?.find(
      (a) => a.type === 'InternalIP',
    )?.address ?? '';
  const octet = (s: string): number => createHash('sha256').update(s).digest()[0]! % 250;
  const nodeIndex = octet(node.metadata.name);
  const containers = template.spec?.containers ?? [];
  const condition = (type: string): object => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: at });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName,
      labels: { ...template.metadata?.labels, ...extraLabels },
      ownerReferences: [{ ...ownerRef, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      ...template.spec,
      nodeName: node.metadata.name,
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
    },
    status: {
      phase: 'Running',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
        condition,
      ),
      hostIP: nodeIp,
      podIP: `10.128.${nodeIndex}.${octet(`${owner.metadata.name}/${now}`) + 2}`,
      startTime: at,
      qosClass: 'Burstable',
      containerStatuses: containers.map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: c.image ?? '',
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: at } },
      })),
    },
  };
}

/** The kinds the pods follow, and the state of them each state's last pass saw. */
const WATCHED = ['Deployment', 'DaemonSet', 'Node', 'Pod'];
const seen = new WeakMap<ClusterState, string>();

/**
 * One pass of the Deployment, DaemonSet and scheduler controllers over the pods, at simulated time `now`;
 * nothing to do (and nothing read) when no workload, node or pod changed since the last pass.
 */
export function reconcilePods(state: ClusterState, now: number): void {
  const version = state.kindsVersion(WATCHED.map(kindNamed));
  if (seen.get(state) === version) return;
  reconcileAll(state, now);
  seen.set(state, state.kindsVersion(WATCHED.map(kindNamed)));
}

function reconcileAll(state: ClusterState, now: number): void {
  const podKind = kindNamed('Pod');
  const nodes = state.list(kindNamed('Node'));
  const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
  const pods = state.list(podKind);
  const nodeOf = (p: StoredObject): string => (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
  const load = new Map<string, number>();
  for (const p of pods) load.set(nodeOf(p), (load.get(nodeOf(p)) ?? 0) + 1);
  const remove = (p: StoredObject): void => {
    state.delete(podKind, p.metadata.namespace, p.metadata.name);
    load.set(nodeOf(p), (load.get(nodeOf(p)) ?? 1) - 1);
  };
  const make = (namespace: string | undefined, pod: unknown, node: StoredObject): void => {
    state.create(podKind, namespace, pod, now);
    load.set(node.metadata.name, (load.get(node.metadata.name) ?? 0) + 1);
  };
  const updating = (n: StoredObject): number => Number(annotation(n, PHASE) !== undefined);

  for (const d of state.list(kindNamed('Deployment'))) {
    const template = templateOf(d);
    const hash = hashOf(template);
    const replicaSet = `${d.metadata.name}-${hash}`;
    const mine = pods.filter(
      (p) =>
        p.metadata.namespace === d.metadata.namespace &&
        ownerOf(p).kind === 'ReplicaSet' &&
        ownerOf(p).name?.startsWith(`${d.metadata.name}-`),
    );
    const live: StoredObject[] = [];
    for (const p of mine) {
      const node = byName.get(nodeOf(p));
      // Pods of an old template are replaced; those on a drained node are evicted.
      if (ownerOf(p).name !== replicaSet || drained(node)) remove(p);
      else live.push(p);
    }
    const want = (d.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    for (const p of live.slice(want)) remove(p);
    for (let i = live.length; i < want; i++) {
      // The scheduler's choice: a node that fits, not being updated, with the fewest pods.
      const node = nodes
        .filter((n) => schedulable(n) && !drained(n) && fits(template, n))
        .sort(
          (a, b) =>
            updating(a) - updating(b) ||
            (load.get(a.metadata.name) ?? 0) - (load.get(b.metadata.name) ?? 0) ||
            a.metadata.name.localeCompare(b.metadata.name),
        )[0];
      if (!node) break; // Pending, in a real cluster; the mock makes none until a node fits
      make(
        d.metadata.namespace,
        runningPod(
          d,
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: replicaSet, uid: uidOf(d, hash) },
          template,
          node,
          `${replicaSet}-`,
          now,
          { 'pod-template-hash': hash },
        ),
        node,
      );
    }
  }

  for (const ds of state.list(kindNamed('DaemonSet'))) {
    const template = templateOf(ds);
    const hash = hashOf(template);
    const mine = pods.filter(
      (p) =>
        p.metadata.namespace === ds.metadata.namespace &&
        ownerOf(p).kind === 'DaemonSet' &&
        ownerOf(p).name === ds.metadata.name,
    );
    const placed = new Set<string>();
    for (const p of mine) {
      const node = byName.get(nodeOf(p));
      if (!node || !fits(template, node) || p.metadata.labels?.['controller-revision-hash'] !== hash) remove(p);
      else placed.add(node.metadata.name);
    }
    for (const node of nodes.filter((n) => fits(template, n) && !placed.has(n.metadata.name)))
      make(
        ds.metadata.namespace,
        runningPod(
          ds,
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid ?? '' },
          template,
          node,
          `${ds.metadata.name}-`,
          now,
          { 'controller-revision-hash': hash },
        ),
        node,
      );
  }
}

/** The uid of the ReplicaSet a Deployment's template makes: the same each time. */
function uidOf(d: StoredObject, hash: string): string {
  const h = createHash('sha256').update(`${d.metadata.uid}/${hash}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
