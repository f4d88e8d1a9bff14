// Coordinated maintenance with workload locks, in-process: the update executor against
// the mock cluster with the simulated OpenStack and Ceph controllers. Every change of the locks, the
// maintenance requests and the nodes is recorded as the API server's watch streams it, and the ordering
// rules are checked over that whole history, not only at the end. Locks are failed and recovered through
// the Kubernetes API (the status subresource), as a controller reports a failure.
import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../../../src/agent/clusterVersion.js';
import { MAINTENANCE_REQUEST } from '../../../../src/agent/update/maintenance.js';
import { PROGRESS } from '../../../../src/agent/update/progress.js';
import { requestUpdate } from '../../../../src/cli/adm/request.js';
import type { ClusterClient } from '../../../../src/cli/kubeconfig.js';
import { mergePatch } from '@cincy/simulator/apiserver/patch';
import { maintenanceReport, readMaintenance } from '../../../../src/cli/getMaintenance.js';
import { annotation } from '@cincy/simulator/controllers/controller';
import { kindNamed, type StoredObject } from '@cincy/simulator/apiserver/kinds';
import { CURRENT, PHASE, renderedConfig } from '@cincy/simulator/controllers/mco';
import { KUBE_LABEL } from '../../../../src/cluster/labels.js';
import { matchAll } from '@cincy/simulator/apiserver/labelSelector';
import { installWorkloadLocks } from '@cincy/simulator/controllers/workloadLocks';
import { TrustStore } from '../../../../src/signatures/verify.js';
import { useCleanup } from '../../../support/cleanup.js';
import { poller, startOperator, type RunningOperator } from '../../../support/inProcessAgent.js';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { startServer } from '../../../support/server.js';
import { image, useUpdateFixtures, type UpdateFixtures } from '../../../support/updateFixtures.js';

const cleanup = useCleanup();
let fixtures: UpdateFixtures;
let trust: TrustStore;
useUpdateFixtures((made, key) => {
  fixtures = made;
  trust = key;
});

const WATCHED = [
  'ClusterMaintenanceRequest',
  'NodeMaintenanceRequest',
  'ClusterWorkloadLock',
  'NodeWorkloadLock',
  'Node',
  'Pod',
];
interface Change {
  type: string;
  object: StoredObject;
  at: number;
}

interface Rig {
  cluster: InProcessCluster;
  operator: RunningOperator;
  /** Starts another executor, knowing only what the cluster holds (after the previous one was killed). */
  restart: () => RunningOperator;
  admin: ClusterClient;
  history: Change[];
}

interface RigOptions {
  /** spec.maxUnavailable of the worker pool (default 1). */
  workerMaxUnavailable?: number;
  /** Nodes moved to another zone (topology.kubernetes.io/zone), which changes the MCO's order. */
  zones?: Record<string, string>;
  /** The scenario ConfigMap's keys (operator durations…). */
  scenario?: Record<string, unknown>;
}

