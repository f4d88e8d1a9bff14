// The mock cluster operators. An operator's Deployment (annotated operator.cincy.io/cluster-operator: <co>)
// running a RELEASE_VERSION its ClusterOperator does not report yet makes the operator update: Progressing
// at once, then after its duration the new versions with Available, not Progressing, not Degraded — or,
// as the scenario says, Degraded or unavailable and stuck at the old versions. machine-config also waits
// for the master pool to run the new rendered config (the CVO then completes while workers still roll).
import { createHash } from 'node:crypto';
import {
  annotation,
  clone,
  objectCondition,
  isoMs,
  save,
  setAnnotation,
  setObjectCondition,
  timeAnnotation,
  type ObjectCondition,
} from './controller.js';
import { recordEvent } from '../apiserver/events.js';
import { poolUpdatedTo } from './mco.js';
import type { Scenario } from './scenario.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { type ClusterState } from '../apiserver/state.js';
import { KUBE_LABEL } from 'cincy/cluster/labels';

export const CO_ANNOTATION = KUBE_LABEL.clusterOperator;
export const TARGET = 'cincy.mock/target-version';
export const DEADLINE = 'cincy.mock/deadline';

/** A deterministic 1–4 simulated minutes per operator; etcd and kube-apiserver roll static pods on every master: 8–10. */
export function defaultOperatorDuration(co: string): number {
  const h = createHash('sha256').update(co).digest().readUInt32BE(0);
  return (co === 'etcd' || co === 'kube-apiserver' ? 480 + (h % 120) : 60 + (h % 180)) * 1000;
}

interface CoStatus {
  versions?: Array<{ name: string; version: string }>;
}

export function releaseVersionOf(d: StoredObject): string | undefined {
  const c = (
    d.spec as { template?: { spec?: { containers?: Array<{ env?: Array<{ name: string; value?: string }> }> } } }
  )?.template?.spec?.containers?.[0];
  return c?.env?.find((e) => e.name === 'RELEASE_VERSION')?.value;
}

/**
 * The release each operator's Deployment runs, by ClusterOperator name. When two Deployments claim one
 * operator (an old name and a new one), the last written wins.
 */
export function operatorReleases(state: ClusterState): Map<string, string> {
  const version = state.kindsVersion([kindNamed('Deployment')]);
  const cached = releasesSeen.get(state);
  if (cached?.version === version) return new Map(cached.releases);
  const releases = readReleases(state);
  releasesSeen.set(state, { version, releases });
  return new Map(releases);
}

/** The last answer of operatorReleases for each state, and the Deployments it was read from. */
const releasesSeen = new WeakMap<ClusterState, { version: string; releases: Map<string, string> }>();

function readReleases(state: ClusterState): Map<string, string> {
  const releases = new Map<string, string>();
  const deployments = state
    .list(kindNamed('Deployment'))
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  for (const d of deployments) {
    const co = annotation(d, CO_ANNOTATION);
    const v = releaseVersionOf(d);
    if (co && v) releases.set(co, v);
  }
  return releases;
}

