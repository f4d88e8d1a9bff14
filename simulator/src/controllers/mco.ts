// The mock Machine Config Operator, rolling nodes as OpenShift's does in an update. When its Deployment
// runs release v, each pool gets
// the rendered config of v in spec.configuration.name and its nodes roll to it: pools in parallel; in a
// pool, while fewer than maxUnavailable nodes are unavailable, the next node (by zone, then oldest, then
// name) goes through cordon → drain → update → reboot → uncordon. Phases and their ends are node
// annotations, so the rollout is a function of the state and the time: a restart continues it, and a
// late reconcile replays the phase ends it missed in time order (a node that finishes frees its slot at
// that moment, not at the next tick).
import { createHash } from 'node:crypto';
import { kubeTime } from 'cincy/clock';
import {
  annotation,
  clone,
  objectCondition,
  isoMs,
  save,
  setAnnotation,
  setObjectCondition,
  timeAnnotation,
} from './controller.js';
import { NODE_PHASES, type NodePhase, type Scenario } from './scenario.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { type ClusterState } from '../apiserver/state.js';
import { KUBE_LABEL } from 'cincy/cluster/labels';
import { kubeletVersionFor, rhcosNodeInfo } from './releaseContent.js';
import { recordEvent, type EventRecord } from '../apiserver/events.js';
import { ensureRenderedConfig } from './machineConfigs.js';
import { nodeMaintenanceGate, type NodeMaintenanceGate } from './nodeMaintenance.js';

export const CURRENT = KUBE_LABEL.currentConfig;
export const DESIRED = KUBE_LABEL.desiredConfig;
export const MCD_STATE = KUBE_LABEL.mcdState;
export const PHASE = 'cincy.mock/phase';
export const PHASE_END = 'cincy.mock/phase-end';
/** On a pool and on an updating node: the release version its target config belongs to. */
export const RELEASE = 'cincy.mock/release-version';
const ZONE = KUBE_LABEL.zone;
/** RHEL compute nodes: the MCO gives them the new configuration but not the new kubelet (openshift-ansible updates that). */
export const RHEL_LABEL = KUBE_LABEL.osId;
/** Set by whoever updated a RHEL worker's kubelet "by other means" (openshift-ansible): the release it now runs. */
export const RHEL_KUBELET = 'cincy.mock/rhel-kubelet';
/** A RHEL worker with the new configuration on its old kubelet: NotReady until the kubelet is updated. */
const AWAITING_KUBELET = 'awaiting-kubelet';
const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

export const DEFAULT_NODE_TIMINGS: Record<NodePhase, number> = {
  cordon: 10_000,
  drain: 120_000,
  update: 180_000,
  reboot: 240_000,
  uncordon: 10_000,
};

export const renderedConfig = (pool: string, version: string): string =>
  `rendered-${pool}-${createHash('sha256')
    .update(pool + version)
    .digest('hex')
    .slice(0, 32)}`;

export { kubeletVersionFor } from './releaseContent.js';

/** maxUnavailable: an integer, or "N%" of the pool rounded down; at least 1; default 1. */
export function maxUnavailableOf(v: unknown, machineCount: number): number {
  const pct = typeof v === 'string' ? /^(\d+)%$/.exec(v.trim()) : null;
  const n = pct
    ? Math.floor((Number(pct[1]) * machineCount) / 100)
    : typeof v === 'number'
      ? v
      : typeof v === 'string' && /^\d+$/.test(v)
        ? Number(v)
        : 1;
  return Math.max(1, Math.floor(n));
}

interface PoolSpec {
  paused?: boolean;
  maxUnavailable?: number | string;
  configuration?: { name?: string };
  nodeSelector?: { matchLabels?: Record<string, string> };
}
interface PoolStatus {
  configuration?: { name?: string };
  [key: string]: unknown;
}
interface NodeSpec {
  unschedulable?: boolean;
  taints?: Array<{ key: string; effect: string; timeAdded?: string }>;
}

const ready = (n: StoredObject): boolean => objectCondition(n, 'Ready')?.status === 'True';
const working = (n: StoredObject): boolean => annotation(n, PHASE) !== undefined;
const unavailable = (n: StoredObject): boolean =>
  working(n) || !ready(n) || !!(n.spec as NodeSpec | undefined)?.unschedulable;
const matchesPool = (pool: StoredObject, n: StoredObject): boolean =>
  Object.entries((pool.spec as PoolSpec).nodeSelector?.matchLabels ?? { none: '\0' }).every(
    ([k, v]) => n.metadata.labels?.[k] === v,
  );