async function rig(o: RigOptions = {}): Promise<Rig> {
  const server = await startServer({ graphData: fixtures.tree, trust });
  cleanup.add(() => server.close());
  const cluster = await InProcessCluster.start({
    version: '4.15.9',
    image: image('4.15.9'),
    channel: 'stable-4.16',
    upstream: `${server.url}/api/upgrades_info/v1/graph`,
    payloadStore: fixtures.payloads,
    scenario: o.scenario,
  });
  cleanup.add(() => cluster.close());
  if (o.workerMaxUnavailable !== undefined)
    cluster.state.patch(kindNamed('MachineConfigPool'), undefined, 'worker', {
      spec: { maxUnavailable: o.workerMaxUnavailable },
    });
  for (const [node, zone] of Object.entries(o.zones ?? {}))
    cluster.state.patch(kindNamed('Node'), undefined, node, { metadata: { labels: { [ZONE]: zone } } });
  // A node agent on every node, tolerating every taint as node-level DaemonSets do (node-exporter, the MCD).
  cluster.state.create(kindNamed('DaemonSet'), 'openshift-monitoring', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'node-exporter', namespace: 'openshift-monitoring' },
    spec: {
      selector: { matchLabels: { app: 'node-exporter' } },
      template: {
        metadata: { labels: { app: 'node-exporter' } },
        spec: {
          tolerations: [{ operator: 'Exists' }],
          containers: [{ name: 'node-exporter', image: 'quay.example/node-exporter:1' }],
        },
      },
    },
  });
  installWorkloadLocks(cluster.state, ['openstack', 'ceph'], cluster.clock.now());
  const history: Change[] = [];
  for (const kind of WATCHED)
    cleanup.add(
      cluster.state.watch(
        {
          kind: kindNamed(kind),
          namespace: undefined,
          selector: matchAll,
          name: undefined,
          send: (e) => void history.push({ type: e.type, object: e.object as StoredObject, at: cluster.clock.now() }),
        },
        undefined,
      ),
    );
  await poller(cluster).poll();
  const restart = (): RunningOperator => {
    const started = startOperator(cluster, {
      trust,
      payloads: fixtures.payloads,
      signatureStores: [`${server.url}/signatures`],
    });
    cleanup.add(() => started.stop());
    return started;
  };
  return { cluster, operator: restart(), restart, admin: cluster.client(), history };
}

const ZONE = KUBE_LABEL.zone;
const MINUTE = 60_000;

const history0 = (c: InProcessCluster) => c.cv().status.history?.[0];
const condition = (cv: ClusterVersion, type: string) => cv.status.conditions?.find((c) => c.type === type);
const stateOf = (o: StoredObject): string | undefined => (o.status as { state?: string } | undefined)?.state;
const specOf = (o: StoredObject) => (o.spec ?? {}) as { controllerName?: string; nodeName?: string };

/** Whether every node runs the rendered config of `version` and none is under way (phases 3 and 4 over). */
const nodesAt = (c: InProcessCluster, version: string): boolean =>
  c.state
    .list(kindNamed('Node'))
    .every((n) => !annotation(n, PHASE) && annotation(n, CURRENT) === renderedConfig(poolOf(n.metadata.name), version));

/** The executor's progress record (which runlevels are done), as JSON. */
const progressOf = (c: InProcessCluster): string =>
  JSON.stringify(c.get('ConfigMap', PROGRESS.namespace, PROGRESS.name)?.data ?? null);

/** Patches a lock's status through the API, as its controller would. */
/** A lock's status, as its controller (or an administrator with kubectl --subresource=status) patches it. */
async function setLock(admin: ClusterClient, plural: string, name: string, status: object): Promise<void> {
  const lock = { group: 'lcm.mirantis.com', version: 'v1alpha1', resource: plural, namespaced: false };
  const current = await admin.api.get<StoredObject>(lock, { name });
  await admin.api.replaceStatus(lock, { ...current, status: mergePatch(current.status ?? {}, status) });
}

/** How many nodes of each pool may be in maintenance at once (the pools' maxUnavailable). */
interface Limits {
  master: number;
  worker: number;
}
const poolOf = (node: string): keyof Limits => (node.startsWith('master-') ? 'master' : 'worker');
/** Node phases in which the node is drained: its evictable pods are gone, its DaemonSet pods stay. */
const DRAINED = new Set(['drain', 'update', 'reboot']);

interface Replayed {
  nodeOrder: string[];
  steps: string[];
  /** The most NodeMaintenanceRequests open at once. */
  mostRequests: number;
  /** Per drained node: its DaemonSet pods when the drain began, and the other pods evicted from it. */
  drains: Map<string, { daemonSetPods: number; evicted: number }>;
}

/**
 * Replays the recorded history and checks the seed's rules at every step; returns what happened in order
 * (for the callers' own checks).
 */
