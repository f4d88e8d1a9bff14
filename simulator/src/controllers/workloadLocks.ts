// The application controllers of a Mirantis MOSK cluster, simulated (`cincy mock-cluster --workload-locks
// openstack,ceph`): each holds a ClusterWorkloadLock and a NodeWorkloadLock on every node, and answers the
// lifecycle manager's maintenance requests as the seed describes. While a ClusterMaintenanceRequest exists a
// controller updates its application and then marks its cluster lock inactive (Ceph starts only once the
// OpenStack lock is inactive). While a NodeMaintenanceRequest names a node, the controller prepares its
// workload there (OpenStack migrates instances away, Ceph sets noout) and marks its lock of that node
// inactive; once the request is gone it restores the workload and marks the lock active again. OpenStack
// has at most one of its node locks other than active at a time. Durations are the controller's own, on the
// simulated clock; what a controller is doing and until when is kept in annotations of its lock, so the
// simulation is a function of the state and the time. A lock in `failed` (a tester patches its status, as
// a controller reports a failure) is left alone until someone sets its state again: `active` makes the
// controller do its work over, `inactive` says it is done; either way its errorMessage is then dropped.
import { installCrds } from '../apiserver/crds.js';
import { annotation, clone, isoMs, save, setAnnotation, timeAnnotation } from './controller.js';
import { recordEvent } from '../apiserver/events.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { LCM_GROUP, type LockState } from '../apiserver/kinds/lcm.js';
import type { ClusterState } from '../apiserver/state.js';

/** What a simulated controller is doing on one of its locks, and until when. */
const WORK = 'cincy.mock/lock-work';
const WORK_END = 'cincy.mock/lock-work-end';
/** When the lock's state last changed (the lifecycle manager starts a node no earlier). */
export const STATE_CHANGED = 'cincy.mock/lock-state-changed';

type Work = 'update' | 'prepare' | 'restore';

interface SimulatedController {
  /** Updating its application in the cluster maintenance. */
  update: number;
  /** Preparing one node for maintenance, by scope. */
  prepare: { drain: number; os: number };
  /** Restoring its workload on a node after the maintenance. */
  restore: number;
  /** Controllers whose cluster lock must be inactive before this one updates. */
  after: string[];
  /** At most one of its node locks other than active at a time. */
  oneNodeAtATime: boolean;
  /** What it does on a node, for its events. */
  prepares: string;
}

const MINUTE = 60_000;

export const SIMULATED_CONTROLLERS: Record<string, SimulatedController> = {
  openstack: {
    update: 20 * MINUTE,
    prepare: { drain: 2 * MINUTE, os: 6 * MINUTE },
    restore: MINUTE,
    after: [],
    oneNodeAtATime: true,
    prepares: 'live-migrating instances off the node',
  },
  ceph: {
    update: 12 * MINUTE,
    prepare: { drain: MINUTE, os: 2 * MINUTE },
    restore: MINUTE / 2,
    after: ['openstack'],
    oneNodeAtATime: false,
    prepares: 'setting noout for the OSDs of the node',
  },
};

interface LockSpec {
  controllerName?: string;
  nodeName?: string;
}
export interface LockStatus {
  state?: LockState;
  errorMessage?: string;
  release?: string;
}

export const lockSpec = (o: StoredObject): LockSpec => (o.spec ?? {}) as LockSpec;
export const lockStatus = (o: StoredObject): LockStatus => (o.status ?? {}) as LockStatus;
export const lockState = (o: StoredObject): LockState | undefined => lockStatus(o).state;

const kinds = () => ({
  clusterLock: kindNamed('ClusterWorkloadLock'),
  nodeLock: kindNamed('NodeWorkloadLock'),
  clusterRequest: kindNamed('ClusterMaintenanceRequest'),
  nodeRequest: kindNamed('NodeMaintenanceRequest'),
});

/** The names --workload-locks takes: the simulated controllers. */
export const CONTROLLER_NAMES = Object.keys(SIMULATED_CONTROLLERS);