/** `version`: the release the machine-config operator's Deployment runs (none: the pools keep their targets). */
export function reconcileMco(state: ClusterState, now: number, scenario: Scenario, version: string | undefined): void {
  const poolKind = kindNamed('MachineConfigPool');
  const nodeKind = kindNamed('Node');
  // A node in several pools belongs to the master pool (as with compact clusters), else the first by name.
  const pools = state
    .list(poolKind)
    .sort((a, b) => Number(b.metadata.name === 'master') - Number(a.metadata.name === 'master'));
  const nodes = state.list(nodeKind);
  const claimed = new Set<string>();
  // With workload locks, each node waits for its locks, and a pool for the pools before it (masters first).
  let lcm = nodeMaintenanceGate(state, now);
  for (let poolBefore of pools) {
    const rendered = version && renderedConfig(poolBefore.metadata.name, version);
    if (rendered && (poolBefore.spec as PoolSpec | undefined)?.configuration?.name !== rendered) {
      // The new target first, so the status below observes the generation it makes.
      const next = clone(poolBefore);
      next.spec = {
        ...(next.spec as object),
        configuration: { ...(next.spec as PoolSpec | undefined)?.configuration, name: rendered },
      };
      setAnnotation(next, RELEASE, version);
      ensureRenderedConfig(state, poolBefore.metadata.name, rendered, version, now);
      poolBefore = state.update(poolKind, undefined, next.metadata.name, next);
    }
    const pool = clone(poolBefore);
    const spec = (pool.spec ??= {}) as PoolSpec;
    const mine = nodes.filter((n) => !claimed.has(n.metadata.name) && matchesPool(pool, n));
    mine.forEach((n) => claimed.add(n.metadata.name));
    const before = new Map(mine.map((n) => [n.metadata.name, clone(n)]));
    const target = spec.configuration?.name ?? (pool.status as PoolStatus | undefined)?.configuration?.name;
    const events: EventRecord[] = [];
    const at = target ? rollout(pool, mine, target, now, scenario, events, lcm) : now;
    lcm = lcm?.after(mine.every((n) => !working(n) && annotation(n, CURRENT) === target));
    for (const n of mine) save(state, nodeKind, before.get(n.metadata.name)!, n);
    for (const e of events) recordEvent(state, e);
    if (target) poolStatus(pool, mine, target, at);
    save(state, poolKind, poolBefore, pool);
  }
}

