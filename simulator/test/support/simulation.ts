// The mock cluster's state as the simulation tests build it: a worker pool, operators and their
// Deployments, the scenario ConfigMap, and what the tests read back. For simulator/test/unit/controllers/
// (mco, operators, jobs) and simulator/test/service/controllers/simulation.test.ts.
import { kubeTime } from 'cincy/clock';
import {
  CURRENT,
  DESIRED,
  MCD_STATE,
  PHASE,
  kubeletVersionFor,
  renderedConfig,
} from '@cincy/simulator/controllers/mco';
import { SCENARIO } from '@cincy/simulator/controllers/scenario';
import { kindNamed, type StoredObject } from '@cincy/simulator/apiserver/kinds';
import { ClusterState } from '@cincy/simulator/apiserver/state';

export const T0 = Date.parse('2026-06-01T00:00:00Z');
export const MIN = 60_000;
export const OLD = '4.16.3';
export const NEW = '4.16.5';
export const IMAGE = `quay.io/openshift-release-dev/ocp-release@sha256:${'a'.repeat(64)}`;

export const K = {
  node: kindNamed('Node'),
  pool: kindNamed('MachineConfigPool'),
  co: kindNamed('ClusterOperator'),
  deploy: kindNamed('Deployment'),
  cm: kindNamed('ConfigMap'),
  job: kindNamed('Job'),
};

export function operatorDeployment(name: string, namespace: string, co: string, version: string): StoredObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, annotations: { 'operator.cincy.io/cluster-operator': co } },
    spec: {
      replicas: 1,
      template: {
        spec: {
          containers: [
            { name: 'operator', image: 'example/operator', env: [{ name: 'RELEASE_VERSION', value: version }] },
          ],
        },
      },
    },
  };
}

/** Runs release `version` in the Deployment(s) of operator `co`, as applying a payload does. */
export function runRelease(s: ClusterState, co: string, version: string): void {
  for (const d of s
    .list(K.deploy)
    .filter((x) => x.metadata.annotations?.['operator.cincy.io/cluster-operator'] === co)) {
    const spec = d.spec as {
      template: { spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> } };
    };
    spec.template.spec.containers[0]!.env = spec.template.spec.containers[0]!.env.map((e) =>
      e.name === 'RELEASE_VERSION' ? { ...e, value: version } : e,
    );
    s.update(K.deploy, d.metadata.namespace, d.metadata.name, d);
  }
}

export function setScenario(s: ClusterState, data: Record<string, unknown>): void {
  const json = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, JSON.stringify(v)]));
  try {
    s.patch(K.cm, SCENARIO.namespace, SCENARIO.name, { data: json });
  } catch {
    s.create(K.cm, SCENARIO.namespace, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: SCENARIO.name },
      data: json,
    });
  }
}

/** A worker pool of the given nodes (created a minute apart, in order) running OLD, and the machine-config operator. */
export function workerPool(
  nodes: Array<{ name: string; zone?: string }>,
  spec: Record<string, unknown> = {},
  file?: string,
): ClusterState {
  const s = new ClusterState(file);
  s.create(
    K.deploy,
    'openshift-machine-config-operator',
    operatorDeployment('machine-config-operator', 'openshift-machine-config-operator', 'machine-config', OLD),
    T0 - 86_400_000,
  );
  const rendered = renderedConfig('worker', OLD);
  s.create(K.pool, undefined, {
    apiVersion: '',
    kind: 'MachineConfigPool',
    metadata: { name: 'worker' },
    spec: {
      configuration: { name: rendered },
      nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
      ...spec,
    },
    status: { configuration: { name: rendered } },
  });
  nodes.forEach((n, i) => {
    s.create(
      K.node,
      undefined,
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: n.name,
          labels: { 'node-role.kubernetes.io/worker': '', ...(n.zone && { 'topology.kubernetes.io/zone': n.zone }) },
          annotations: { [CURRENT]: rendered, [DESIRED]: rendered, [MCD_STATE]: 'Done' },
        },
        spec: {},
        status: {
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: kubeTime(T0 - 86_400_000) },
          ],
          nodeInfo: { kubeletVersion: kubeletVersionFor(OLD) },
        },
      },
      T0 - 86_400_000 + i * MIN,
    );
  });
  return s;
}

export const nodes = (s: ClusterState): StoredObject[] => s.list(K.node);
export const cordoned = (s: ClusterState): string[] =>
  nodes(s)
    .filter((n) => (n.spec as { unschedulable?: boolean }).unschedulable)
    .map((n) => n.metadata.name);
export const ready = (n: StoredObject): boolean =>
  (n.status as { conditions: Array<{ type: string; status: string }> }).conditions.find((c) => c.type === 'Ready')
    ?.status === 'True';
export const unavailable = (s: ClusterState): string[] =>
  nodes(s)
    .filter(
      (n) => (n.spec as { unschedulable?: boolean }).unschedulable || !ready(n) || n.metadata.annotations?.[PHASE],
    )
    .map((n) => n.metadata.name);
export const poolStatus = (
  s: ClusterState,
  name = 'worker',
): Record<string, unknown> & { conditions: Array<{ type: string; status: string; lastTransitionTime: string }> } =>
  s.get(K.pool, undefined, name).status as never;
export const co = (
  s: ClusterState,
  name: string,
): {
  versions: Array<{ name: string; version: string }>;
  conditions: Array<{ type: string; status: string; reason: string; message: string; lastTransitionTime: string }>;
} => s.get(K.co, undefined, name).status as never;
export const cond = (
  s: ClusterState,
  name: string,
  type: string,
): { status: string; reason: string; message: string; lastTransitionTime: string } =>
  co(s, name).conditions.find((c) => c.type === type)!;

/** A pool of five nodes whose updates take different times: node 2 finishes first, then 1 (cordoned at the start), then 3, 5, 4. */
export const OUT_OF_ORDER_TIMINGS = {
  nodeDefaults: { cordon: '0s', update: '1m', reboot: '1m', uncordon: '0s' },
  nodes: {
    'node-1': { drain: '13m' },
    'node-2': { drain: '8m' },
    'node-3': { drain: '18m' },
    'node-4': { drain: '14m' },
    'node-5': { drain: '6m' },
  },
};
export const seedPool = (file?: string): ClusterState => {
  const s = workerPool(
    [1, 2, 3, 4, 5].map((i) => ({ name: `node-${i}` })),
    { maxUnavailable: 3 },
    file,
  );
  setScenario(s, OUT_OF_ORDER_TIMINGS);
  return s;
};