/** Parses --workload-locks: a comma-separated list of simulated controllers (an unknown one is an error naming the flag). */
export function parseControllers(value: string): string[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new Error(`--workload-locks: name at least one controller (${CONTROLLER_NAMES.join(', ')})`);
  for (const n of names)
    if (!SIMULATED_CONTROLLERS[n])
      throw new Error(
        `--workload-locks: '${n}' is not a controller the mock simulates (one of ${CONTROLLER_NAMES.join(', ')})`,
      );
  return [...new Set(names)];
}

/** The release the cluster runs or is updating to. */
function clusterRelease(state: ClusterState): string | undefined {
  const cv = state.find(kindNamed('ClusterVersion'), undefined, 'version');
  return (cv?.status as { desired?: { version?: string } } | undefined)?.desired?.version;
}

/** Serves the lcm.mirantis.com API and deploys the simulated `controllers` with their locks (`at`: now, ms). */
export function installWorkloadLocks(state: ClusterState, controllers: string[], at: number): void {
  installCrds(state, at, [LCM_GROUP]);
  seedWorkloadLocks(state, controllers, at);
}

/**
 * Gives each controller its ClusterWorkloadLock (named after it) and a NodeWorkloadLock on every node
 * (`<controller>-<node>`), all active, as the controllers do when they are deployed. Existing locks stay.
 */
export function seedWorkloadLocks(state: ClusterState, controllers: string[], at: number): void {
  const k = kinds();
  const release = clusterRelease(state);
  const make = (kind: typeof k.clusterLock, name: string, spec: LockSpec): void => {
    if (state.has(kind, undefined, name)) return;
    const made = state.create(
      kind,
      undefined,
      { apiVersion: 'lcm.mirantis.com/v1alpha1', kind: kind.kind, metadata: { name }, spec },
      at,
    );
    const status: LockStatus = { state: 'active', ...(release && { release }) };
    state.update(kind, undefined, name, { ...made, status }, 'status');
  };
  const nodes = state.list(kindNamed('Node')).map((n) => n.metadata.name);
  for (const c of controllers) {
    make(k.clusterLock, c, { controllerName: c });
    for (const n of nodes) make(k.nodeLock, `${c}-${n}`, { controllerName: c, nodeName: n });
  }
}

/** One pass of every simulated controller at simulated time `now`. Nothing to do on a cluster without locks. */
export function reconcileWorkloadLocks(state: ClusterState, now: number): void {
  const k = kinds();
  const clusterLocks = state.list(k.clusterLock);
  const nodeLocks = state.list(k.nodeLock);
  if (clusterLocks.length === 0 && nodeLocks.length === 0) return;
  const release = clusterRelease(state);
  const maintenance = state.list(k.clusterRequest).length > 0;
  const requests = new Map(
    state.list(k.nodeRequest).map((r) => [lockSpec(r).nodeName, (r.spec as { scope?: string }).scope]),
  );

  for (const before of clusterLocks) {
    const c = SIMULATED_CONTROLLERS[lockSpec(before).controllerName ?? ''];
    if (!c) continue; // another controller's lock: its owner answers for it
    const lock = clone(before);
    const waitsFor = clusterLocks.filter(
      (o) => c.after.includes(lockSpec(o).controllerName ?? '') && lockState(o) !== 'inactive',
    );
    stepLock(state, lock, now, release, {
      wanted: maintenance ? 'inactive' : 'active',
      work: maintenance ? 'update' : undefined,
      duration: c.update,
      mayStart: waitsFor.length === 0,
      startMessage: `${lockSpec(lock).controllerName} is updating its application for ${release ?? 'the new release'}`,
    });
    save(state, k.clusterLock, before, lock);
  }

  const busy = (o: StoredObject): boolean => lockState(o) !== 'active' || annotation(o, WORK) === 'prepare';
  const current = new Map(nodeLocks.map((o) => [o.metadata.name, o]));
  for (const before of nodeLocks) {
    const { controllerName = '', nodeName = '' } = lockSpec(before);
    const c = SIMULATED_CONTROLLERS[controllerName];
    if (!c) continue;
    const lock = clone(before);
    const requested = requests.has(nodeName);
    const scope = requests.get(nodeName) === 'drain' ? 'drain' : 'os';
    // OpenStack's rule: another of its node locks not active (or being prepared) holds this one.
    const others = [...current.values()].filter(
      (o) => o.metadata.name !== lock.metadata.name && lockSpec(o).controllerName === controllerName,
    );
    stepLock(state, lock, now, release, {
      wanted: requested ? 'inactive' : 'active',
      work: requested ? 'prepare' : 'restore',
      duration: requested ? c.prepare[scope] : c.restore,
      mayStart: !requested || !c.oneNodeAtATime || !others.some(busy),
      startMessage: requested
        ? `${controllerName} is preparing node ${nodeName} for maintenance (scope ${scope}): ${c.prepares}`
        : `${controllerName} is restoring its workload on node ${nodeName}`,
    });
    if (save(state, k.nodeLock, before, lock))
      current.set(lock.metadata.name, state.get(k.nodeLock, undefined, lock.metadata.name));
  }
}

