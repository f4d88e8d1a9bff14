// The mock cluster's simulation: the controllers driven by explicit simulated times (a pool of 5 nodes
// with maxUnavailable=3, nodes finishing out of order, ordering, pausing, operators, Jobs, a restart from the state file),
// then the whole thing over HTTP on a scaled clock, read back with `cincy get`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeTime } from '../src/clock.js';
import { seedInventory } from '@cincy/simulator/controllers/inventory';
import {
  CURRENT,
  DESIRED,
  MCD_STATE,
  PHASE,
  RHEL_KUBELET,
  RHEL_LABEL,
  kubeletVersionFor,
  maxUnavailableOf,
  renderedConfig,
} from '@cincy/simulator/controllers/mco';
import { defaultOperatorDuration } from '@cincy/simulator/controllers/operators';
import { SCENARIO, ScenarioError, scenarioFileData } from '@cincy/simulator/controllers/scenario';
import { reconcile } from '@cincy/simulator/controllers/simulation';
import { kindNamed, type StoredObject } from '@cincy/simulator/apiserver/kinds';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { cincy, cincyAsync, useCleanup } from './support/cli.js';
import { serveMock } from './support/mock.js';

const cleanup = useCleanup();
const T0 = Date.parse('2026-06-01T00:00:00Z');
const MIN = 60_000;
const OLD = '4.16.3';
const NEW = '4.16.5';
const IMAGE = `quay.io/openshift-release-dev/ocp-release@sha256:${'a'.repeat(64)}`;

const K = {
  node: kindNamed('Node'),
  pool: kindNamed('MachineConfigPool'),
  co: kindNamed('ClusterOperator'),
  deploy: kindNamed('Deployment'),
  cm: kindNamed('ConfigMap'),
  job: kindNamed('Job'),
};

