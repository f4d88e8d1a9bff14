// Image-based upgrades of a single-node cluster: the lifecycle agent of `cincy agent`
// against the mock cluster's API server in this process (--single-node inventory), on a simulated clock. The
// user's side goes through the Kubernetes API as kubectl sends it (merge patches); what the host does
// (reboots, the init monitor, pulling the seed image from a real docker-registry, where skopeo pushed it) is
// the mock's simulation. simulator/test/e2e/image-based-upgrade-kubectl.test.ts runs the same flow with the processes and
// kubectl.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { IbuCluster } from '@cincy/simulator/controllers/lifecycleAgent/cluster';
import { kindNamed } from '@cincy/simulator/apiserver/kinds';
import { kubeletVersionFor } from '@cincy/simulator/controllers/releaseContent';
import { GIB } from '@cincy/simulator/controllers/singleNodeHost';
import { cincyAsync, useCleanup } from '../../../test/support/cli.js';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { registryAvailable, startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { pushSeed, type SeedSpec } from '../support/seedImages.js';
import { tempDir } from '../../../test/support/server.js';
import {
  condition,
  hostOf,
  ibuOf,
  latest,
  startLifecycleAgent,
  user,
  type RunningLifecycleAgent,
} from '../support/lifecycleAgent.js';

const cleanup = useCleanup();
const available = registryAvailable();
const FROM = '4.16.3';
const NEW = 'rhcos_4.17.2';
/** The seed image of 4.17.2 in the test registry, which the host pulls at Prep. */
const SEED = { version: '4.17.2', image: '' };
let seedBytes = 0;
let registry: TestRegistry;

beforeAll(async () => {
  if (!available) return;
  const dir = tempDir();
  const stopped: Array<() => unknown> = [];
  registry = await startRegistry({ dir: dir.path }, { add: (f) => void stopped.push(f) });
  const seed = await pushSeed(join(dir.path, 'seed'), registry, 'lca/seed', '4.17.2', { version: '4.17.2' });
  SEED.image = seed.image;
  seedBytes = seed.unpackedBytes;
  return async () => {
    for (const f of stopped) await f();
    dir.remove();
  };
}, 60_000);
const NOT_PERMITTED =
  'the stage transition is not permitted. Please refer to status.validNextStages for valid transitions';

const BACKUP_CM = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'oadp-cm', namespace: 'openshift-adp' },
  data: {
    'backup.yaml': [
      'apiVersion: velero.io/v1',
      'kind: Backup',
      'metadata: {name: apps-backup, namespace: openshift-adp}',
      'spec: {includedNamespaces: [cnf-app]}',
    ].join('\n'),
    'restore.yaml': [
      'apiVersion: velero.io/v1',
      'kind: Restore',
      'metadata: {name: apps-restore, namespace: openshift-adp}',
      'spec: {backupName: apps-backup}',
    ].join('\n'),
  },
};
const EXTRA_CM = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'extra-manifests', namespace: 'openshift-lifecycle-agent' },
  data: {
    'site.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: site-config, namespace: default}\ndata: {site: edge-17}\n',
  },
};

interface Rig {
  cluster: InProcessCluster;
  agent: RunningLifecycleAgent;
  u: ReturnType<typeof user>;
  /** Kills the agent and starts a new one, which knows only what the cluster holds. */
  restartAgent(): Promise<void>;
  stage(stage: string, more?: Record<string, unknown>): Promise<void>;
  until<T>(what: string, f: () => T | undefined | false | null, maxMs?: number): Promise<T>;
}

async function rig(
  o: { oadp?: boolean; annotations?: Record<string, string>; registries?: string[] } = {},
): Promise<Rig> {
  const cluster = await InProcessCluster.start({
    version: FROM,
    image: `quay.io/openshift-release-dev/ocp-release@sha256:${'1'.repeat(64)}`,
    payloadStore: cleanup.dir(),
    singleNode: true,
    pullFrom: [registry.host, ...(o.registries ?? [])],
  });
  cleanup.add(() => cluster.close());
  const u = user(cluster);
  const r: Rig = {
    cluster,
    agent: startLifecycleAgent(cluster),
    u,
    restartAgent: async () => {
      await r.agent.kill();
      r.agent = startLifecycleAgent(cluster);
    },
    stage: async (stage, more = {}) => {
      const a = await u.patchIbu({ spec: { stage, ...more } });
      expect(a.body.message, `patch to ${stage}`).toBeUndefined();
      expect(a.code).toBe(200);
    },
    until: (what, f, maxMs) => cluster.runUntil(what, f, maxMs),
  };
  cleanup.add(() => r.agent.kill());
  if (o.oadp) {
    for (const cm of [BACKUP_CM, EXTRA_CM])
      expect((await u.request('POST', `/api/v1/namespaces/${cm.metadata.namespace}/configmaps`, cm)).code).toBe(201);
  }
  if (o.annotations) expect((await u.patchIbu({ metadata: { annotations: o.annotations } })).code).toBe(200);
  return r;
}

const SPEC = {
  seedImageRef: SEED,
  oadpContent: [{ name: 'oadp-cm', namespace: 'openshift-adp' }],
  extraManifests: [{ name: 'extra-manifests', namespace: 'openshift-lifecycle-agent' }],
};

const completed = (r: Rig, type: string) => (): boolean => condition(r.cluster, type)?.status === 'True';
const clusterVersion = (r: Rig): string => (r.cluster.cv().status as { desired: { version: string } }).desired.version;