function replay(history: Change[], limits: Limits = { master: 1, worker: 1 }): Replayed {
  const locks = new Map<string, StoredObject>();
  const clusterLocks = new Map<string, StoredObject>();
  const nodeRequests = new Set<string>();
  const phases = new Map<string, string | undefined>();
  /** Pods by name: their node and owner kind. */
  const pods = new Map<string, { node: string; owner: string }>();
  let clusterRequest = false;
  let mostRequests = 0;
  const nodeOrder: string[] = [];
  const steps: string[] = [];
  const drains = new Map<string, { daemonSetPods: number; evicted: number }>();
  const podsOn = (node: string, owner: string): number =>
    [...pods.values()].filter((p) => p.node === node && p.owner === owner).length;
  for (const { type, object: o } of history) {
    const name = o.metadata.name;
    switch (o.kind) {
      case 'ClusterMaintenanceRequest':
        clusterRequest = type !== 'DELETED';
        steps.push(`cmr ${type}`);
        if (type === 'DELETED')
          expect([...phases.values()].filter(Boolean), 'no node under way at the end').toEqual([]);
        break;
      case 'ClusterWorkloadLock': {
        const was = clusterLocks.get(name);
        clusterLocks.set(name, o);
        const started = annotation(o, 'cincy.mock/lock-work') === 'update';
        if (started && annotation(was ?? o, 'cincy.mock/lock-work') !== 'update') steps.push(`${name} updating`);
        if (was && stateOf(was) !== stateOf(o)) steps.push(`${name} ${stateOf(o)}`);
        if (name === 'ceph' && (started || stateOf(o) === 'inactive'))
          expect(stateOf(clusterLocks.get('openstack')!), 'Ceph updates only after OpenStack').toBe('inactive');
        if (started) expect(clusterRequest, 'an application updates only in a cluster maintenance').toBe(true);
        break;
      }
      case 'NodeMaintenanceRequest':
        if (type === 'ADDED') {
          const pool = poolOf(name);
          expect(
            [...nodeRequests].filter((n) => poolOf(n) !== pool),
            `masters before workers: ${name} asked while nodes of another pool are`,
          ).toEqual([]);
          expect(clusterRequest).toBe(true);
          expect([...clusterLocks.values()].map(stateOf), 'nodes only after the applications were updated').toEqual([
            'inactive',
            'inactive',
          ]);
          nodeRequests.add(name);
          nodeOrder.push(name);
          expect(
            nodeRequests.size,
            `open NodeMaintenanceRequests never exceed maxUnavailable (${[...nodeRequests].join(', ')})`,
          ).toBeLessThanOrEqual(limits[pool]);
          mostRequests = Math.max(mostRequests, nodeRequests.size);
        } else if (type === 'DELETED') nodeRequests.delete(name);
        break;
      case 'NodeWorkloadLock': {
        const was = locks.get(name);
        locks.set(name, o);
        const openstackNotActive = [...locks.values()].filter(
          (l) => specOf(l).controllerName === 'openstack' && stateOf(l) !== 'active',
        );
        expect(openstackNotActive.length, 'OpenStack: at most one node lock not active').toBeLessThanOrEqual(1);
        if (stateOf(o) === 'inactive' && stateOf(was ?? o) !== 'inactive')
          expect(nodeRequests.has(specOf(o).nodeName!)).toBe(true);
        break;
      }
      case 'Node': {
        const phase = annotation(o, PHASE);
        if (phase && phase !== phases.get(name)) {
          if (phase === 'cordon' || phase === 'drain') {
            const mine = [...locks.values()].filter((l) => specOf(l).nodeName === name);
            expect(mine.length).toBe(2);
            expect(
              mine.map((l) => `${l.metadata.name}=${stateOf(l)}`),
              `never a ${phase} of ${name} while a lock of it is active`,
            ).toEqual(mine.map((l) => `${l.metadata.name}=inactive`));
            expect(nodeRequests.has(name), `${name} in maintenance`).toBe(true);
          }
          if (phase === 'cordon') steps.push(`node ${name}`);
          if (phase === 'drain') drains.set(name, { daemonSetPods: podsOn(name, 'DaemonSet'), evicted: 0 });
        }
        phases.set(name, phase);
        const pool = poolOf(name);
        const underWay = [...phases].filter(([n, p]) => p && poolOf(n) === pool).length;
        expect(underWay, `at most maxUnavailable nodes of pool ${pool} under way`).toBeLessThanOrEqual(limits[pool]);
        break;
      }
      case 'Pod': {
        const spec = (o.spec ?? {}) as { nodeName?: string };
        const owner = (o.metadata.ownerReferences as Array<{ kind: string }> | undefined)?.[0]?.kind ?? '';
        const node = spec.nodeName ?? '';
        if (type === 'DELETED') {
          const drained = DRAINED.has(phases.get(node) ?? '');
          expect(
            drained && owner === 'DaemonSet',
            `DaemonSet pod ${name} stays on drained node ${node} (phase ${phases.get(node)})`,
          ).toBe(false);
          if (drained) drains.get(node)!.evicted += 1;
          pods.delete(name);
        } else pods.set(name, { node, owner });
        break;
      }
    }
  }
  return { nodeOrder, steps, mostRequests, drains };
}

