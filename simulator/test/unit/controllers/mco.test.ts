// The mock cluster's simulation of the Machine Config Operator (simulator/src/controllers/mco.ts), driven by
// explicit simulated times: a pool of 5 nodes with maxUnavailable=3, nodes finishing out of order, ordering,
// pausing, RHEL workers. The cluster operators, Jobs and scenario files are beside it (operators, jobs,
// scenario); a restart from the state file is in simulator/test/service/controllers/simulation.test.ts, the
// whole thing over HTTP on a scaled clock in simulator/test/e2e/mock-simulation-http.test.ts.
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
import { reconcile } from '@cincy/simulator/controllers/simulation';
import type { StoredObject } from '@cincy/simulator/apiserver/kinds';
import { ClusterState } from '@cincy/simulator/apiserver/state';
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