/** A refused patch: 422 with the rule's message, and the object exactly as it was. */
async function refused(r: Rig, patch: unknown, message: string): Promise<void> {
  const before = ibuOf(r.cluster);
  const a = await r.u.patchIbu(patch);
  expect(a.code).toBe(422);
  expect(a.body.message).toContain(message);
  expect(ibuOf(r.cluster)).toEqual(before);
}

async function prepared(r: Rig): Promise<void> {
  await r.stage('Prep', SPEC);
  await r.until('Prep to complete', completed(r, 'PrepCompleted'));
}

async function upgraded(r: Rig): Promise<void> {
  await prepared(r);
  await r.stage('Upgrade');
  await r.until('Upgrade to complete', completed(r, 'UpgradeCompleted'));
}

describe.runIf(available)('image-based upgrade', () => {
  it('the single-node cluster: one node with both roles, SingleReplica, the IBU at Idle as the agent creates it, host data', async () => {
    const r = await rig();
    const nodes = r.cluster.state.list(kindNamed('Node'));
    expect(nodes.map((n) => n.metadata.name)).toEqual(['master-0']);
    expect(Object.keys(nodes[0]!.metadata.labels!).filter((l) => l.startsWith('node-role'))).toEqual([
      'node-role.kubernetes.io/control-plane',
      'node-role.kubernetes.io/master',
      'node-role.kubernetes.io/worker',
    ]);
    const infra = r.cluster.get('Infrastructure', undefined, 'cluster')!.status as Record<string, string>;
    expect(infra.controlPlaneTopology).toBe('SingleReplica');
    const ibu = ibuOf(r.cluster);
    expect(ibu.spec?.stage).toBe('Idle');
    expect(ibu.status?.validNextStages).toEqual(['Prep']);
    expect(latest(r.cluster)).toMatchObject({ type: 'Idle', reason: 'Idle', message: 'Idle' });
    const host = hostOf(r.cluster);
    expect(host).toMatchObject({ booted: 'rhcos', defaultDeployment: 'rhcos', node: 'master-0' });
    expect(host.stateroots.map((s) => [s.name, s.version])).toEqual([['rhcos', FROM]]);
    // A second ImageBasedUpgrade: refused by the CRD's rule.
    const other = await r.u.request('POST', '/apis/lca.openshift.io/v1/imagebasedupgrades', {
      apiVersion: 'lca.openshift.io/v1',
      kind: 'ImageBasedUpgrade',
      metadata: { name: 'other' },
      spec: { stage: 'Idle' },
    });
    expect(other.code).toBe(422);
    expect(other.body.message).toContain("ibu is a singleton, metadata.name must be 'upgrade'");
  });

  it('a cluster that is not single-node has no ImageBasedUpgrade API, and the lifecycle agent does not run there', async () => {
    const cluster = await InProcessCluster.start({
      version: FROM,
      image: 'quay.io/x/release@sha256:1',
      payloadStore: cleanup.dir(),
    });
    cleanup.add(() => cluster.close());
    expect(await new IbuCluster(cluster.client().api).served()).toBe(false);
    expect((await user(cluster).patchIbu({ spec: { stage: 'Prep' } })).code).toBe(404);
    // `cincy get ibu` says what is missing, as `get maintenance` does on a cluster without workload locks.
    const kubeconfig = join(cleanup.dir(), 'kubeconfig');
    writeFileSync(kubeconfig, cluster.kubeconfig());
    for (const args of [
      ['get', 'ibu'],
      ['get', 'ibu', 'upgrade'],
    ]) {
      const got = await cincyAsync([...args, '--kubeconfig', kubeconfig]);
      expect(got.code).not.toBe(0);
      expect(got.stderr).toContain(
        'get ibu: the cluster does not serve lca.openshift.io/v1 ImageBasedUpgrade (no Lifecycle Agent; mock-cluster --single-node simulates one)',
      );
    }
  });

  it('every transition of the stage diagram, allowed and refused: the CRD rules refuse and change nothing; the agent refuses what gets past them', async () => {
    const r = await rig({ oadp: true });
    await refused(r, { spec: { stage: 'Upgrade' } }, NOT_PERMITTED);
    await refused(r, { spec: { stage: 'Rollback' } }, NOT_PERMITTED);
    await refused(
      r,
      { spec: { stage: 'Later' } },
      'spec.stage: Unsupported value: "Later": supported values: "Idle", "Prep", "Upgrade", "Rollback"',
    );
    await r.stage('Prep', SPEC);
    await r.until('Prep to start', () => condition(r.cluster, 'PrepInProgress')?.status === 'True');
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle']);
    await refused(r, { spec: { stage: 'Upgrade' } }, NOT_PERMITTED);
    await refused(
      r,
      { spec: { seedImageRef: { version: '4.17.3', image: 'x' } } },
      'can not change spec.seedImageRef while ibu is in progress',
    );
    await refused(r, { spec: { oadpContent: [] } }, 'can not change spec.oadpContent while ibu is in progress');
    await r.until('Prep to complete', completed(r, 'PrepCompleted'));
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle', 'Upgrade']);
    await refused(r, { spec: { stage: 'Rollback' } }, NOT_PERMITTED);
    await r.stage('Upgrade');
    await r.until('Upgrade to complete', completed(r, 'UpgradeCompleted'));
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle', 'Rollback']);
    await refused(r, { spec: { stage: 'Prep' } }, NOT_PERMITTED);
    await r.stage('Rollback');
    await r.until('Rollback to complete', completed(r, 'RollbackCompleted'));
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle']);
    await refused(r, { spec: { stage: 'Upgrade' } }, NOT_PERMITTED);
    await r.stage('Idle');
    await r.until('the rollback to be finalized', completed(r, 'Idle'));
    expect(ibuOf(r.cluster).status).toMatchObject({ validNextStages: ['Prep'], history: [] });
    expect(ibuOf(r.cluster).status?.conditions?.map((c) => c.type)).toEqual(['Idle']);

    // An ImageBasedUpgrade made anew at another stage has no status for the rules to go by: the agent refuses.
    for (const [stage, message] of [
      ['Upgrade', 'Previous stage not succeeded'],
      ['Rollback', 'Upgrade not started or already finalized'],
    ]) {
      expect((await r.u.request('DELETE', '/apis/lca.openshift.io/v1/imagebasedupgrades/upgrade')).code).toBe(200);
      const made = await r.u.request('POST', '/apis/lca.openshift.io/v1/imagebasedupgrades', {
        apiVersion: 'lca.openshift.io/v1',
        kind: 'ImageBasedUpgrade',
        metadata: { name: 'upgrade' },
        spec: { stage },
      });
      expect(made.code).toBe(201);
      const hostBefore = hostOf(r.cluster);
      await r.until(`the agent to refuse ${stage}`, () => latest(r.cluster)?.reason === 'InvalidTransition');
      expect(latest(r.cluster)).toMatchObject({ type: `${stage}InProgress`, message });
      expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle']);
      expect(hostOf(r.cluster)).toEqual(hostBefore);
      await r.stage('Idle');
      await r.until('Idle', completed(r, 'Idle'));
      expect(ibuOf(r.cluster).status?.conditions?.map((c) => c.type)).toEqual(['Idle']);
    }
  });

  it('a full upgrade: backups, the pivot (node down, up on the seed release), extra manifests, restores; finalize removes the old stateroot; Rollback is then refused', async () => {
    const r = await rig({ oadp: true });
    const bootBefore = (r.cluster.get('Node', undefined, 'master-0')!.status as { nodeInfo: { bootID: string } })
      .nodeInfo.bootID;
    await prepared(r);
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos', NEW]);
    await r.stage('Upgrade');
    await r.until('the backup to run', () => r.cluster.get('Backup', 'openshift-adp', 'apps-backup'));
    await r.until('the node to go down', () => {
      const ready = (
        r.cluster.get('Node', undefined, 'master-0')!.status as { conditions: Array<{ type: string; status: string }> }
      ).conditions.find((c) => c.type === 'Ready');
      return ready?.status === 'Unknown';
    });
    // Before the pivot the backup had completed and the new stateroot was the default boot entry.
    expect((r.cluster.get('Backup', 'openshift-adp', 'apps-backup')!.status as { phase: string }).phase).toBe(
      'Completed',
    );
    expect(hostOf(r.cluster)).toMatchObject({ booted: 'rhcos', defaultDeployment: NEW });
    expect(clusterVersion(r)).toBe(FROM);
    await r.until('Upgrade to complete', completed(r, 'UpgradeCompleted'));
    expect(latest(r.cluster)).toMatchObject({
      type: 'UpgradeCompleted',
      reason: 'Completed',
      message: 'Upgrade completed',
    });
    const host = hostOf(r.cluster);
    expect(host.booted).toBe(NEW);
    expect(host.stateroots.find((s) => s.name === NEW)?.cryptoRegeneratedAt).toBeDefined();
    expect(host.initMonitor?.enabled).toBe(false);
    expect(clusterVersion(r)).toBe(SEED.version);
    const history = (r.cluster.cv().status as { history: Array<{ version: string; state: string }> }).history;
    expect(history.map((h) => h.version).slice(0, 2)).toEqual([SEED.version, FROM]);
    const cos = r.cluster.state.list(kindNamed('ClusterOperator'));
    expect(cos.length).toBeGreaterThan(10);
    for (const co of cos)
      for (const v of (co.status as { versions: Array<{ version: string }> }).versions)
        expect(v.version).toBe(SEED.version);
    const node = r.cluster.get('Node', undefined, 'master-0')!.status as {
      nodeInfo: { kubeletVersion: string; bootID: string };
    };
    expect(node.nodeInfo.kubeletVersion).toBe(kubeletVersionFor(SEED.version));
    expect(node.nodeInfo.bootID).not.toBe(bootBefore);
    expect((r.cluster.get('Restore', 'openshift-adp', 'apps-restore')!.status as { phase: string }).phase).toBe(
      'Completed',
    );
    expect(
      (r.cluster.get('ConfigMap', 'default', 'site-config') as unknown as { data: Record<string, string> }).data,
    ).toEqual({
      site: 'edge-17',
    });
    const upgrade = ibuOf(r.cluster).status?.history?.find((h) => h.stage === 'Upgrade');
    expect(upgrade?.phases?.map((p) => [p.phase, Boolean(p.completionTime)])).toEqual([
      ['PrePivot', true],
      ['PostPivot', true],
    ]);
    expect(ibuOf(r.cluster).status?.rollbackAvailabilityExpiration).toBeDefined();
    const events = r.cluster.state
      .list(kindNamed('Event'), 'default')
      .filter((e) => (e.involvedObject as { kind: string }).kind === 'ImageBasedUpgrade');
    expect(events.map((e) => [e.reason, e.message])).toEqual([['Reboot', 'System will now reboot for upgrade']]);

    await r.stage('Idle');
    await r.until('the upgrade to be finalized', completed(r, 'Idle'));
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual([NEW]);
    expect(r.cluster.get('Backup', 'openshift-adp', 'apps-backup')).toBeUndefined();
    expect(r.cluster.get('Restore', 'openshift-adp', 'apps-restore')).toBeUndefined();
    expect(ibuOf(r.cluster).status?.rollbackAvailabilityExpiration).toBeUndefined();
    await refused(r, { spec: { stage: 'Rollback' } }, NOT_PERMITTED);
    expect(clusterVersion(r)).toBe(SEED.version);
  });

  it('cancel: from Prep and from Upgrade before the pivot the new stateroot is removed; after the pivot Idle is refused, by the API and by the agent', async () => {
    const r = await rig({ oadp: true });
    await r.stage('Prep', SPEC);
    await r.until('the stateroot setup to run', () =>
      ibuOf(r.cluster).status?.history?.[0]?.phases?.some((p) => p.phase === 'StaterootSetup'),
    );
    await r.stage('Idle');
    await r.until('the abort to complete', completed(r, 'Idle'));
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Prep']);

    await prepared(r);
    expect(hostOf(r.cluster).containerStorage.images.filter((i) => i.stateroot === NEW)).toHaveLength(2);
    await r.stage('Upgrade');
    await r.until(
      'the backup to be in progress',
      () => latest(r.cluster)?.message === 'Backup of Application Data is in progress',
    );
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle']);
    await r.stage('Idle');
    await r.until('the abort to complete', completed(r, 'Idle'));
    const host = hostOf(r.cluster);
    expect(host).toMatchObject({ booted: 'rhcos', defaultDeployment: 'rhcos' });
    expect(host.stateroots.map((s) => s.name)).toEqual(['rhcos']);
    expect(host.containerStorage.images.filter((i) => i.stateroot === NEW)).toEqual([]);
    expect(r.cluster.get('Backup', 'openshift-adp', 'apps-backup')).toBeUndefined();
    expect(clusterVersion(r)).toBe(FROM);

    // After the pivot: the restores run, and the API refuses Idle (only Rollback is a valid next stage).
    await prepared(r);
    await r.stage('Upgrade');
    await r.until(
      'the restore to be in progress',
      () => latest(r.cluster)?.message === 'Restore of Application Data is in progress',
    );
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Rollback']);
    await refused(r, { spec: { stage: 'Idle' } }, NOT_PERMITTED);
    await r.until('Upgrade to complete', completed(r, 'UpgradeCompleted'));
    await r.stage('Rollback');
    await r.until('Rollback to complete', completed(r, 'RollbackCompleted'));
    await r.stage('Idle');
    await r.until('the rollback to be finalized', completed(r, 'Idle'));

    // Idle asked while the node reboots into the new stateroot (the API still allowed it): the agent refuses it once up.
    await prepared(r);
    await r.stage('Upgrade');
    await r.until('the node to go down', () => hostOf(r.cluster).reboot?.downAt);
    await r.stage('Idle');
    await r.until('the agent to refuse Idle', () => latest(r.cluster)?.reason === 'InvalidTransition');
    expect(latest(r.cluster)).toMatchObject({
      type: 'Idle',
      status: 'False',
      message: 'Transition to Idle not allowed - Rollback first',
    });
    expect(hostOf(r.cluster).booted).toBe(NEW);
  });

  it('a manual rollback after the upgrade: the old stateroot boots, the cluster reports the old release; finalizing it removes the new stateroot', async () => {
    const r = await rig({ oadp: true });
    await upgraded(r);
    await r.stage('Rollback');
    await r.until('the rollback to start', () => condition(r.cluster, 'RollbackInProgress')?.status === 'True');
    expect(condition(r.cluster, 'UpgradeCompleted')).toMatchObject({
      status: 'False',
      reason: 'Failed',
      message: 'Rollback requested',
    });
    expect(ibuOf(r.cluster).status?.validNextStages).toBeUndefined(); // none while it rolls back
    await refused(r, { spec: { stage: 'Idle' } }, NOT_PERMITTED);
    await r.until('Rollback to complete', completed(r, 'RollbackCompleted'));
    expect(latest(r.cluster)).toMatchObject({
      type: 'RollbackCompleted',
      reason: 'Completed',
      message: 'Rollback completed',
    });
    expect(hostOf(r.cluster).booted).toBe('rhcos');
    expect(clusterVersion(r)).toBe(FROM);
    const node = r.cluster.get('Node', undefined, 'master-0')!.status as { nodeInfo: { kubeletVersion: string } };
    expect(node.nodeInfo.kubeletVersion).toBe(kubeletVersionFor(FROM));
    // The old stateroot's cluster, as it was: its history has no entry for the seed.
    const history = (r.cluster.cv().status as { history: Array<{ version: string }> }).history;
    expect(history[0]!.version).toBe(FROM);
    await r.stage('Idle');
    await r.until('the rollback to be finalized', completed(r, 'Idle'));
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
  });

  it('an automatic rollback when the upgrade does not complete within the init monitor timeout (default 1800 s)', async () => {
    const r = await rig({ oadp: true });
    await prepared(r);
    await r.stage('Upgrade');
    await r.until('the pivot', () => hostOf(r.cluster).booted === NEW);
    // An operator degraded on the new release: the upgrade waits for the system to stabilize.
    const degraded = await r.u.request('PATCH', '/apis/config.openshift.io/v1/clusteroperators/etcd/status', {
      status: {
        conditions: [
          { type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'Degraded', status: 'True', reason: 'Simulated', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
    });
    expect(degraded.code).toBe(200);
    await r.until('the upgrade to wait', () =>
      latest(r.cluster)?.message.startsWith('Waiting for system to stabilize: clusteroperator etcd is degraded'),
    );
    const pivotAt = Date.parse(hostOf(r.cluster).lastBoot!.at);
    await r.until(
      'the automatic rollback',
      () => hostOf(r.cluster).booted === 'rhcos' && condition(r.cluster, 'UpgradeInProgress')?.status === 'False',
    );
    expect(r.cluster.clock.now() - pivotAt).toBeGreaterThanOrEqual(1800_000);
    expect(condition(r.cluster, 'UpgradeInProgress')).toMatchObject({
      reason: 'Failed',
      message: 'Rollback due to LCA Init Monitor timeout, after 30m0s',
    });
    expect(condition(r.cluster, 'UpgradeCompleted')).toMatchObject({ status: 'False', message: 'Upgrade failed' });
    expect(clusterVersion(r)).toBe(FROM);
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle']);
    await r.stage('Idle');
    await r.until('the abort to complete', completed(r, 'Idle'));
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
  });

  it('no automatic rollback when the init monitor is Disabled: the upgrade waits for the system, and completes once it is healthy', async () => {
    const r = await rig({
      oadp: true,
      annotations: { 'auto-rollback-on-failure.lca.openshift.io/init-monitor': 'Disabled' },
    });
    await prepared(r);
    await r.stage('Upgrade');
    await r.until('the pivot', () => hostOf(r.cluster).booted === NEW);
    const co = '/apis/config.openshift.io/v1/clusteroperators/etcd/status';
    const conditions = (degraded: string): unknown => ({
      status: {
        conditions: [
          { type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'Degraded', status: degraded, lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
    });
    expect((await r.u.request('PATCH', co, conditions('True'))).code).toBe(200);
    const since = r.cluster.clock.now();
    await r.until('twice the default timeout', () => r.cluster.clock.now() > since + 3600_000);
    expect(hostOf(r.cluster)).toMatchObject({ booted: NEW, initMonitor: { enabled: false } });
    expect(latest(r.cluster)?.message).toBe('Waiting for system to stabilize: clusteroperator etcd is degraded');
    expect((await r.u.request('PATCH', co, conditions('False'))).code).toBe(200);
    await r.until('Upgrade to complete', completed(r, 'UpgradeCompleted'));
  });

  it('an automatic rollback after a failed restore, with the initMonitorTimeoutSeconds given; none when upgrade-completion auto-rollback is Disabled', async () => {
    for (const disabled of [false, true]) {
      const r = await rig({
        oadp: true,
        annotations: disabled ? { 'auto-rollback-on-failure.lca.openshift.io/upgrade-completion': 'Disabled' } : {},
      });
      const failing = {
        ...BACKUP_CM,
        data: { ...BACKUP_CM.data, 'restore.yaml': `${BACKUP_CM.data['restore.yaml']}\n` },
      };
      failing.data['restore.yaml'] = failing.data['restore.yaml'].replace(
        'metadata: {name: apps-restore, namespace: openshift-adp}',
        'metadata: {name: apps-restore, namespace: openshift-adp, annotations: {cincy.mock/oadp-outcome: Failed}}',
      );
      expect((await r.u.request('PUT', '/api/v1/namespaces/openshift-adp/configmaps/oadp-cm', failing)).code).toBe(200);
      await r.stage('Prep', { ...SPEC, autoRollbackOnFailure: { initMonitorTimeoutSeconds: 600 } });
      await r.until('Prep to complete', completed(r, 'PrepCompleted'));
      await r.stage('Upgrade');
      await r.until('the upgrade to fail', () => condition(r.cluster, 'UpgradeCompleted')?.status === 'False');
      expect(condition(r.cluster, 'UpgradeInProgress')).toMatchObject({
        reason: 'Failed',
        message: 'Failed restore CRs: apps-restore',
      });
      expect(hostOf(r.cluster).initMonitor?.timeoutSeconds).toBe(600);
      if (disabled) {
        expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Rollback']);
        expect(hostOf(r.cluster)).toMatchObject({ booted: NEW, defaultDeployment: NEW });
        expect(hostOf(r.cluster).reboot).toBeUndefined();
      } else {
        await r.until('the rollback boot', () => hostOf(r.cluster).booted === 'rhcos');
        expect(hostOf(r.cluster).rollbackMessage).toBe(
          'Rollback due to restore failure: Failed restore CRs: apps-restore',
        );
        expect(clusterVersion(r)).toBe(FROM);
        await r.until('validNextStages to follow', () => ibuOf(r.cluster).status?.validNextStages?.[0] === 'Idle');
      }
      await r.agent.kill();
      await r.cluster.close();
    }
  });

  it('Prep frees container storage (unpinned unused images, oldest first, until below the threshold), fails saying why when it cannot, and refuses a seed not newer than the cluster', async () => {
    const r = await rig();
    const before = hostOf(r.cluster).containerStorage;
    await r.stage('Prep', { seedImageRef: SEED });
    await r.until('Prep to complete', completed(r, 'PrepCompleted'));
    const after = hostOf(r.cluster).containerStorage;
    // The seed image takes what it unpacks to.
    expect(after.images.find((i) => i.image === SEED.image)).toMatchObject({ stateroot: NEW, sizeBytes: seedBytes });
    const gone = before.images.filter((i) => !after.images.some((j) => j.image === i.image)).map((i) => i.image);
    // 67 GiB of 120 used (56%): the oldest unpinned unused image goes (9 GiB), 48% is below 50%.
    expect(gone).toEqual(['registry.example.com/apps/cnf-app:1.2']);
    for (const i of before.images.filter((x) => x.pinned || x.inUse)) expect(after.images).toContainEqual(i);
    await r.stage('Idle');
    await r.until('Idle', completed(r, 'Idle'));

    // A threshold the pinned and in-use images alone exceed: every candidate goes, then Prep fails.
    expect(
      (
        await r.u.patchIbu({
          metadata: { annotations: { 'image-cleanup.lca.openshift.io/disk-usage-threshold-percent': '30' } },
        })
      ).code,
    ).toBe(200);
    await r.stage('Prep');
    await r.until('Prep to fail', () => condition(r.cluster, 'PrepCompleted')?.status === 'False');
    expect(condition(r.cluster, 'PrepCompleted')?.message).toBe('Prep failed');
    expect(condition(r.cluster, 'PrepInProgress')?.message).toMatch(
      /^insufficient space in container storage: 36% used \(43\.0 GiB of 120\.0 GiB\) is above the 30% threshold \(image-cleanup\.lca\.openshift\.io\/disk-usage-threshold-percent\)/,
    );
    const left = hostOf(r.cluster).containerStorage.images;
    expect(left.every((i) => i.pinned || i.inUse)).toBe(true);
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Idle']);
    await r.stage('Idle');
    await r.until('Idle', completed(r, 'Idle'));

    await r.stage('Prep', { seedImageRef: { version: '4.16.1', image: 'quay.io/example/seed:4.16.1' } });
    await r.until('Prep to fail', () => condition(r.cluster, 'PrepCompleted')?.status === 'False');
    expect(condition(r.cluster, 'PrepInProgress')?.message).toBe(
      `failed to validate IBU spec: spec.seedImageRef.version 4.16.1 is not newer than the version the cluster runs (${FROM})`,
    );
  });

  it('Prep pulls the seed image from its registry with the Secret spec.seedImageRef.pullSecretRef names, and sizes the container-storage entries from it', async () => {
    // A registry that wants credentials the cluster's pull secret does not have; the Secret named has them.
    const dir = cleanup.dir();
    const secured = await startRegistry({ dir, auth: { user: 'seed', password: 'right' } }, cleanup);
    const images = ['quay.example/ocp/etcd@sha256:1', 'quay.example/ocp/coredns@sha256:2', 'quay.example/app@sha256:3'];
    const seed = await pushSeed(join(dir, 'layout'), secured, 'lca/seed', '4.17.2', { version: '4.17.2', images });
    const r = await rig({ registries: [secured.host] });
    const said = (start: string) => (): boolean => r.agent.lines.some((l) => l.msg.startsWith(start));
    await r.stage('Prep', {
      seedImageRef: { version: '4.17.2', image: seed.image, pullSecretRef: { name: 'seed-pull-secret' } },
    });
    // No such Secret yet: Prep stays in progress, as the real agent requeues, and its log says why.
    await r.until(
      'the missing Secret said',
      said(
        'failed to get labels for seed image: failed to retrieve pull-secret from secret seed-pull-secret, err: secrets "seed-pull-secret" not found',
      ),
    );
    expect(condition(r.cluster, 'PrepInProgress')).toMatchObject({ status: 'True', reason: 'InProgress' });
    const pulls = async () => (await secured.requests()).filter((q) => q.userAgent === 'cincy');
    expect(await pulls()).toEqual([]);
    // A Secret with a password the registry refuses: still in progress, tried again.
    const secret = (password: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'seed-pull-secret', namespace: 'openshift-lifecycle-agent' },
      type: 'kubernetes.io/dockerconfigjson',
      data: {
        '.dockerconfigjson': Buffer.from(
          JSON.stringify({ auths: { [secured.host]: { auth: Buffer.from(`seed:${password}`).toString('base64') } } }),
        ).toString('base64'),
      },
    });
    const secrets = '/api/v1/namespaces/openshift-lifecycle-agent/secrets';
    expect((await r.u.request('POST', secrets, secret('wrong'), 'application/json')).code).toBe(201);
    await r.until('the refusal said', () =>
      r.agent.lines.some((l) =>
        /^failed to get labels for seed image: failed to inspect image: GET http:\/\/[^ ]+\/v2\/lca\/seed\/manifests\/4\.17\.2: 401 /.test(
          l.msg,
        ),
      ),
    );
    expect(condition(r.cluster, 'PrepCompleted')?.status).not.toBe('True');
    // The right one: the next try pulls the image, and Prep goes on to the end.
    const put = await r.u.request('PUT', `${secrets}/seed-pull-secret`, secret('right'), 'application/json');
    expect(put.code).toBe(200);
    await r.until('Prep to complete', completed(r, 'PrepCompleted'));
    const host = hostOf(r.cluster);
    expect(host.seedPull?.result).toMatchObject({ digest: seed.digest, sizeBytes: seed.unpackedBytes });
    expect(host.containerStorage.images.filter((i) => i.stateroot === NEW).map((i) => [i.image, i.sizeBytes])).toEqual([
      [seed.image, seed.unpackedBytes],
      [`${seed.image} (the 3 images the seed lists)`, 10 * GIB],
    ]);
    // The registry served the manifest, the configuration and the layer, each once, with the Secret's credentials.
    const served = (await pulls()).filter((q) => q.status === 200).map((q) => `${q.method} ${q.path}`);
    expect(served.filter((q) => q.startsWith('GET /v2/lca/seed/manifests/'))).toEqual([
      'GET /v2/lca/seed/manifests/4.17.2',
    ]);
    expect(served.filter((q) => q.startsWith('GET /v2/lca/seed/blobs/'))).toHaveLength(2);
  });

  it("a seed image that cannot be inspected keeps Prep in progress, tried again; a seed of another format or version fails Prep with the real agent's messages", async () => {
    const r = await rig();
    const late = `${registry.host}/lca/seed:late`;
    const inspections = () =>
      r.agent.lines.filter((l) => l.msg.startsWith('failed to get labels for seed image: failed to inspect image:'));
    await r.stage('Prep', { seedImageRef: { version: '4.17.2', image: late } });
    await r.until('the failed inspection said', () => inspections().length > 0);
    expect(inspections()[0]!.msg).toMatch(/\/v2\/lca\/seed\/manifests\/late: 404 \(MANIFEST_UNKNOWN\)/);
    const since = r.cluster.clock.now();
    await r.until('two minutes later', () => r.cluster.clock.now() > since + 120_000);
    expect(condition(r.cluster, 'PrepInProgress')?.status).toBe('True');
    expect(inspections().length, 'tried again').toBeGreaterThan(1);
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
    // Pushed now: the next try finds it.
    await pushSeed(cleanup.dir(), registry, 'lca/seed', 'late', { version: '4.17.2' });
    await r.until('Prep to complete', completed(r, 'PrepCompleted'));
    await r.stage('Idle');
    await r.until('Idle', completed(r, 'Idle'));

    const failsWith = async (tag: string, spec: SeedSpec, message: string): Promise<void> => {
      const seed = await pushSeed(cleanup.dir(), registry, 'lca/seed', tag, spec);
      await r.stage('Prep', { seedImageRef: { version: '4.17.2', image: seed.image } });
      await r.until(`Prep of ${tag} to fail`, () => condition(r.cluster, 'PrepCompleted')?.status === 'False');
      expect(condition(r.cluster, 'PrepCompleted')?.message).toBe('Prep failed');
      expect(condition(r.cluster, 'PrepInProgress')?.message).toBe(message);
      expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
      await r.stage('Idle');
      await r.until('Idle', completed(r, 'Idle'));
    };
    await failsWith(
      'format-3',
      { version: '4.17.2', format: '3' },
      'failed to validate seed image info: checking seed image compatibility: seed image format version mismatch: expected 4, got 3',
    );
    await failsWith(
      'no-format',
      { version: '4.17.2', format: null },
      'failed to validate seed image info: checking seed image compatibility: seed image is missing the com.openshift.lifecycle-agent.seed_format_version label, please build a new image using the latest version of the lca-cli',
    );
    // The seed's own version is read by the stateroot setup job, whose failure the condition names.
    await failsWith(
      'mislabelled',
      { version: '4.17.2', manifestVersion: '4.17.1' },
      'stateroot setup job failed to complete. job-name: lca-prep-stateroot-setup, job-namespace: openshift-lifecycle-agent',
    );
    expect(r.agent.lines.map((l) => l.msg)).toContain(
      'stateroot setup failed: version specified in seed image (4.17.1) differs from version in spec (4.17.2)',
    );
  });

  it('Prep validates the spec, naming the field: the seed version or image missing, a ConfigMap missing, a kind other than OADP Backup and Restore', async () => {
    const r = await rig({ oadp: true });
    const notOadp = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'not-oadp', namespace: 'openshift-adp' },
      data: { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n' },
    };
    expect((await r.u.request('POST', '/api/v1/namespaces/openshift-adp/configmaps', notOadp)).code).toBe(201);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ seedImageRef: { image: SEED.image } }, 'spec.seedImageRef.version is required'],
      [{ seedImageRef: { version: '4.17.2' } }, 'spec.seedImageRef.image is required'],
      [
        { oadpContent: [{ name: 'missing', namespace: 'openshift-adp' }] },
        'spec.oadpContent[0]: ConfigMap openshift-adp/missing not found',
      ],
      [
        { oadpContent: [{ name: 'not-oadp', namespace: 'openshift-adp' }] },
        'spec.oadpContent[0]: ConfigMap openshift-adp/not-oadp holds a v1 ConfigMap; only velero.io/v1 Backup and Restore belong there',
      ],
      [
        { extraManifests: [{ name: 'gone', namespace: 'openshift-lifecycle-agent' }] },
        'spec.extraManifests[0]: ConfigMap openshift-lifecycle-agent/gone not found',
      ],
    ];
    for (const [spec, why] of cases) {
      // A merge patch: what the case leaves out is removed (null), and the seed is given in full unless it says.
      const seedRef: object = (spec.seedImageRef as object | undefined) ?? SEED;
      await r.stage('Prep', {
        seedImageRef: { version: null, image: null, ...seedRef },
        oadpContent: spec.oadpContent ?? null,
        extraManifests: spec.extraManifests ?? null,
      });
      await r.until(`Prep to fail: ${why}`, () => condition(r.cluster, 'PrepCompleted')?.status === 'False');
      expect(condition(r.cluster, 'PrepInProgress')?.message).toBe(`failed to validate IBU spec: ${why}`);
      expect(hostOf(r.cluster).seedPull, 'no seed image pulled').toBeUndefined();
      await r.stage('Idle');
      await r.until('Idle', completed(r, 'Idle'));
    }
  });

  it('a clean-up that fails leaves AbortFailed with the reason until lca.openshift.io/manual-cleanup-done is set', async () => {
    const r = await rig({ oadp: true });
    await prepared(r);
    r.cluster.fail({ method: 'DELETE', path: /\/backups\/apps-backup$/, status: 500, times: 1 });
    await r.stage('Idle');
    await r.until('the abort to fail', () => condition(r.cluster, 'Idle')?.reason === 'AbortFailed');
    expect(condition(r.cluster, 'Idle')?.message).toBe(
      "failed to cleanup OADP resources: injected failure of DELETE /apis/velero.io/v1/namespaces/openshift-adp/backups/apps-backup (HTTP 500). Perform cleanup manually then add 'lca.openshift.io/manual-cleanup-done' annotation to ibu CR to transition back to Idle",
    );
    expect(ibuOf(r.cluster).status?.validNextStages).toBeUndefined();
    expect(
      (await r.u.patchIbu({ metadata: { annotations: { 'lca.openshift.io/manual-cleanup-done': '' } } })).code,
    ).toBe(200);
    await r.until('Idle', completed(r, 'Idle'));
    expect(ibuOf(r.cluster).metadata.annotations?.['lca.openshift.io/manual-cleanup-done']).toBeUndefined();
  });

  it('the agent killed while Idle aborts or finalizes resumes the clean-up, to the same end as without a kill', async () => {
    const r = await rig({ oadp: true });
    const backups = () => r.cluster.state.list(kindNamed('Backup')).map((b) => b.metadata.name);
    // Aborting a finished Prep: killed as it writes the host data without the new stateroot, before it could
    // delete the Backups or say Idle.
    await prepared(r);
    let killed: Promise<void> | undefined;
    r.cluster.onRequest('PUT', /\/configmaps\/cincy-mock-host$/, () => void (killed = r.restartAgent()));
    await r.stage('Idle');
    await r.until('the abort to be killed', () => killed);
    await killed;
    await r.until('Idle', completed(r, 'Idle'));
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
    expect(hostOf(r.cluster).containerStorage.images.filter((i) => i.stateroot === NEW)).toEqual([]);
    expect(ibuOf(r.cluster).status?.history).toEqual([]);
    expect(
      r.agent.lines.some((l) => l.msg === 'stage transition started'),
      'the new agent aborted',
    ).toBe(true);

    // Finalizing an upgrade that waits for a degraded operator: killed there, the new agent waits too.
    await upgraded(r);
    expect(backups()).toEqual(['apps-backup']);
    const co = '/apis/config.openshift.io/v1/clusteroperators/etcd/status';
    const degraded = (status: string): unknown => ({
      status: {
        conditions: [
          { type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'Degraded', status, lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
    });
    expect((await r.u.request('PATCH', co, degraded('True'))).code).toBe(200);
    await r.stage('Idle');
    const waiting =
      'Waiting for system to stabilize before finalize (idle) stage can continue: clusteroperator etcd is degraded';
    await r.until('finalizing', () => condition(r.cluster, 'Idle')?.message === waiting);
    expect(condition(r.cluster, 'Idle')?.reason).toBe('Finalizing');
    await r.restartAgent();
    const since = r.cluster.clock.now();
    await r.until('ten minutes later', () => r.cluster.clock.now() > since + 600_000);
    expect(condition(r.cluster, 'Idle')).toMatchObject({ reason: 'Finalizing', message: waiting });
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos', NEW]);
    expect((await r.u.request('PATCH', co, degraded('False'))).code).toBe(200);
    await r.until('finalized', completed(r, 'Idle'));
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual([NEW]);
    expect(backups()).toEqual([]);
    expect(ibuOf(r.cluster).status?.validNextStages).toEqual(['Prep']);
  });

  it('the agent killed at each stage resumes from what the cluster holds, to the same end as without a kill', async () => {
    const r = await rig({ oadp: true });
    const kills: string[] = [];
    const killAt = async (what: string, f: () => unknown): Promise<void> => {
      await r.until(what, () => Boolean(f()));
      await r.restartAgent();
      kills.push(what);
    };
    const phase = (stage: string, p: string) => (): boolean | undefined =>
      ibuOf(r.cluster)
        .status?.history?.find((h) => h.stage === stage)
        ?.phases?.some((x) => x.phase === p && !x.completionTime);
    await r.stage('Prep', SPEC);
    await killAt('Prep: stateroot setup', phase('Prep', 'StaterootSetup'));
    await killAt('Prep: precache', phase('Prep', 'Precache'));
    await killAt('Prep completed', completed(r, 'PrepCompleted'));
    await r.stage('Upgrade');
    await killAt(
      'Upgrade: backups running',
      () => latest(r.cluster)?.message === 'Backup of Application Data is in progress',
    );
    await killAt('Upgrade: the reboot', () => hostOf(r.cluster).reboot?.downAt);
    await killAt(
      'Upgrade: restores running',
      () => latest(r.cluster)?.message === 'Restore of Application Data is in progress',
    );
    await killAt('Upgrade completed', completed(r, 'UpgradeCompleted'));
    await r.stage('Rollback');
    await killAt('Rollback: the reboot', () => hostOf(r.cluster).reboot?.downAt);
    await killAt('Rollback completed', completed(r, 'RollbackCompleted'));
    expect(kills).toHaveLength(9);
    const status = ibuOf(r.cluster).status!;
    // Each stage ran once, each phase once, in order.
    expect(status.history?.map((h) => [h.stage, h.phases?.map((p) => p.phase), Boolean(h.completionTime)])).toEqual([
      ['Prep', ['StaterootSetup', 'Precache'], true],
      ['Upgrade', ['PrePivot', 'PostPivot'], true],
      ['Rollback', ['Rollback'], true],
    ]);
    expect(status.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Idle', 'False'],
      ['PrepInProgress', 'False'],
      ['PrepCompleted', 'True'],
      ['UpgradeInProgress', 'False'],
      ['UpgradeCompleted', 'False'],
      ['RollbackInProgress', 'False'],
      ['RollbackCompleted', 'True'],
    ]);
    expect(clusterVersion(r)).toBe(FROM);
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos', NEW]);
    await r.stage('Idle');
    await killAt('finalized', completed(r, 'Idle'));
    expect(hostOf(r.cluster).stateroots.map((s) => s.name)).toEqual(['rhcos']);
  });
});