describe('coordinated maintenance with workload locks', () => {
  it('follows the five phases: maintenance request, OpenStack then Ceph, masters then workers one by one behind their locks, then the request removed', async () => {
    const r = await rig();
    await requestUpdate(r.admin, { to: '4.16.5' });
    await r.cluster.runUntil(
      '4.16.5 completed',
      () => history0(r.cluster)?.state === 'Completed' && history0(r.cluster)?.version === '4.16.5',
    );
    // Phase 5 done: the request is gone, every node runs the new release.
    expect(r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST)).toBeUndefined();
    const { nodeOrder, steps, drains } = replay(r.history);
    expect(nodeOrder.slice(0, 3).every((n) => n.startsWith('master-'))).toBe(true);
    expect(nodeOrder.slice(3).every((n) => n.startsWith('worker-'))).toBe(true);
    expect(new Set(nodeOrder).size).toBe(6);
    // Every node was drained with its DaemonSet pods on it (the replay checks none left), the others evicted.
    expect([...drains.keys()].sort()).toEqual([...nodeOrder].sort());
    for (const [node, d] of drains)
      expect(d.daemonSetPods, `DaemonSet pods on ${node} as it drained`).toBeGreaterThan(0);
    expect(
      [...drains.values()].reduce((n, d) => n + d.evicted, 0),
      'pods evicted by the drains',
    ).toBeGreaterThan(0);
    // The phases in order: request, OpenStack, Ceph, the nodes, the request removed.
    const at = (s: string): number => steps.indexOf(s);
    expect(at('cmr ADDED')).toBe(0);
    expect(at('openstack updating')).toBeLessThan(at('openstack inactive'));
    expect(at('openstack inactive')).toBeLessThan(at('ceph updating'));
    expect(at('ceph inactive')).toBeLessThan(at(`node ${nodeOrder[0]}`));
    expect(at(`node ${nodeOrder[5]}`)).toBeLessThan(at('cmr DELETED'));
    // After the maintenance the controllers make every lock active again.
    await r.cluster.runUntil('every lock active again', () =>
      ['ClusterWorkloadLock', 'NodeWorkloadLock'].every((k) =>
        r.cluster.state.list(kindNamed(k)).every((l) => stateOf(l) === 'active'),
      ),
    );
    const after = replay(r.history).steps;
    expect(after.indexOf('cmr DELETED')).toBeGreaterThan(0);
    expect(after.indexOf('cmr DELETED')).toBeLessThan(after.indexOf('openstack active'));
    expect(after.indexOf('cmr DELETED')).toBeLessThan(after.indexOf('ceph active'));
  }, 300_000);

  it('with maxUnavailable 2 and a zone order unlike the name order, takes two workers at a time without a deadlock', async () => {
    // The MCO takes worker-1 (zone b) first, then worker-0 and worker-2 (zone c), while OpenStack, which lets
    // one node lock be inactive at a time, prepares the nodes asked for in the order it finds them (by name).
    const r = await rig({ workerMaxUnavailable: 2, zones: { 'worker-0': 'us-east-1c' } });
    await requestUpdate(r.admin, { to: '4.16.5' });
    await r.cluster.runUntil(
      '4.16.5 completed',
      () => history0(r.cluster)?.state === 'Completed' && history0(r.cluster)?.version === '4.16.5',
    );
    expect(r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST)).toBeUndefined();
    const { nodeOrder, mostRequests, drains } = replay(r.history, { master: 1, worker: 2 });
    expect(nodeOrder.slice(0, 3).every((n) => n.startsWith('master-'))).toBe(true);
    expect(nodeOrder.slice(3)).toEqual(['worker-1', 'worker-0', 'worker-2']);
    expect(mostRequests, 'two workers asked for at once').toBe(2);
    expect([...drains.keys()].sort()).toEqual([...nodeOrder].sort());
  }, 300_000);

  it('stops at a failed lock, reporting its errorMessage, and resumes when it recovers', async () => {
    const r = await rig();
    await requestUpdate(r.admin, { to: '4.16.5' });
    // Fail a lock of a node not yet taken, once the first control-plane node is under maintenance.
    const first = await r.cluster.runUntil(
      'a node in maintenance',
      () => r.cluster.state.list(kindNamed('NodeMaintenanceRequest'))[0]?.metadata.name,
    );
    await setLock(r.admin, 'nodeworkloadlocks', 'ceph-worker-1', {
      state: 'failed',
      errorMessage: 'OSD 4 on worker-1 does not come up',
    });
    const failedAt = r.history.length;
    const cv = await r.cluster.runUntil('the failure reported', () => {
      const c = condition(r.cluster.cv(), 'Failing');
      return c?.status === 'True' && c.reason === 'WorkloadLockFailed' && r.cluster.cv();
    });
    expect(condition(cv, 'Failing')?.message).toBe(
      'NodeWorkloadLock ceph-worker-1 (controller ceph, node worker-1) failed: OSD 4 on worker-1 does not come up',
    );
    expect(
      r.operator.lines.some(
        (l) => l.msg === 'update held by a failed workload lock' && l.reason === 'WorkloadLockFailed',
      ),
    ).toBe(true);
    // An hour of cluster time: the node under way finishes, and no other is taken.
    const until = r.cluster.clock.now() + 3600_000;
    await r.cluster.runUntil('an hour later', () => r.cluster.clock.now() >= until, 2 * 3600_000);
    const during = r.history.slice(failedAt);
    const cordoned = during.filter((c) => c.object.kind === 'Node' && annotation(c.object, PHASE) === 'cordon');
    expect(new Set(cordoned.map((c) => c.object.metadata.name))).toEqual(
      new Set([first].filter(() => cordoned.length > 0)),
    );
    expect(during.filter((c) => c.object.kind === 'NodeMaintenanceRequest' && c.type === 'ADDED')).toEqual([]);
    expect(history0(r.cluster)?.state).toBe('Partial');
    // What `cincy get maintenance` prints: the control-plane phase, stopped by the failed lock.
    const report = maintenanceReport((await readMaintenance(r.admin.api))!).split('\n');
    expect(report[0]).toBe('Maintenance: ClusterMaintenanceRequest cincy-update (scope os)');
    expect(report[1]).toMatch(/^Phase: {7}3 – control-plane nodes one by one/);
    expect(report[2]).toBe(
      'Stopped:     NodeWorkloadLock ceph-worker-1 (controller ceph, node worker-1) failed: OSD 4 on worker-1 does not come up',
    );
    expect(condition(r.cluster.cv(), 'Failing')?.reason).toBe('WorkloadLockFailed');
    // The operator fixes Ceph; the controller takes the lock up again, and the flow goes on to the end.
    await setLock(r.admin, 'nodeworkloadlocks', 'ceph-worker-1', { state: 'active', errorMessage: null });
    await r.cluster.runUntil('4.16.5 completed', () => history0(r.cluster)?.state === 'Completed');
    expect(condition(r.cluster.cv(), 'Failing')?.status).toBe('False');
    const { nodeOrder } = replay(r.history);
    expect(new Set(nodeOrder).size).toBe(6);
  }, 300_000);

  it('a ClusterWorkloadLock failed in phase 2 holds the update before its first runlevel, and it goes on once the lock recovers', async () => {
    const r = await rig();
    await requestUpdate(r.admin, { to: '4.16.5' });
    const ceph = () => r.cluster.state.find(kindNamed('ClusterWorkloadLock'), undefined, 'ceph')!;
    await r.cluster.runUntil('Ceph updating', () => annotation(ceph(), 'cincy.mock/lock-work') === 'update');
    await setLock(r.admin, 'clusterworkloadlocks', 'ceph', { state: 'failed', errorMessage: 'OSD 3 is down' });
    const failedAt = r.history.length;
    const until = r.cluster.clock.now() + 60 * MINUTE;
    await r.cluster.runUntil('an hour later', () => r.cluster.clock.now() >= until, 2 * 60 * MINUTE);
    const failing = condition(r.cluster.cv(), 'Failing');
    expect(failing?.status).toBe('True');
    expect(failing?.reason).toBe('WorkloadLockFailed');
    expect(failing?.message).toBe('ClusterWorkloadLock ceph (controller ceph) failed: OSD 3 is down');
    expect(condition(r.cluster.cv(), 'Progressing')?.message).toBe(
      "Working towards 4.16.5: 0 of 566 done (0% complete), waiting on the applications' cluster workload locks: ceph is failed",
    );
    // No runlevel applied, no node asked for, the request kept, the update not completed.
    expect(JSON.parse(progressOf(r.cluster)) as object).toMatchObject({ stagesDone: '0', done: '0' });
    expect(r.history.slice(failedAt).filter((c) => c.object.kind === 'NodeMaintenanceRequest')).toEqual([]);
    expect(r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST)).toBeDefined();
    expect(history0(r.cluster)?.state).toBe('Partial');
    const report = maintenanceReport((await readMaintenance(r.admin.api))!).split('\n');
    expect(report[1]).toBe('Phase:       2 – applications updating (ceph failed)');
    expect(report[2]).toBe('Stopped:     ClusterWorkloadLock ceph (controller ceph) failed: OSD 3 is down');
    // Ceph is fixed: its controller updates it over, and the flow goes on to the end.
    await setLock(r.admin, 'clusterworkloadlocks', 'ceph', { state: 'active', errorMessage: null });
    await r.cluster.runUntil('4.16.5 completed', () => history0(r.cluster)?.state === 'Completed');
    expect(condition(r.cluster.cv(), 'Failing')?.status).toBe('False');
    const { steps, nodeOrder } = replay(r.history);
    expect(steps.filter((x) => x === 'ceph updating')).toHaveLength(2);
    expect(steps.indexOf('ceph inactive')).toBeLessThan(steps.indexOf(`node ${nodeOrder[0]}`));
  }, 300_000);

  it('a lock failed after the last node holds phase 5: no further runlevel, the request kept, not Completed until it recovers', async () => {
    // insights (runlevel 90, after the Machine Config Operator) takes 30 minutes: phase 5 lasts that long.
    const r = await rig({ scenario: { operators: { insights: { duration: '30m' } } } });
    await requestUpdate(r.admin, { to: '4.16.5' });
    await r.cluster.runUntil(
      'every node updated, the maintenance still under way',
      () => nodesAt(r.cluster, '4.16.5') && r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST),
    );
    await setLock(r.admin, 'clusterworkloadlocks', 'ceph', { state: 'failed', errorMessage: 'ceph-mon quorum lost' });
    await r.cluster.runUntil('the failure reported', () => condition(r.cluster.cv(), 'Failing')?.status === 'True');
    const progress = progressOf(r.cluster);
    const until = r.cluster.clock.now() + 60 * MINUTE;
    await r.cluster.runUntil('an hour later', () => r.cluster.clock.now() >= until, 2 * 60 * MINUTE);
    const failing = condition(r.cluster.cv(), 'Failing');
    expect(failing?.reason).toBe('WorkloadLockFailed');
    expect(failing?.message).toBe('ClusterWorkloadLock ceph (controller ceph) failed: ceph-mon quorum lost');
    expect(progressOf(r.cluster), 'no runlevel done while the lock is failed').toBe(progress);
    expect(r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST)).toBeDefined();
    expect(history0(r.cluster)?.state).toBe('Partial');
    // Recovered: the controller updates Ceph over, then the remaining runlevels, the request removed, Completed.
    await setLock(r.admin, 'clusterworkloadlocks', 'ceph', { state: 'active', errorMessage: null });
    await r.cluster.runUntil('4.16.5 completed', () => history0(r.cluster)?.state === 'Completed');
    expect(condition(r.cluster.cv(), 'Failing')?.status).toBe('False');
    expect(r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST)).toBeUndefined();
    const { steps } = replay(r.history);
    expect(steps.lastIndexOf('ceph inactive')).toBeLessThan(steps.indexOf('cmr DELETED'));
  }, 300_000);

  it('resumes after the agent is killed in each phase, with one maintenance request and the rules kept throughout', async () => {
    const r = await rig();
    await requestUpdate(r.admin, { to: '4.16.5' });
    const lock = (name: string) => r.cluster.state.find(kindNamed('ClusterWorkloadLock'), undefined, name);
    const points: Array<[string, () => unknown]> = [
      [
        'phase 1: the maintenance request made',
        () => r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST),
      ],
      [
        'phase 2: OpenStack updated, Ceph not yet',
        () => lock('openstack') && stateOf(lock('openstack')!) === 'inactive',
      ],
      [
        'phase 3: a control-plane node in maintenance',
        () => r.cluster.state.list(kindNamed('NodeMaintenanceRequest'))[0],
      ],
      [
        'phase 4: a worker in maintenance',
        () =>
          r.cluster.state.list(kindNamed('NodeMaintenanceRequest')).find((n) => n.metadata.name.startsWith('worker-')),
      ],
      [
        'phase 5: every node done, the remaining runlevels under way',
        () =>
          nodesAt(r.cluster, '4.16.5') && r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST),
      ],
    ];
    let operator = r.operator;
    for (const [point, reached] of points) {
      await r.cluster.runUntil(point, reached);
      await operator.kill();
      operator = r.restart();
    }
    // The last kill falls between the removal of the request and the Completed history entry; another
    // executor starts at once.
    let killed: Promise<void> | undefined;
    const last = operator;
    r.cluster.onRequest('DELETE', /\/clustermaintenancerequests\/cincy-update$/, () => {
      killed = last.kill();
      operator = r.restart();
    });
    await r.cluster.runUntil(
      '4.16.5 completed',
      () => history0(r.cluster)?.state === 'Completed' && history0(r.cluster)?.version === '4.16.5',
    );
    expect(r.cluster.get('ClusterMaintenanceRequest', undefined, MAINTENANCE_REQUEST)).toBeUndefined();
    expect(killed, 'killed as it removed the request').toBeDefined();
    await killed;
    expect(
      last.lines.some((l) => l.msg === 'update completed'),
      'the killed executor did not complete',
    ).toBe(false);
    expect(operator.lines.some((l) => l.msg === 'update completed')).toBe(true);
    const { nodeOrder, steps } = replay(r.history);
    expect(
      steps.filter((s) => s === 'cmr ADDED'),
      'one maintenance request for the whole update',
    ).toHaveLength(1);
    expect(
      steps.filter((s) => s === 'openstack updating'),
      'OpenStack updated once',
    ).toHaveLength(1);
    expect(
      steps.filter((s) => s === 'ceph updating'),
      'Ceph updated once',
    ).toHaveLength(1);
    expect(nodeOrder.slice(0, 3).every((n) => n.startsWith('master-'))).toBe(true);
    expect(new Set(nodeOrder).size).toBe(6);
  }, 300_000);
});
