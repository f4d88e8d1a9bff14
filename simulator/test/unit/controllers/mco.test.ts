// The mock cluster's simulation: the controllers driven by explicit simulated times (a pool of 5 nodes
// with maxUnavailable=3, nodes finishing out of order, ordering, pausing, operators, Jobs) and scenario
// files. A restart from the state file is in simulator/test/service/mock-simulation-restart.test.ts, the
// whole thing over HTTP on a scaled clock in simulator/test/e2e/mock-simulation-http.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeTime } from 'cincy/clock';
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
import { ScenarioError, scenarioFileData } from '@cincy/simulator/controllers/scenario';
import { reconcile } from '@cincy/simulator/controllers/simulation';
import type { StoredObject } from '@cincy/simulator/apiserver/kinds';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { useCleanup } from '../../../../test/support/cleanup.js';
import {
  T0,
  MIN,
  OLD,
  NEW,
  IMAGE,
  K,
  runRelease,
  setScenario,
  workerPool,
  nodes,
  cordoned,
  ready,
  unavailable,
  poolStatus,
  co,
  cond,
  seedPool,
} from '../../support/simulation.js';

const cleanup = useCleanup();

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