export function reconcileOperators(
  state: ClusterState,
  now: number,
  scenario: Scenario,
  releases: Map<string, string>,
): void {
  const coKind = kindNamed('ClusterOperator');
  let deployments: Map<string, StoredObject> | undefined; // read once, when an operator first has something to tell
  for (const [name, v] of releases) {
    // The operator creates its ClusterOperator when the CVO has not yet.
    const before =
      state.find(coKind, undefined, name) ??
      state.create(coKind, undefined, {
        apiVersion: 'config.openshift.io/v1',
        kind: 'ClusterOperator',
        metadata: { name },
        spec: {},
      });
    const current = (before.status as CoStatus | undefined)?.versions?.find((x) => x.name === 'operator')?.version;
    if (current === v && annotation(before, TARGET) === undefined && annotation(before, DEADLINE) === undefined)
      continue; // the usual case: nothing to do
    const co = clone(before);
    const s = (co.status ??= {}) as CoStatus;
    if (current === v) {
      setAnnotation(co, TARGET, undefined);
      setAnnotation(co, DEADLINE, undefined);
    } else {
      const { duration = defaultOperatorDuration(name), behavior = 'normal' } = scenario.operators[name] ?? {};
      if (annotation(co, TARGET) !== v || timeAnnotation(co, DEADLINE) === undefined) {
        setAnnotation(co, TARGET, v);
        setAnnotation(co, DEADLINE, isoMs(now + duration));
      }
      const deadline = timeAnnotation(co, DEADLINE)!;
      const due = now >= deadline && (name !== 'machine-config' || poolUpdatedTo(state, 'master', v));
      const at = name === 'machine-config' ? now : deadline;
      setObjectCondition(co, 'Progressing', 'True', 'Upgrading', `Working towards ${v}`, now);
      if (due && behavior === 'degraded') {
        setObjectCondition(
          co,
          'Degraded',
          'True',
          'SimulatedFailure',
          `Simulated failure (scenario): ${name} could not roll out ${v}`,
          at,
        );
      } else if (due && behavior === 'unavailable') {
        setObjectCondition(
          co,
          'Available',
          'False',
          'SimulatedFailure',
          `Simulated outage (scenario): ${name} is not available while rolling out ${v}`,
          at,
        );
      } else if (due) {
        s.versions = (s.versions?.length ? s.versions : [{ name: 'operator', version: v }]).map((x) => ({
          ...x,
          version: v,
        }));
        setObjectCondition(co, 'Available', 'True', 'AsExpected', '', at);
        setObjectCondition(co, 'Progressing', 'False', 'AsExpected', `Cluster version is ${v}`, at);
        setObjectCondition(co, 'Degraded', 'False', 'AsExpected', '', at);
        setAnnotation(co, TARGET, undefined);
        setAnnotation(co, DEADLINE, undefined);
      }
    }
    save(state, coKind, before, co);
    deployments ??= operatorDeployments(state);
    const deployment = deployments.get(name);
    if (deployment) tellChanges(state, name, deployment, before, co, now);
  }
}

/** The Deployment of each operator (by ClusterOperator name): what its events are about. */
function operatorDeployments(state: ClusterState): Map<string, StoredObject> {
  const out = new Map<string, StoredObject>();
  for (const d of state.list(kindNamed('Deployment'))) {
    const co = annotation(d, CO_ANNOTATION);
    if (co) out.set(co, d);
  }
  return out;
}

const conditionText = (c: ObjectCondition | undefined): string => c?.status ?? 'Unknown';

/**
 * The events an operator records when its ClusterOperator changes, in the words of OpenShift's operators
 * (library-go): OperatorStatusChanged for each condition that flips, OperatorVersionChanged for each version.
 */
function tellChanges(
  state: ClusterState,
  name: string,
  deployment: StoredObject,
  before: StoredObject,
  after: StoredObject,
  now: number,
): void {
  const tell = (reason: string, message: string): void =>
    recordEvent(state, { about: deployment, reason, message, component: deployment.metadata.name, at: now });
  for (const type of ['Degraded', 'Progressing', 'Available', 'Upgradeable']) {
    const old = objectCondition(before, type);
    const cur = objectCondition(after, type);
    if (conditionText(old) === conditionText(cur)) continue;
    const why = cur?.message ? ` (${JSON.stringify(cur.message)})` : '';
    tell(
      'OperatorStatusChanged',
      `Status for clusteroperator/${name} changed: ${type} changed from ${conditionText(old)} to ${conditionText(cur)}${why}`,
    );
  }
  const versions = (o: StoredObject): Array<{ name: string; version: string }> =>
    (o.status as CoStatus | undefined)?.versions ?? [];
  for (const v of versions(after)) {
    const old = versions(before).find((x) => x.name === v.name)?.version;
    if (old !== undefined && old !== v.version)
      tell(
        'OperatorVersionChanged',
        `clusteroperator/${name} version "${v.name}" changed from "${old}" to "${v.version}"`,
      );
  }
}
