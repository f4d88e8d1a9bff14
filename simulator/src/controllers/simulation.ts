// The mock cluster's simulation: the controllers that make an update happen (workloads, Jobs, the Machine
// Config Operator, the cluster operators), run as one level-triggered `reconcile(state, now)` that reads
// the objects and writes only what changes. It is a function of the state, the simulated time and the
// options — tests call it with explicit times; the mock-cluster command runs it every ~100 ms of real
// time on the ScaledClock it declares in ConfigMap openshift-config/cincy-mock-clock.
import { ScaledClock, type Clock } from 'cincy/clock';
import { FollowedClock } from '../clock/followed.js';
import { CLOCK_CONFIGMAP, clockData, clockFromData } from '../clock/declaredClock.js';
import { clone, save, setObjectCondition } from './controller.js';
import { DEFAULT_PAYLOAD_STORE, PayloadStore } from 'cincy/payload/store';
import { reconcileJobs } from './jobs.js';
import { payloadAvailability, type PayloadPuller, type PullOutcomes } from './payloadPuller.js';
import { reconcileMco } from './mco.js';
import { reconcileNodeLifecycle } from './nodeLifecycle.js';
import { reconcileWorkloadLocks } from './workloadLocks.js';
import { reconcilePods } from './pods.js';
import { reconcileOadp } from './oadp.js';
import { reconcileSingleNode } from './singleNode.js';
import type { SeedPuller } from './seedPuller.js';
import type { SeedPullOutcomes } from './singleNodeHost.js';
import { operatorReleases, reconcileOperators } from './operators.js';
import { EMPTY_SCENARIO, readScenario, type Scenario } from './scenario.js';
import { kindNamed } from '../apiserver/kinds.js';
import { type ClusterState } from '../apiserver/state.js';

export interface SimulationOptions {
  /** The payload store folder payload Jobs look in (default DEFAULT_PAYLOAD_STORE). */
  payloadStore?: string;
  /** How the pulls of payload Jobs stand; without it, a payload not in the store fails its Job. */
  pulls?: PullOutcomes;
  /** How the single-node host's seed image pulls stand; without it, a seed image asked for is never pulled. */
  seedPulls?: SeedPullOutcomes;
}

/**
 * One pass of every controller at simulated time `now`. Returns problems that did not stop it (a
 * scenario ConfigMap that does not parse: the controllers then use the defaults).
 */
export function reconcile(state: ClusterState, now: number, o: SimulationOptions = {}): string[] {
  const problems: string[] = [];
  let scenario: Scenario = EMPTY_SCENARIO;
  try {
    scenario = readScenario(state);
  } catch (err) {
    problems.push((err as Error).message);
  }
  const store = new PayloadStore(o.payloadStore ?? DEFAULT_PAYLOAD_STORE);
  reconcileNodeLifecycle(state);
  reconcileWorkloads(state, now);
  reconcileJobs(state, now, payloadAvailability(store, o.pulls));
  const releases = operatorReleases(state);
  reconcileWorkloadLocks(state, now); // before the MCO, which reads the locks of the nodes it would take
  reconcileMco(state, now, scenario, releases.get('machine-config'));
  reconcilePods(state, now);
  reconcileOperators(state, now, scenario, releases);
  // A single-node cluster's host (reboots, the init monitor) and its OADP operator.
  const host = reconcileSingleNode(state, now, o.seedPulls);
  if (host) problems.push(host);
  reconcileOadp(state, now);
  return problems;
}

/** The kinds the workloads' status follows, and the state of them each state's last pass saw. */
const WORKLOAD_INPUTS = ['Deployment', 'DaemonSet', 'Node'];
const workloadsSeen = new WeakMap<ClusterState, string>();

/**
 * Deployments and DaemonSets roll out at once: their status follows each new generation. A pass reads
 * nothing when no workload or node changed since the last.
 */
export function reconcileWorkloads(state: ClusterState, now: number): void {
  const inputs = (): string => state.kindsVersion(WORKLOAD_INPUTS.map(kindNamed));
  if (workloadsSeen.get(state) === inputs()) return;
  rollOutWorkloads(state, now);
  workloadsSeen.set(state, inputs());
}

function rollOutWorkloads(state: ClusterState, now: number): void {
  const nodes = state.list(kindNamed('Node'));
  for (const kind of [kindNamed('Deployment'), kindNamed('DaemonSet')]) {
    for (const before of state.list(kind)) {
      const s = (before.status ?? {}) as { observedGeneration?: number };
      if (s.observedGeneration === before.metadata.generation) continue;
      const o = clone(before);
      const spec = (o.spec ?? {}) as {
        replicas?: number;
        template?: { spec?: { nodeSelector?: Record<string, string> } };
      };
      if (kind.kind === 'Deployment') {
        const n = spec.replicas ?? 1;
        o.status = {
          ...(o.status as object),
          observedGeneration: o.metadata.generation,
          replicas: n,
          updatedReplicas: n,
          readyReplicas: n,
          availableReplicas: n,
          unavailableReplicas: 0,
        };
        setObjectCondition(
          o,
          'Available',
          'True',
          'MinimumReplicasAvailable',
          'Deployment has minimum availability.',
          now,
        );
        setObjectCondition(
          o,
          'Progressing',
          'True',
          'NewReplicaSetAvailable',
          `ReplicaSet "${o.metadata.name}" has successfully progressed.`,
          now,
        );
      } else {
        const selector = Object.entries(spec.template?.spec?.nodeSelector ?? {});
        const n = nodes.filter((x) => selector.every(([k, v]) => x.metadata.labels?.[k] === v)).length;
        o.status = {
          observedGeneration: o.metadata.generation,
          desiredNumberScheduled: n,
          currentNumberScheduled: n,
          updatedNumberScheduled: n,
          numberReady: n,
          numberAvailable: n,
          numberMisscheduled: 0,
        };
      }
      save(state, kind, before, o);
    }
  }
}