function operatorDeployment(name: string, namespace: string, co: string, version: string): StoredObject {
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
function runRelease(s: ClusterState, co: string, version: string): void {
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

function setScenario(s: ClusterState, data: Record<string, unknown>): void {
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
function workerPool(
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

const nodes = (s: ClusterState): StoredObject[] => s.list(K.node);
const cordoned = (s: ClusterState): string[] =>
  nodes(s)
    .filter((n) => (n.spec as { unschedulable?: boolean }).unschedulable)
    .map((n) => n.metadata.name);
const ready = (n: StoredObject): boolean =>
  (n.status as { conditions: Array<{ type: string; status: string }> }).conditions.find((c) => c.type === 'Ready')
    ?.status === 'True';
const unavailable = (s: ClusterState): string[] =>
  nodes(s)
    .filter(
      (n) => (n.spec as { unschedulable?: boolean }).unschedulable || !ready(n) || n.metadata.annotations?.[PHASE],
    )
    .map((n) => n.metadata.name);
const poolStatus = (
  s: ClusterState,
  name = 'worker',
): Record<string, unknown> & { conditions: Array<{ type: string; status: string; lastTransitionTime: string }> } =>
  s.get(K.pool, undefined, name).status as never;
const co = (
  s: ClusterState,
  name: string,
): {
  versions: Array<{ name: string; version: string }>;
  conditions: Array<{ type: string; status: string; reason: string; message: string; lastTransitionTime: string }>;
} => s.get(K.co, undefined, name).status as never;
const cond = (
  s: ClusterState,
  name: string,
  type: string,
): { status: string; reason: string; message: string; lastTransitionTime: string } =>
  co(s, name).conditions.find((c) => c.type === type)!;

/** A pool of five nodes whose updates take different times: node 2 finishes first, then 1 (cordoned at the start), then 3, 5, 4. */
const OUT_OF_ORDER_TIMINGS = {
  nodeDefaults: { cordon: '0s', update: '1m', reboot: '1m', uncordon: '0s' },
  nodes: {
    'node-1': { drain: '13m' },
    'node-2': { drain: '8m' },
    'node-3': { drain: '18m' },
    'node-4': { drain: '14m' },
    'node-5': { drain: '6m' },
  },
};
const seedPool = (file?: string): ClusterState => {
  const s = workerPool(
    [1, 2, 3, 4, 5].map((i) => ({ name: `node-${i}` })),
    { maxUnavailable: 3 },
    file,
  );
  setScenario(s, OUT_OF_ORDER_TIMINGS);
  return s;
};

describe('the Machine Config Operator simulation', () => {
  it('walks a pool of 5 nodes with maxUnavailable 3 through an update, nodes finishing out of order', () => {
    const s = seedPool();
    reconcile(s, T0);
    expect(cordoned(s)).toEqual([]); // the pool still runs the old release
    runRelease(s, 'machine-config', NEW);
    const target = renderedConfig('worker', NEW);
    // Every 30 simulated seconds: the cordoned set whenever it changes, and the invariant at every step.
    const changes: Array<[number, string[]]> = [];
    for (let t = T0; t <= T0 + 30 * MIN; t += 30_000) {
      reconcile(s, t);
      const now = cordoned(s);
      expect(unavailable(s)).toEqual(now); // cordon and uncordon take no time here: unavailable exactly while cordoned
      expect(now.length).toBeLessThanOrEqual(3);
      if (JSON.stringify(now) !== JSON.stringify(changes.at(-1)?.[1])) changes.push([(t - T0) / MIN, now]);
      if (t === T0 + 5 * MIN) expect(s.get(K.node, undefined, 'node-2').metadata.annotations?.[PHASE]).toBe('drain');
      if (t === T0 + 8.5 * MIN) expect(s.get(K.node, undefined, 'node-2').metadata.annotations?.[PHASE]).toBe('update');
      if (t === T0 + 9.5 * MIN) {
        const n2 = s.get(K.node, undefined, 'node-2');
        expect([n2.metadata.annotations?.[PHASE], ready(n2)]).toEqual(['reboot', false]);
        expect(unavailable(s)).toEqual(['node-1', 'node-2', 'node-3']);
      }
      if (t === T0 + 12 * MIN) {
        expect(poolStatus(s)).toMatchObject({
          machineCount: 5,
          updatedMachineCount: 1,
          readyMachineCount: 1,
          unavailableMachineCount: 3,
          degradedMachineCount: 0,
          configuration: { name: renderedConfig('worker', OLD) },
        });
        expect(poolStatus(s).conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
          'Updated=False',
          'Updating=True',
          'Degraded=False',
        ]);
        expect(s.get(K.node, undefined, 'node-4').metadata.annotations).toMatchObject({
          [DESIRED]: target,
          [MCD_STATE]: 'Working',
          [PHASE]: 'drain',
        });
      }
    }
    expect(changes).toEqual([
      [0, ['node-1', 'node-2', 'node-3']], // the MCO cordons nodes 1, 2 and 3
      [10, ['node-1', 'node-3', 'node-4']], // node 2 is back: node 4 is cordoned at that moment
      [15, ['node-3', 'node-4', 'node-5']], // node 1 is back: node 5
      [20, ['node-4', 'node-5']], // node 3
      [23, ['node-4']], // node 5
      [26, []], // node 4
    ]);
    for (const n of nodes(s)) {
      expect(n.metadata.annotations).toMatchObject({ [CURRENT]: target, [DESIRED]: target, [MCD_STATE]: 'Done' });
      expect(n.metadata.annotations?.[PHASE]).toBeUndefined();
      expect(n.spec).toEqual({});
      expect(ready(n)).toBe(true);
      expect((n.status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion).toBe(
        kubeletVersionFor(NEW),
      );
    }
    expect(poolStatus(s)).toMatchObject({
      machineCount: 5,
      updatedMachineCount: 5,
      readyMachineCount: 5,
      unavailableMachineCount: 0,
      configuration: { name: target },
    });
    const updated = poolStatus(s).conditions.find((c) => c.type === 'Updated')!;
    expect([updated.status, updated.lastTransitionTime]).toEqual(['True', kubeTime(T0 + 26 * MIN)]);
  });

  it('gives the same result however rarely it runs: a missed phase end happens at its own time', () => {
    const fine = seedPool();
    const coarse = seedPool();
    for (const s of [fine, coarse]) {
      reconcile(s, T0 - MIN);
      runRelease(s, 'machine-config', NEW);
    }
    for (let t = T0; t <= T0 + 30 * MIN; t += 7_000) reconcile(fine, t);
    reconcile(coarse, T0);
    reconcile(coarse, T0 + 30 * MIN);
    const view = (s: ClusterState): unknown => nodes(s).map((n) => [n.metadata.annotations, n.spec, n.status]);
    expect(view(coarse)).toEqual(view(fine));
    // Node 4 started when node 2 finished (10 min), drained 14, updated 1, rebooted 1: Ready again at 26 minutes.
    const n4 = coarse.get(K.node, undefined, 'node-4');
    expect((n4.status as { conditions: Array<{ lastTransitionTime: string }> }).conditions[0]!.lastTransitionTime).toBe(
      kubeTime(T0 + 26 * MIN),
    );
  });

  it('writes nothing when nothing changed', () => {
    const s = seedPool();
    runRelease(s, 'machine-config', NEW);
    reconcile(s, T0);
    const rv = s.resourceVersion;
    reconcile(s, T0);
    reconcile(s, T0 + 1000);
    expect(s.resourceVersion).toBe(rv);
  });

  it('takes nodes by zone, then oldest first, then by name', () => {
    const s = workerPool([
      { name: 'w-b-old', zone: 'zone-b' },
      { name: 'w-a-1', zone: 'zone-a' },
      { name: 'w-a-0', zone: 'zone-a' },
      { name: 'w-c', zone: 'zone-c' },
      { name: 'w-a-2', zone: 'zone-a' },
    ]);
    setScenario(s, { nodeDefaults: { cordon: '0s', drain: '1m', update: '0s', reboot: '1m', uncordon: '0s' } });
    runRelease(s, 'machine-config', NEW);
    const order: string[] = [];
    for (let t = T0; t <= T0 + 12 * MIN; t += 30_000) {
      reconcile(s, t);
      for (const n of cordoned(s)) if (!order.includes(n)) order.push(n);
      expect(cordoned(s).length).toBeLessThanOrEqual(1); // maxUnavailable defaults to 1
    }
    // w-a-1 was created before w-a-0 (creation order is the list order).
    expect(order).toEqual(['w-a-1', 'w-a-0', 'w-a-2', 'w-b-old', 'w-c']);
  });

  it('reads maxUnavailable as an integer or a percentage of the pool, at least 1', () => {
    expect([
      maxUnavailableOf('40%', 5),
      maxUnavailableOf('10%', 5),
      maxUnavailableOf(3, 5),
      maxUnavailableOf('2', 5),
      maxUnavailableOf(undefined, 5),
      maxUnavailableOf(0, 5),
    ]).toEqual([2, 1, 3, 2, 1, 1]);
    const s = workerPool(
      [1, 2, 3, 4, 5].map((i) => ({ name: `node-${i}` })),
      { maxUnavailable: '40%' },
    );
    runRelease(s, 'machine-config', NEW);
    reconcile(s, T0);
    expect(cordoned(s)).toEqual(['node-1', 'node-2']);
  });

  it('updates no node of a paused pool, and resumes when unpaused', () => {
    const s = workerPool([{ name: 'node-1' }, { name: 'node-2' }], { paused: true });
    runRelease(s, 'machine-config', NEW);
    reconcile(s, T0);
    reconcile(s, T0 + 60 * MIN);
    expect(cordoned(s)).toEqual([]);
    expect(nodes(s).map((n) => n.metadata.annotations?.[CURRENT])).toEqual([
      renderedConfig('worker', OLD),
      renderedConfig('worker', OLD),
    ]);
    expect(s.get(K.pool, undefined, 'worker').spec).toMatchObject({
      configuration: { name: renderedConfig('worker', NEW) },
    });
    expect(poolStatus(s).conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Updated=False',
      'Updating=False',
      'Degraded=False',
    ]);
    s.patch(K.pool, undefined, 'worker', { spec: { paused: false } });
    reconcile(s, T0 + 61 * MIN);
    expect(cordoned(s)).toEqual(['node-1']);
  });

  it('reports the new machine-config version once the master pool is updated, while workers still roll', () => {
    const s = new ClusterState();
    seedInventory(s, { version: OLD, image: IMAGE, arch: 'amd64' });
    setScenario(s, { nodes: Object.fromEntries([0, 1, 2].map((i) => [`worker-${i}`, { drain: '30m' }])) });
    reconcile(s, T0);
    runRelease(s, 'machine-config', NEW);
    const masterDone = (): boolean =>
      (poolStatus(s, 'master').configuration as { name: string }).name === renderedConfig('master', NEW);
    let t = T0;
    for (; t < T0 + 120 * MIN && !masterDone(); t += 30_000) {
      reconcile(s, t);
      if (!masterDone()) expect(co(s, 'machine-config').versions[0]!.version).toBe(OLD);
    }
    expect(cond(s, 'machine-config', 'Progressing')).toMatchObject({ status: 'False' });
    expect(co(s, 'machine-config').versions.map((v) => v.version)).toEqual([NEW]);
    expect(poolStatus(s, 'master')).toMatchObject({
      updatedMachineCount: 3,
      configuration: { name: renderedConfig('master', NEW) },
    });
    expect(poolStatus(s, 'worker')).toMatchObject({ updatedMachineCount: 0 });
    expect(poolStatus(s, 'worker').conditions.find((c) => c.type === 'Updating')!.status).toBe('True');
    // Three masters one at a time at the default 10s + 2m + 3m + 4m + 10s each: 28 minutes.
    expect(t - T0).toBeGreaterThanOrEqual(28 * MIN);
    expect(t - T0).toBeLessThanOrEqual(29 * MIN);
  });
});

describe('RHEL workers', () => {
  it('get the new configuration but not the kubelet: NotReady until it is updated by other means, and the pool waits', () => {
    const s = new ClusterState();
    seedInventory(s, { version: OLD, image: IMAGE, arch: 'amd64', rhelWorkers: 1 });
    expect(
      nodes(s)
        .filter((n) => n.metadata.labels?.[RHEL_LABEL] === 'rhel')
        .map((n) => n.metadata.name),
    ).toEqual(['worker-2']);
    reconcile(s, T0);
    runRelease(s, 'machine-config', NEW);
    let t = T0;
    const rhel = (): StoredObject => s.get(K.node, undefined, 'worker-2');
    for (; t < T0 + 120 * MIN && rhel().metadata.annotations?.[PHASE] !== 'awaiting-kubelet'; t += 30_000)
      reconcile(s, t);
    // Its configuration applied, its old kubelet NotReady, still cordoned: unavailable, and not updated.
    expect(rhel().metadata.annotations?.[CURRENT]).toBe(renderedConfig('worker', NEW));
    expect(ready(rhel())).toBe(false);
    expect((rhel().status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion).toBe(
      kubeletVersionFor(OLD),
    );
    expect(unavailable(s)).toEqual(['worker-2']);
    for (const end = t + 60 * MIN; t < end; t += 30_000) reconcile(s, t);
    expect(unavailable(s)).toEqual(['worker-2']); // it waits for ever
    expect(poolStatus(s, 'worker')).toMatchObject({
      machineCount: 3,
      updatedMachineCount: 2,
      unavailableMachineCount: 1,
    });
    expect(poolStatus(s, 'worker').conditions.find((c) => c.type === 'Updated')!.status).toBe('False');
    expect(poolStatus(s, 'master')).toMatchObject({ updatedMachineCount: 3 }); // the control plane is not held up
    // Updated by other means (openshift-ansible), as the annotation says: Ready, uncordoned, done.
    s.patch(K.node, undefined, 'worker-2', { metadata: { annotations: { [RHEL_KUBELET]: NEW } } });
    for (const end = t + 5 * MIN; t < end; t += 30_000) reconcile(s, t);
    expect(unavailable(s)).toEqual([]);
    expect((rhel().status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion).toBe(
      kubeletVersionFor(NEW),
    );
    expect(poolStatus(s, 'worker')).toMatchObject({
      updatedMachineCount: 3,
      configuration: { name: renderedConfig('worker', NEW) },
    });
  });
});

describe('the cluster operator simulation', () => {
  const cluster = (): ClusterState => {
    const s = new ClusterState();
    seedInventory(s, { version: OLD, image: IMAGE, arch: 'amd64' });
    reconcile(s, T0 - MIN);
    return s;
  };

  it('gives each operator a deterministic duration: 1–4 minutes, 8–10 for etcd and kube-apiserver', () => {
    const within = (names: string[], low: number, high: number): boolean =>
      names.every((n) => defaultOperatorDuration(n) >= low && defaultOperatorDuration(n) < high);
    expect(within(['dns', 'ingress', 'console', 'network'], MIN, 4 * MIN)).toBe(true);
    expect(within(['etcd', 'kube-apiserver'], 8 * MIN, 10 * MIN)).toBe(true);
    expect(defaultOperatorDuration('dns')).toBe(defaultOperatorDuration('dns'));
  });

  it('progresses when its Deployment runs a new release, and reports every version after its duration', () => {
    const s = cluster();
    expect(co(s, 'etcd').versions.map((v) => v.name)).toEqual(['operator', 'raw-internal', 'etcd']);
    runRelease(s, 'etcd', NEW);
    reconcile(s, T0);
    expect(cond(s, 'etcd', 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Upgrading',
      message: `Working towards ${NEW}`,
      lastTransitionTime: kubeTime(T0),
    });
    expect(co(s, 'etcd').versions.every((v) => v.version === OLD)).toBe(true);
    const done = T0 + defaultOperatorDuration('etcd');
    reconcile(s, done - 1000);
    expect(co(s, 'etcd').versions[0]!.version).toBe(OLD);
    reconcile(s, done + 20_000);
    expect(co(s, 'etcd').versions).toEqual(
      ['operator', 'raw-internal', 'etcd'].map((name) => ({ name, version: NEW })),
    );
    expect(cond(s, 'etcd', 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'AsExpected',
      lastTransitionTime: kubeTime(done),
    });
    expect(cond(s, 'etcd', 'Available')).toMatchObject({ status: 'True', reason: 'AsExpected' });
    expect(cond(s, 'etcd', 'Available').lastTransitionTime).toBe('2026-03-02T11:10:00Z'); // it never flipped
    expect(s.get(K.co, undefined, 'etcd').metadata.annotations ?? {}).toEqual({});
    expect(co(s, 'dns').versions[0]!.version).toBe(OLD); // the others did not move
  });

  it('turns Degraded or unavailable as the scenario says, without reporting the new version', () => {
    const s = cluster();
    setScenario(s, {
      operators: {
        dns: { behavior: 'degraded', duration: '2m' },
        ingress: { behavior: 'unavailable', duration: '3m' },
      },
    });
    runRelease(s, 'dns', NEW);
    runRelease(s, 'ingress', NEW);
    reconcile(s, T0);
    reconcile(s, T0 + 10 * MIN);
    expect(cond(s, 'dns', 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'SimulatedFailure',
      lastTransitionTime: kubeTime(T0 + 2 * MIN),
    });
    expect(cond(s, 'dns', 'Degraded').message).toMatch(/^Simulated failure/);
    expect(cond(s, 'ingress', 'Available')).toMatchObject({
      status: 'False',
      reason: 'SimulatedFailure',
      lastTransitionTime: kubeTime(T0 + 3 * MIN),
    });
    expect([co(s, 'dns').versions[0]!.version, co(s, 'ingress').versions[0]!.version]).toEqual([OLD, OLD]);
    expect(cond(s, 'dns', 'Progressing').status).toBe('True');
    // The scenario is read on every pass: fixed, the operator completes.
    setScenario(s, { operators: {} });
    reconcile(s, T0 + 11 * MIN);
    expect(cond(s, 'dns', 'Degraded').status).toBe('False');
    expect(co(s, 'dns').versions[0]!.version).toBe(NEW);
  });

  it('gives deployments a rolled-out status, once per generation', () => {
    const s = cluster();
    const d = s.list(K.deploy)[0]!;
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 1, availableReplicas: 1 });
  });
});

describe('the Job simulation', () => {
  it('completes the payload Job when the store has the payload and fails it when not; other Jobs complete', () => {
    const store = cleanup.dir();
    const hex = 'b'.repeat(64);
    mkdirSync(join(store, 'sha256', hex, 'release-manifests'), { recursive: true });
    writeFileSync(join(store, 'sha256', hex, 'release-manifests', 'release-metadata'), '{}');
    const s = new ClusterState();
    const job = (ns: string, name: string, image: string): void =>
      void s.create(K.job, ns, {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: { template: { spec: { containers: [{ name: 'payload', image }] } } },
      });
    job('openshift-cluster-version', 'version-4.16.5-abcde', `quay.io/ocp/release@sha256:${hex}`);
    job('openshift-cluster-version', 'version-4.16.6-fghij', `quay.io/ocp/release@sha256:${'c'.repeat(64)}`);
    job('openshift-monitoring', 'migration', 'quay.io/ocp/tool:1');
    const status = (ns: string, name: string): Record<string, unknown> =>
      s.get(K.job, ns, name).status as Record<string, unknown>;
    reconcile(s, T0, { payloadStore: store });
    expect(status('openshift-cluster-version', 'version-4.16.5-abcde')).toEqual({
      startTime: kubeTime(T0),
      active: 1,
      ready: 0,
    });
    reconcile(s, T0 + 20_000, { payloadStore: store });
    expect(status('openshift-cluster-version', 'version-4.16.5-abcde')).toMatchObject({
      succeeded: 1,
      active: 0,
      completionTime: kubeTime(T0 + 20_000),
      conditions: [{ type: 'Complete', status: 'True' }],
    });
    const failed = status('openshift-cluster-version', 'version-4.16.6-fghij');
    expect(failed).toMatchObject({
      failed: 1,
      conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
    });
    expect((failed.conditions as Array<{ message: string }>)[0]!.message).toContain(
      `quay.io/ocp/release@sha256:${'c'.repeat(64)}`,
    );
    expect(status('openshift-monitoring', 'migration').succeeded).toBeUndefined();
    reconcile(s, T0 + 30_000, { payloadStore: store });
    expect(status('openshift-monitoring', 'migration')).toMatchObject({
      succeeded: 1,
      conditions: [{ type: 'Complete', status: 'True' }],
    });
  });
});

describe('a restarted simulation', () => {
  it('continues the phases from the state file', () => {
    const file = join(cleanup.dir(), 'state.json');
    const first = seedPool(file);
    runRelease(first, 'machine-config', NEW);
    reconcile(first, T0);
    reconcile(first, T0 + 12 * MIN);
    first.flush();
    const phases = (s: ClusterState): unknown =>
      nodes(s).map((n) => [
        n.metadata.name,
        n.metadata.annotations?.[PHASE],
        n.metadata.annotations?.['cincy.mock/phase-end'],
      ]);
    const again = new ClusterState(file);
    expect(phases(again)).toEqual(phases(first));
    const rv = again.resourceVersion;
    reconcile(again, T0 + 12 * MIN);
    expect(again.resourceVersion).toBe(rv); // nothing started over
    reconcile(again, T0 + 30 * MIN);
    reconcile(first, T0 + 30 * MIN);
    const view = (s: ClusterState): unknown => nodes(s).map((n) => [n.metadata.annotations, n.spec, n.status]);
    expect(view(again)).toEqual(view(first));
    [first, again].forEach((s) => s.flush()); // no write may be left for after the test removed the folder
  });

  it('journals every write before the call returns, and folds the journal into the state file on flush', () => {
    const file = join(cleanup.dir(), 'state.json');
    const s = new ClusterState(file);
    for (let i = 0; i < 5; i++)
      s.create(K.cm, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } });
    const names = (state: ClusterState): string[] => state.list(K.cm).map((c) => c.metadata.name);
    const reader = new ClusterState(file); // what a process started now would find
    expect(names(reader)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    reader.close();
    s.flush();
    expect((JSON.parse(readFileSync(file, 'utf8')) as { objects: unknown[] }).objects).toHaveLength(5);
    expect(readFileSync(`${file}.journal`, 'utf8')).toBe('');
    s.close();
  });
});

describe('scenario files', () => {
  const write = (text: string): string => {
    const f = join(cleanup.dir(), 'scenario.yaml');
    writeFileSync(f, text);
    return f;
  };
  const known = { operators: ['dns', 'etcd'], nodes: ['worker-0'] };

  it('turn into ConfigMap data', () => {
    const f = write(
      'platform: GCP\noperators:\n  etcd: {duration: 10m, behavior: degraded}\nnodeDefaults: {drain: 5m}\nnodes:\n  worker-0: {reboot: 90s}\n',
    );
    expect(scenarioFileData(f, known)).toEqual({
      platform: 'GCP',
      operators: '{"etcd":{"duration":"10m","behavior":"degraded"}}',
      nodeDefaults: '{"drain":"5m"}',
      nodes: '{"worker-0":{"reboot":"90s"}}',
    });
  });

  it.each([
    [
      'operators:\n  etcd: {behavior: broken}\n',
      'operators.etcd.behavior: "broken" is not a behavior (one of normal, degraded, unavailable)',
    ],
    ['operators:\n  etcd: {duration: soon}\n', 'operators.etcd.duration: "soon" is not a duration'],
    ['operators:\n  etdc: {duration: 1m}\n', 'operators.etdc: no such ClusterOperator'],
    ['nodes:\n  worker-0: {drain: 5}\n', 'nodes.worker-0.drain: 5 is not a duration'],
    ['nodeDefaults: {reboots: 1m}\n', 'nodeDefaults.reboots: unknown phase'],
    ['workers: 5\n', 'workers: unknown key'],
  ])('name the file and the field: %s', (text, message) => {
    const f = write(text);
    expect(() => scenarioFileData(f, known)).toThrow(ScenarioError);
    expect(() => scenarioFileData(f, known)).toThrow(`${f}: ${message}`);
  });
});

describe('the mock cluster over HTTP, on a scaled clock', () => {
  it('serves the new kinds to the generic client through discovery', async () => {
    const dir = cleanup.dir();
    const m = await serveMock(['--plain-http', '--state', join(dir, 'state.json')], dir, cleanup);
    const api = k8s.KubernetesObjectApi.makeApiClient(m.kc);
    const spec = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    };
    await api.create(spec);
    const read = (await api.read({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
    })) as k8s.V1Deployment;
    expect(read.spec?.replicas).toBe(2);
    for (const [apiVersion, kind, namespace] of [
      ['rbac.authorization.k8s.io/v1', 'ClusterRole', undefined],
      ['v1', 'ServiceAccount', 'default'],
      ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined],
    ] as const) {
      await api.create({ apiVersion, kind, metadata: { name: 'x', ...(namespace && { namespace }) } });
      expect(
        (await api.read({ apiVersion, kind, metadata: { name: 'x', ...(namespace && { namespace }) } })).metadata?.name,
      ).toBe('x');
    }
    // RBAC names carry colons, which the client percent-encodes in the path.
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:openshift:operator:dns' },
    };
    await api.create(role);
    expect((await api.read(role)).metadata?.name).toBe('system:openshift:operator:dns');
    await api.replace({ ...role, rules: [] });
  });

  it('updates an operator when its Deployment runs a new release, and `cincy get` shows it', async () => {
    const dir = cleanup.dir();
    const m = await serveMock(
      ['--time-scale', '600', '--plain-http', '--state', join(dir, 'state.json')],
      dir,
      cleanup,
    );
    const core = m.kc.makeApiClient(k8s.CoreV1Api);
    const clock = await core.readNamespacedConfigMap({ namespace: 'openshift-config', name: 'cincy-mock-clock' });
    expect(clock.data?.scale).toBe('600');
    const apps = m.kc.makeApiClient(k8s.AppsV1Api);
    const all = await apps.listDeploymentForAllNamespaces();
    const dns = all.items.find((d) => d.metadata?.annotations?.['operator.cincy.io/cluster-operator'] === 'dns')!;
    dns.spec!.template.spec!.containers[0]!.env = dns.spec!.template.spec!.containers[0]!.env!.map((e) =>
      e.name === 'RELEASE_VERSION' ? { name: e.name, value: NEW } : e,
    );
    await apps.replaceNamespacedDeployment({
      namespace: dns.metadata!.namespace!,
      name: dns.metadata!.name!,
      body: dns,
    });
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const dnsCo = async (): Promise<{ status: { versions: Array<{ version: string }> } }> =>
      (await custom.getClusterCustomObject({
        group: 'config.openshift.io',
        version: 'v1',
        plural: 'clusteroperators',
        name: 'dns',
      })) as never;
    const started = Date.now();
    while ((await dnsCo()).status.versions[0]!.version !== NEW && Date.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    expect((await dnsCo()).status.versions[0]!.version).toBe(NEW);

    const get = (...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      cincyAsync(['get', ...args, '--kubeconfig', m.kubeconfig]);
    const [co, nodes, mcp, cv, json, pods, nope] = await Promise.all([
      get('co'),
      get('nodes'),
      get('mcp'),
      get('clusterversion'),
      get('co', 'dns', '-o', 'json'),
      get('pods'),
      get('co', 'nope'),
    ]);
    expect(co.stdout.split('\n')[0]).toMatch(/^NAME +VERSION +AVAILABLE +PROGRESSING +DEGRADED +SINCE +MESSAGE$/);
    expect(co.stdout).toMatch(/^dns +4\.16\.5 +True +False +False +\d+d$/m);
    expect(co.stdout).toMatch(/^etcd +4\.16\.3 +True +False +False +\d+d$/m);
    expect(nodes.stdout.split('\n')[0]).toMatch(/^NAME +STATUS +ROLES +AGE +VERSION$/);
    expect(nodes.stdout).toMatch(/^master-0 +Ready +control-plane,master +\d+d +v1\.29\.\d+\+[0-9a-f]{7}$/m);
    expect(mcp.stdout.split('\n')[0]).toMatch(
      /^NAME +CONFIG +UPDATED +UPDATING +DEGRADED +MACHINECOUNT +READYMACHINECOUNT +UPDATEDMACHINECOUNT +DEGRADEDMACHINECOUNT +AGE$/,
    );
    expect(mcp.stdout).toMatch(
      new RegExp(`^worker +${renderedConfig('worker', OLD)} +True +False +False +3 +3 +3 +0 +\\d+d$`, 'm'),
    );
    expect(cv.stdout).toMatch(
      /^NAME +VERSION +AVAILABLE +PROGRESSING +SINCE +STATUS\nversion +4\.16\.3 +True +False +\d+d +Cluster version is 4\.16\.3\n$/,
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ metadata: { name: 'dns' } });
    expect(pods).toMatchObject({ code: 1, stderr: expect.stringContaining("unknown resource type 'pods'") });
    expect(nope).toMatchObject({ code: 1, stderr: expect.stringContaining('"nope" not found') });
  });

  it('rolls the master pool and reports machine-config, continuing its simulated time after a restart', async () => {
    const dir = cleanup.dir();
    const state = join(dir, 'state.json');
    const m = await serveMock(['--time-scale', '600', '--plain-http', '--state', state], dir, cleanup);
    // Each node is cordoned for a few simulated minutes, under a second here: a watch sees it, where polling may not.
    let sawCordoned = false;
    const nodeWatch = await new k8s.Watch(m.kc).watch(
      '/api/v1/nodes',
      {},
      (_type, node: k8s.V1Node) => void (sawCordoned ||= node.spec?.unschedulable === true),
      () => undefined,
    );
    cleanup.add(() => nodeWatch.abort());
    const apps = m.kc.makeApiClient(k8s.AppsV1Api);
    const mco = await apps.readNamespacedDeployment({
      namespace: 'openshift-machine-config-operator',
      name: 'machine-config-operator',
    });
    mco.spec!.template.spec!.containers[0]!.env = mco.spec!.template.spec!.containers[0]!.env!.map((e) =>
      e.name === 'RELEASE_VERSION' ? { name: e.name, value: NEW } : e,
    );
    await apps.replaceNamespacedDeployment({
      namespace: 'openshift-machine-config-operator',
      name: 'machine-config-operator',
      body: mco,
    });
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const mcoCo = async (): Promise<string> =>
      (
        (await custom.getClusterCustomObject({
          group: 'config.openshift.io',
          version: 'v1',
          plural: 'clusteroperators',
          name: 'machine-config',
        })) as { status: { versions: Array<{ version: string }> } }
      ).status.versions[0]!.version;
    const started = Date.now();
    while ((await mcoCo()) !== NEW && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50));
    expect(await mcoCo()).toBe(NEW);
    expect(sawCordoned).toBe(true);
    expect(cincy(['get', 'mcp', 'master', '--kubeconfig', m.kubeconfig]).stdout).toMatch(
      new RegExp(`^master +${renderedConfig('master', NEW)} +True +False +False +3 +3 +3 +0 `, 'm'),
    );
    const simNow = async (): Promise<number> => {
      const cm = await m.kc
        .makeApiClient(k8s.CoreV1Api)
        .readNamespacedConfigMap({ namespace: 'openshift-config', name: 'cincy-mock-clock' });
      return Number(cm.data!.simEpoch) + (Date.now() - Number(cm.data!.realEpoch)) * Number(cm.data!.scale);
    };
    const before = await simNow();
    await m.stop();
    const again = await serveMock(['--time-scale', '1', '--plain-http', '--state', state], dir, cleanup);
    const cm = await again.kc
      .makeApiClient(k8s.CoreV1Api)
      .readNamespacedConfigMap({ namespace: 'openshift-config', name: 'cincy-mock-clock' });
    expect(cm.data!.scale).toBe('1');
    expect(Number(cm.data!.simEpoch)).toBeGreaterThanOrEqual(before);
    expect(Number(cm.data!.simEpoch)).toBeLessThan(before + 60 * 60_000); // continued (at 600× while it was down), not restarted from real time
  });

  it('refuses a scenario file with a mistake, naming the file and the field', () => {
    const dir = cleanup.dir();
    const f = join(dir, 'scenario.yaml');
    writeFileSync(f, 'operators:\n  etcd: {behavior: flaky}\n');
    const r = cincy([
      'mock-cluster',
      '--plain-http',
      '--port',
      '0',
      '--state',
      join(dir, 'state.json'),
      '--scenario',
      f,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${f}: operators.etcd.behavior: "flaky" is not a behavior`);
  });
});