interface Step {
  /** The state the controller is working towards. */
  wanted: LockState;
  /** The work that gets it there (none: at once). */
  work: Work | undefined;
  duration: number;
  /** Whether the work may start now. */
  mayStart: boolean;
  startMessage: string;
}

/** Moves one lock towards the state its controller wants, doing the work that takes (a failed lock stays). */
function stepLock(state: ClusterState, lock: StoredObject, now: number, release: string | undefined, s: Step): void {
  const status = (lock.status ??= {}) as LockStatus;
  const doing = annotation(lock, WORK);
  if (status.state === 'failed') {
    // Left to whoever fixes the workload; the work under way is dropped, to be done over once it is active.
    setAnnotation(lock, WORK, undefined);
    setAnnotation(lock, WORK_END, undefined);
    return;
  }
  // The error of a failure someone has since cleared (setting the state alone) is no longer true.
  delete status.errorMessage;
  if (status.state === s.wanted) {
    if (doing) {
      setAnnotation(lock, WORK, undefined);
      setAnnotation(lock, WORK_END, undefined);
    }
    return;
  }
  if (!s.work) {
    // Nothing to do to get there (the cluster maintenance is over: the application runs as it is).
    finish(state, lock, now, release, s.wanted);
    return;
  }
  if (doing !== s.work) {
    if (!s.mayStart) {
      if (doing) {
        setAnnotation(lock, WORK, undefined);
        setAnnotation(lock, WORK_END, undefined);
      }
      return;
    }
    setAnnotation(lock, WORK, s.work);
    setAnnotation(lock, WORK_END, isoMs(now + s.duration));
    tell(state, lock, now, 'MaintenanceStarted', s.startMessage);
    return;
  }
  const end = timeAnnotation(lock, WORK_END) ?? now;
  if (end <= now) finish(state, lock, end, release, s.wanted);
}

/** The lock reaches `wanted` at `at`. */
function finish(
  state: ClusterState,
  lock: StoredObject,
  at: number,
  release: string | undefined,
  wanted: LockState,
): void {
  const status = lock.status as LockStatus;
  setAnnotation(lock, WORK, undefined);
  setAnnotation(lock, WORK_END, undefined);
  setAnnotation(lock, STATE_CHANGED, isoMs(at));
  status.state = wanted;
  delete status.errorMessage;
  if (wanted === 'inactive' && release) status.release = release;
  const reason = wanted === 'inactive' ? 'LockInactive' : 'LockActive';
  tell(state, lock, at, reason, `${lock.kind} ${lock.metadata.name} is ${wanted}`);
}

function tell(state: ClusterState, lock: StoredObject, at: number, reason: string, message: string): void {
  recordEvent(state, { about: lock, reason, message, component: `${lockSpec(lock).controllerName}-controller`, at });
}