/** Moves the pool's nodes to `target` up to `now`; returns the time of the last thing that happened. */
function rollout(
  pool: StoredObject,
  nodes: StoredObject[],
  target: string,
  now: number,
  scenario: Scenario,
  events: EventRecord[],
  lcm: NodeMaintenanceGate | undefined,
): number {
  const spec = pool.spec as PoolSpec;
  const max = maxUnavailableOf(spec.maxUnavailable, nodes.length);
  const duration = (n: StoredObject, p: NodePhase): number =>
    scenario.nodes[n.metadata.name]?.[p] ?? scenario.nodeDefaults[p] ?? DEFAULT_NODE_TIMINGS[p];
  const created = (n: StoredObject): number => Date.parse(n.metadata.creationTimestamp ?? '') || 0;
  const candidates = nodes
    .filter((n) => !working(n) && annotation(n, CURRENT) !== target)
    .sort(
      (a, b) =>
        (a.metadata.labels?.[ZONE] ?? '').localeCompare(b.metadata.labels?.[ZONE] ?? '') ||
        created(a) - created(b) ||
        a.metadata.name.localeCompare(b.metadata.name),
    );
  let last: number | undefined;
  /** An event of the node's Machine Config Daemon (or, with `component`, of another node component). */
  const tell = (n: StoredObject, t: number, reason: string, message: string, more: Partial<EventRecord> = {}): void =>
    void events.push({
      about: n,
      reason,
      message,
      component: 'machineconfigdaemon',
      host: n.metadata.name,
      at: t,
      ...more,
    });

  const enter = (n: StoredObject, phase: NodePhase, t: number): void => {
    setAnnotation(n, PHASE, phase);
    setAnnotation(n, PHASE_END, isoMs(t + duration(n, phase)));
    const desired = annotation(n, DESIRED);
    if (phase === 'cordon') tell(n, t, 'Cordon', 'Cordoned node to apply update');
    if (phase === 'drain') tell(n, t, 'Drain', 'Draining node to update config.');
    if (phase === 'update') tell(n, t, 'OSUpdateStarted', `Updating the node to ${desired}`);
    if (phase === 'reboot') {
      tell(n, t, 'OSUpdateStaged', 'Changes to OS staged');
      tell(n, t, 'Reboot', `Node will reboot into config ${desired}`);
      setObjectCondition(n, 'Ready', 'False', 'KubeletNotReady', `node is rebooting into ${desired}`, t);
      tell(n, t, 'NodeNotReady', `Node ${n.metadata.name} status is now: NodeNotReady`, {
        component: 'node-controller',
        host: undefined,
      });
    }
  };
  /** The node is back from its reboot: a new boot ID, and the kubelet says so. */
  const booted = (n: StoredObject, t: number): void => {
    const info = (n.status as { nodeInfo?: { bootID?: string } } | undefined)?.nodeInfo;
    // A new boot ID, the same whenever the simulation replays this reboot.
    const id = createHash('sha256').update(`boot:${n.metadata.name}:${t}`).digest('hex');
    if (info) info.bootID = id.slice(0, 32).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    const kubelet = { component: 'kubelet' };
    tell(n, t, 'Starting', 'Starting kubelet.', kubelet);
    tell(n, t, 'Rebooted', `Node ${n.metadata.name} has been rebooted, boot id: ${info?.bootID ?? ''}`, {
      ...kubelet,
      type: 'Warning',
    });
    tell(n, t, 'NodeReady', `Node ${n.metadata.name} status is now: NodeReady`, kubelet);
  };
  const start = (n: StoredObject, t: number): void => {
    setAnnotation(n, DESIRED, target);
    setAnnotation(n, MCD_STATE, 'Working');
    setAnnotation(n, RELEASE, annotation(pool, RELEASE));
    const s = (n.spec ??= {}) as NodeSpec;
    s.unschedulable = true;
    s.taints = [
      ...(s.taints ?? []).filter((x) => x.key !== UNSCHEDULABLE_TAINT.key),
      { ...UNSCHEDULABLE_TAINT, timeAdded: kubeTime(t) },
    ];
    enter(n, 'cordon', t);
  };
  const isRhel = (n: StoredObject): boolean => n.metadata.labels?.[RHEL_LABEL] === 'rhel';
  const finish = (n: StoredObject, phase: NodePhase | typeof AWAITING_KUBELET, t: number): void => {
    if (phase === 'reboot' && isRhel(n)) {
      setAnnotation(n, CURRENT, annotation(n, DESIRED));
      tell(n, t, 'Starting', 'Starting kubelet.', { component: 'kubelet' });
      setAnnotation(n, PHASE, AWAITING_KUBELET);
      setAnnotation(n, PHASE_END, undefined);
      setObjectCondition(
        n,
        'Ready',
        'False',
        'KubeletNotReady',
        `RHEL node: the configuration of ${annotation(n, RELEASE)} does not run on its old kubelet; ` +
          `update the kubelet by other means (openshift-ansible), then annotate ${RHEL_KUBELET}=${annotation(n, RELEASE)}`,
        t,
      );
      return;
    }
    if (phase === AWAITING_KUBELET) {
      const info = (n.status as { nodeInfo?: { kubeletVersion?: string } } | undefined)?.nodeInfo;
      if (info) info.kubeletVersion = kubeletVersionFor(annotation(n, RELEASE) ?? '');
      setObjectCondition(n, 'Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', t);
      tell(n, t, 'NodeReady', `Node ${n.metadata.name} status is now: NodeReady`, { component: 'kubelet' });
      enter(n, 'uncordon', t);
      return;
    }
    if (phase === 'reboot') {
      setAnnotation(n, CURRENT, annotation(n, DESIRED));
      const release = annotation(n, RELEASE);
      const info = (n.status as { nodeInfo?: { kubeletVersion?: string; architecture?: string } } | undefined)
        ?.nodeInfo;
      // The node boots the new release's RHCOS: its OS image, kernel, CRI-O and kubelet.
      if (release && info)
        Object.assign(info, rhcosNodeInfo(release, info.architecture ?? 'amd64'), {
          kubeletVersion: kubeletVersionFor(release),
        });
      setObjectCondition(n, 'Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', t);
      booted(n, t);
    }
    if (phase === 'uncordon') {
      const s = n.spec as NodeSpec;
      delete s.unschedulable;
      s.taints = s.taints?.filter((x) => x.key !== UNSCHEDULABLE_TAINT.key);
      if (s.taints?.length === 0) delete s.taints;
      for (const key of [PHASE, PHASE_END, RELEASE]) setAnnotation(n, key, undefined);
      setAnnotation(n, MCD_STATE, 'Done');
      const config = annotation(n, CURRENT);
      tell(n, t, 'Uncordon', `Update completed for config ${config} and node has been uncordoned`);
      tell(n, t, 'NodeDone', `Setting node ${n.metadata.name}, currentConfig ${config} to Done`);
      lcm?.release(n);
    } else {
      enter(n, NODE_PHASES[NODE_PHASES.indexOf(phase) + 1]!, t);
    }
  };
  const fill = (t: number): boolean => {
    if (spec.paused) return false; // a paused pool starts no node; those under way finish
    const before = candidates.length;
    if (lcm) {
      // The next nodes the free slots allow are asked for, and each starts as soon as its own locks are
      // inactive: the controllers prepare the nodes asked for in an order of their own (OpenStack one at a
      // time), so waiting for the first in the MCO's order could wait for ever.
      const free = Math.max(0, max - nodes.filter(unavailable).length);
      for (const n of candidates.slice(0, free)) {
        const from = lcm.admit(n, t);
        if (from === undefined) continue;
        candidates.splice(candidates.indexOf(n), 1);
        start(n, from);
      }
    } else while (candidates.length > 0 && nodes.filter(unavailable).length < max) start(candidates.shift()!, t);
    if (candidates.length !== before) last = t;
    return candidates.length !== before;
  };

  // Phase ends up to now, earliest first; when none is left, nodes start now (their phases may end at once).
  for (;;) {
    // A RHEL worker waiting for its kubelet is due only once someone updated it.
    const kubeletUpdated = (n: StoredObject): boolean =>
      annotation(n, PHASE) !== AWAITING_KUBELET || annotation(n, RHEL_KUBELET) === annotation(n, RELEASE);
    const due = nodes
      .filter((n) => working(n) && kubeletUpdated(n))
      .map((n) => ({ n, end: timeAnnotation(n, PHASE_END) ?? now }))
      .filter((x) => x.end <= now)
      .sort((a, b) => a.end - b.end || a.n.metadata.name.localeCompare(b.n.metadata.name))[0];
    if (due) {
      finish(due.n, annotation(due.n, PHASE) as NodePhase | typeof AWAITING_KUBELET, due.end);
      last = due.end;
      if (!working(due.n)) fill(due.end);
    } else if (!fill(now)) break;
  }
  return last ?? now;
}