/** Real time a fast clock runs before it reaches the wall clock, at the most (its start is that far back). */
const CATCH_UP_REAL_MS = 2 * 3600_000;
/** How far back a fast clock starts, at the most: the seeded history (90 days back) stays before it. */
const MAX_LEAD_MS = 60 * 86_400_000;

/**
 * How far behind real time a clock of `scale` starts: far enough that it reaches real time only after two
 * hours of running, so the times the simulated cluster and the agent write are not in the future of the
 * wall clock, which `kubectl` and `oc` reckon ages against (a future time shows as `<invalid>`).
 */
export const leadOf = (scale: number): number => Math.min(MAX_LEAD_MS, Math.max(0, (scale - 1) * CATCH_UP_REAL_MS));

/**
 * The simulated clock: continues the one the state declares at a new scale, or starts one (behind real time
 * when it runs fast, leadOf), and declares it in the clock ConfigMap (which the agent reads).
 */
export function declareClock(state: ClusterState, scale: number): ScaledClock {
  const cm = kindNamed('ConfigMap');
  const existing = state.find(cm, CLOCK_CONFIGMAP.namespace, CLOCK_CONFIGMAP.name) as
    { data?: Record<string, string> } | undefined;
  const now = Date.now();
  const clock = existing
    ? clockFromData(existing.data).rescaled(scale)
    : new ScaledClock(scale, now, now - leadOf(scale));
  if (existing) state.patch(cm, CLOCK_CONFIGMAP.namespace, CLOCK_CONFIGMAP.name, { data: clockData(clock) });
  else
    state.create(cm, CLOCK_CONFIGMAP.namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: CLOCK_CONFIGMAP.name },
      data: clockData(clock),
    });
  return clock;
}

/**
 * The clock the state declares, followed: a change of the clock ConfigMap (kubectl patch of its scale, say)
 * is taken up at the next reading, as the agent takes it up at its next sync. A declaration that does not
 * parse is ignored, the clock going on as it was.
 */
export function followDeclaredClock(state: ClusterState, clock: ScaledClock): FollowedClock {
  const followed = new FollowedClock(clock);
  const cm = kindNamed('ConfigMap');
  let seen = state.kindsVersion([cm]);
  let declared = JSON.stringify(clockData(clock));
  const now = followed.now.bind(followed);
  followed.now = (): number => {
    const version = state.kindsVersion([cm]);
    if (version !== seen) {
      seen = version;
      const data = (
        state.find(cm, CLOCK_CONFIGMAP.namespace, CLOCK_CONFIGMAP.name) as { data?: Record<string, string> } | undefined
      )?.data;
      const text = JSON.stringify(data ?? null);
      const valid =
        Number(data?.scale) > 0 && Number.isFinite(Number(data?.realEpoch)) && Number.isFinite(Number(data?.simEpoch));
      if (text !== declared && valid) followed.source = clockFromData(data);
      declared = text;
    }
    return now();
  };
  return followed;
}

/**
 * A fast declared clock that has reached the wall clock goes on at real speed (declared again, so the agent
 * follows): a simulated time is never in the future of real time.
 */
function holdBehindRealTime(state: ClusterState, clock: Clock, warn?: (message: string) => void): void {
  if (!(clock instanceof FollowedClock) || !(clock.source instanceof ScaledClock)) return;
  if (clock.source.scale <= 1 || clock.now() < Date.now()) return;
  const atRealSpeed = new ScaledClock(1, Date.now(), Date.now());
  clock.source = atRealSpeed;
  state.patch(kindNamed('ConfigMap'), CLOCK_CONFIGMAP.namespace, CLOCK_CONFIGMAP.name, {
    data: clockData(atRealSpeed),
  });
  warn?.(
    'the simulated clock reached real time: it runs at real speed from now on, so no time it writes is in the future',
  );
}

/**
 * Runs reconcile every `intervalMs` of real time until the returned stop() (the timer does not keep the process
 * alive). With a `puller` (a `seedPuller`), each tick first starts the pulls the payload Jobs (the single-node
 * host) need, then reconcile reads them. With `afterPass` (writing the state to another API server), no pass
 * starts before the last one's has ended.
 */
export function startSimulation(
  state: ClusterState,
  clock: Clock,
  o: Omit<SimulationOptions, 'pulls' | 'seedPulls'> & {
    puller?: PayloadPuller;
    seedPuller?: SeedPuller;
    intervalMs?: number;
    warn?: (message: string) => void;
    afterPass?: () => Promise<void>;
  } = {},
): () => void {
  const said = new Set<string>();
  let passing = false;
  const tick = (): void => {
    if (passing) return;
    let problems: string[];
    try {
      holdBehindRealTime(state, clock, o.warn);
      o.puller?.start(state);
      o.seedPuller?.start(state);
      problems = reconcile(state, clock.now(), { ...o, pulls: o.puller, seedPulls: o.seedPuller });
    } catch (err) {
      problems = [`simulation: ${(err as Error).stack ?? String(err)}`];
    }
    // Each problem is said once while it lasts, not every 100 ms.
    for (const p of problems) if (!said.has(p)) o.warn?.(p);
    said.clear();
    problems.forEach((p) => said.add(p));
    if (!o.afterPass) return;
    passing = true;
    o.afterPass()
      .catch((err: unknown) => o.warn?.(`simulation: ${(err as Error).message}`))
      .finally(() => (passing = false));
  };
  tick();
  const timer = setInterval(tick, o.intervalMs ?? 100);
  timer.unref();
  return () => clearInterval(timer);
}