/** The counters and conditions `oc get mcp` shows. */
function poolStatus(pool: StoredObject, nodes: StoredObject[], target: string, at: number): void {
  const s = (pool.status ??= {}) as PoolStatus;
  const updated = nodes.filter(
    (n) => !working(n) && annotation(n, CURRENT) === target && annotation(n, MCD_STATE) !== 'Degraded',
  );
  const degraded = nodes.filter((n) => annotation(n, MCD_STATE) === 'Degraded').length;
  const done = updated.length === nodes.length;
  const paused = !!(pool.spec as PoolSpec).paused;
  Object.assign(s, {
    observedGeneration: pool.metadata.generation,
    machineCount: nodes.length,
    updatedMachineCount: updated.length,
    readyMachineCount: updated.filter((n) => !unavailable(n)).length,
    unavailableMachineCount: nodes.filter(unavailable).length,
    degradedMachineCount: degraded,
    configuration: { ...s.configuration, name: done ? target : (s.configuration?.name ?? target) },
  });
  setObjectCondition(
    pool,
    'Updated',
    done ? 'True' : 'False',
    '',
    done ? `All nodes are updated with MachineConfig ${target}` : '',
    at,
  );
  setObjectCondition(
    pool,
    'Updating',
    !done && !paused ? 'True' : 'False',
    '',
    !done && !paused ? `All nodes are updating to MachineConfig ${target}` : '',
    at,
  );
  setObjectCondition(
    pool,
    'Degraded',
    degraded > 0 ? 'True' : 'False',
    '',
    degraded > 0 ? `${degraded} nodes are reporting degraded status on sync` : '',
    at,
  );
}

/** Whether `pool` runs the rendered config of `version` on all its nodes (what the machine-config operator waits for). */
export function poolUpdatedTo(state: ClusterState, pool: string, version: string): boolean {
  const p = state.find(kindNamed('MachineConfigPool'), undefined, pool);
  if (!p) return true; // no such pool: nothing to wait for
  const s = (p.status ?? {}) as PoolStatus & { machineCount?: number; updatedMachineCount?: number };
  return s.configuration?.name === renderedConfig(pool, version) && s.updatedMachineCount === s.machineCount;
}
