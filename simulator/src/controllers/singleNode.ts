// The single-node cluster's host as the mock simulates it (`mock-cluster --single-node`): the host data
// (stateroots, container storage; ../singleNodeHost.ts) and the ImageBasedUpgrade `upgrade` at Idle, as the
// Lifecycle Agent creates it when it is deployed; then what the host does by itself: a reboot (the node
// NotReady, then up on the default stateroot, the cluster reporting that stateroot's release) and the init
// monitor, which rolls back to the old stateroot when the upgrade has not completed in time.
import { createHash, randomUUID } from 'node:crypto';
import { kubeTime } from 'cincy/clock';
import {
  goDuration,
  GIB,
  HOST_CONFIGMAP,
  hostFromData,
  hostToData,
  type ClusterSnapshot,
  type HostData,
  type Stateroot,
} from './singleNodeHost.js';
import { KUBE_LABEL } from 'cincy/cluster/labels';
import { clone, save, setObjectCondition } from './controller.js';
import { recordEvent } from '../apiserver/events.js';
import { IBU_NAME } from '../apiserver/kinds/lca.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { ensureRenderedConfig } from './machineConfigs.js';
import { renderedConfig } from './mco.js';
import { kubeletVersionFor, rhcosNodeInfo } from './releaseContent.js';
import type { SeedPullOutcomes } from './singleNodeHost.js';
import type { ClusterState } from '../apiserver/state.js';

/** The API groups of the add-on operators a single-node cluster has: the Lifecycle Agent and OADP. */
export const SINGLE_NODE_GROUPS = ['lca.openshift.io', 'velero.io'];
export const SINGLE_NODE_NAME = 'master-0';
/** How long the node is down when it reboots (simulated). */
export const REBOOT_MS = 4 * 60_000;
const LCA_NAMESPACE = HOST_CONFIGMAP.namespace;
const OADP_NAMESPACE = 'openshift-adp';

/** The release image the mock names for `version` when it is given none (as `mock-cluster` does). */
export const releaseImageFor = (version: string): string =>
  `quay.io/openshift-release-dev/ocp-release@sha256:${createHash('sha256').update(version).digest('hex')}`;

/** The host data of a freshly installed single-node cluster of `version`, installed at `at` (ms). */
function installedHost(version: string, image: string, at: number): HostData {
  const day = (n: number): string => kubeTime(at - n * 86_400_000);
  return {
    node: SINGLE_NODE_NAME,
    stateroots: [{ name: 'rhcos', version, image, createdAt: kubeTime(at) }],
    booted: 'rhcos',
    defaultDeployment: 'rhcos',
    containerStorage: {
      sizeBytes: 120 * GIB,
      images: [
        {
          image: `${image} (release payload images in use)`,
          sizeBytes: 36 * GIB,
          pinned: false,
          inUse: true,
          created: day(0),
        },
        {
          image: 'registry.example.com/apps/cnf-app:1.4',
          sizeBytes: 4 * GIB,
          pinned: true,
          inUse: true,
          created: day(0),
        },
        {
          image: 'registry.example.com/apps/cnf-app:1.2',
          sizeBytes: 9 * GIB,
          pinned: false,
          inUse: false,
          created: day(20),
        },
        {
          image: 'registry.example.com/apps/cnf-app:1.3',
          sizeBytes: 9 * GIB,
          pinned: false,
          inUse: false,
          created: day(10),
        },
        {
          image: 'registry.example.com/tools/debug:latest',
          sizeBytes: 6 * GIB,
          pinned: false,
          inUse: false,
          created: day(5),
        },
        {
          image: 'registry.example.com/apps/cnf-app-fallback:1.3',
          sizeBytes: 3 * GIB,
          pinned: true,
          inUse: false,
          created: day(10),
        },
      ],
    },
  };
}

/**
 * What a single-node cluster has beside the common inventory: the Lifecycle Agent's and OADP's namespaces, the
 * host data, and the ImageBasedUpgrade `upgrade` at Idle with its Idle condition (the CRDs are installed first).
 */
export function seedSingleNode(state: ClusterState, o: { version: string; image: string; at: number }): void {
  for (const name of [LCA_NAMESPACE, OADP_NAMESPACE])
    if (!state.hasNamespace(name))
      state.create(kindNamed('Namespace'), undefined, { metadata: { name }, status: { phase: 'Active' } }, o.at);
  state.create(
    kindNamed('ConfigMap'),
    LCA_NAMESPACE,
    { metadata: { name: HOST_CONFIGMAP.name }, data: hostToData(installedHost(o.version, o.image, o.at)) },
    o.at,
  );
  const ibu = kindNamed('ImageBasedUpgrade');
  const made = state.create(
    ibu,
    undefined,
    {
      apiVersion: 'lca.openshift.io/v1',
      kind: 'ImageBasedUpgrade',
      metadata: { name: IBU_NAME },
      spec: { stage: 'Idle' },
    },
    o.at,
  );
  const status = {
    observedGeneration: 1,
    conditions: [
      {
        type: 'Idle',
        status: 'True',
        reason: 'Idle',
        message: 'Idle',
        observedGeneration: 1,
        lastTransitionTime: made.metadata.creationTimestamp,
      },
    ],
    validNextStages: ['Prep'],
  };
  state.update(ibu, undefined, IBU_NAME, { ...made, status }, 'status');
}

/** The host data the state holds; undefined on a cluster that is not single-node (or whose data does not parse). */
export function readHost(state: ClusterState): { host: HostData; object: StoredObject } | undefined {
  const object = state.find(kindNamed('ConfigMap'), HOST_CONFIGMAP.namespace, HOST_CONFIGMAP.name);
  if (!object) return undefined;
  return { host: hostFromData((object as { data?: Record<string, string> }).data), object };
}

function writeHost(state: ClusterState, object: StoredObject, host: HostData): void {
  save(state, kindNamed('ConfigMap'), object, { ...object, data: hostToData(host) } as StoredObject);
}

/**
 * One pass of the host at simulated time `now`: a reboot asked for takes the node down, then boots the default
 * deployment; the init monitor rolls back when its deadline passes; a seed image pull that ended (`pulls`) is
 * recorded. Returns a problem to report (host data that does not parse), or undefined.
 */
export function reconcileSingleNode(state: ClusterState, now: number, pulls?: SeedPullOutcomes): string | undefined {
  let read;
  try {
    read = readHost(state);
  } catch (err) {
    return (err as Error).message;
  }
  if (!read) return undefined;
  const { object } = read;
  const host = clone(read.host);
  const monitor = host.initMonitor;
  if (
    monitor?.enabled &&
    monitor.deadline &&
    now >= Date.parse(monitor.deadline) &&
    host.booted === monitor.stateroot
  ) {
    // The watchdog: the upgrade did not complete in time; back to the old stateroot.
    host.rollbackMessage = `Rollback due to LCA Init Monitor timeout, after ${goDuration(monitor.timeoutSeconds)}`;
    host.defaultDeployment = monitor.rollbackTo;
    host.initMonitor = { ...monitor, enabled: false };
    host.reboot = { requestedAt: kubeTime(now), reason: 'init monitor timeout' };
  }
  // The seed image pull Prep asked for ended: its result for the agent to read.
  const pull = host.seedPull && !host.seedPull.result ? pulls?.outcome(host.seedPull) : undefined;
  if (pull && !pull.pending) host.seedPull!.result = { at: kubeTime(now), ...pull.result };
  if (host.reboot && !host.reboot.downAt) {
    host.reboot.downAt = kubeTime(now);
    nodeDown(state, host.node, now);
  } else if (host.reboot?.downAt && now >= Date.parse(host.reboot.downAt) + REBOOT_MS) {
    boot(state, host, now);
  }
  writeHost(state, object, host);
  return undefined;
}

function nodeDown(state: ClusterState, name: string, now: number): void {
  const kind = kindNamed('Node');
  const before = state.find(kind, undefined, name);
  if (!before) return;
  const node = clone(before);
  setObjectCondition(node, 'Ready', 'False', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', now);
  (node.status as { conditions: Array<{ type: string; status: string }> }).conditions.find(
    (c) => c.type === 'Ready',
  )!.status = 'Unknown';
  save(state, kind, before, node);
  recordEvent(state, {
    about: node,
    reason: 'Rebooted',
    message: `Node ${name} is rebooting`,
    component: 'kubelet',
    host: name,
    at: now,
  });
}

/** The node comes up on the default deployment, and the cluster reports the release of that stateroot. */
function boot(state: ClusterState, host: HostData, now: number): void {
  const from = host.stateroots.find((s) => s.name === host.booted);
  const to = host.stateroots.find((s) => s.name === host.defaultDeployment) ?? from!;
  const cvKind = kindNamed('ClusterVersion');
  const cv = state.get(cvKind, undefined, 'version');
  const cvStatus = (cv.status ?? {}) as { desired: Record<string, unknown>; history: Array<Record<string, unknown>> };
  if (from) from.cluster = { desired: cvStatus.desired, history: cvStatus.history };
  if (!to.cryptoRegeneratedAt && to !== from && !to.cluster) {
    // recert at the first boot of a stateroot written from a seed: new keys and certificates for this cluster.
    to.cryptoRegeneratedAt = kubeTime(now);
    to.clusterCaFingerprint = createHash('sha256').update(randomUUID()).digest('hex').slice(0, 40);
  }
  const snapshot: ClusterSnapshot = to.cluster ?? seededCluster(to, cvStatus, now);
  const next = clone(cv);
  Object.assign(next.status as object, { desired: snapshot.desired, history: snapshot.history });
  for (const c of ['Available', 'Progressing'] as const) {
    const message = c === 'Available' ? `Done applying ${to.version}` : `Cluster version is ${to.version}`;
    setObjectCondition(next, c, c === 'Available' ? 'True' : 'False', '', message, now);
  }
  save(state, cvKind, cv, next);
  runRelease(state, to.version, now);
  nodeUp(state, host.node, to.version, now);
  host.booted = to.name;
  host.lastBoot = { at: kubeTime(now), stateroot: to.name };
  delete host.reboot;
  const monitor = host.initMonitor;
  if (monitor?.enabled && monitor.stateroot === to.name)
    host.initMonitor = { ...monitor, deadline: new Date(now + monitor.timeoutSeconds * 1000).toISOString() };
}

/** The version objects of a stateroot written from a seed of `to.version`: the seed's release, then the old history. */
function seededCluster(
  to: Stateroot,
  current: { history: Array<Record<string, unknown>> },
  now: number,
): ClusterSnapshot {
  const image = releaseImageFor(to.version);
  return {
    desired: { version: to.version, image, channels: [] },
    history: [
      {
        state: 'Completed',
        startedTime: kubeTime(now),
        completionTime: kubeTime(now),
        version: to.version,
        image,
        verified: false,
        acceptedRisks: 'Image-based upgrade from a seed image',
      },
      ...(current.history ?? []),
    ],
  };
}

/** Every operator of the cluster runs `version` (its Deployment and its ClusterOperator's versions), as after a boot. */
function runRelease(state: ClusterState, version: string, now: number): void {
  const deployments = kindNamed('Deployment');
  for (const d of state.list(deployments)) {
    const containers = (
      d.spec as { template?: { spec?: { containers?: Array<{ env?: Array<{ name: string; value?: string }> }> } } }
    )?.template?.spec?.containers;
    if (!containers?.some((c) => c.env?.some((e) => e.name === 'RELEASE_VERSION'))) continue;
    const next = clone(d);
    for (const c of (
      next.spec as { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } }
    ).template.spec.containers)
      for (const e of c.env ?? []) if (e.name === 'RELEASE_VERSION') e.value = version;
    save(state, deployments, d, next);
  }
  const cos = kindNamed('ClusterOperator');
  for (const co of state.list(cos)) {
    const next = clone(co);
    const s = (next.status ??= {}) as { versions?: Array<{ name: string; version: string }> };
    s.versions = (s.versions ?? [{ name: 'operator', version }]).map((v) => ({ ...v, version }));
    save(state, cos, co, next);
  }
  // The machine-config pools and the node are on the release's rendered configs already: the image holds them.
  const pools = kindNamed('MachineConfigPool');
  for (const pool of state.list(pools)) {
    const rendered = renderedConfig(pool.metadata.name, version);
    ensureRenderedConfig(state, pool.metadata.name, rendered, version, now);
    const next = clone(pool);
    (next.spec as { configuration?: { name: string } }).configuration = { name: rendered };
    (next.status as { configuration?: { name: string } }).configuration = { name: rendered };
    save(state, pools, pool, next);
  }
}

function nodeUp(state: ClusterState, name: string, version: string, now: number): void {
  const kind = kindNamed('Node');
  const before = state.find(kind, undefined, name);
  if (!before) return;
  const node = clone(before);
  const info = (node.status as { nodeInfo: Record<string, string> }).nodeInfo;
  Object.assign(info, rhcosNodeInfo(version, info.architecture ?? 'amd64'), {
    kubeletVersion: kubeletVersionFor(version),
    bootID: randomUUID(),
  });
  const rendered = renderedConfig('master', version);
  node.metadata.annotations = {
    ...node.metadata.annotations,
    [KUBE_LABEL.currentConfig]: rendered,
    [KUBE_LABEL.desiredConfig]: rendered,
    [KUBE_LABEL.mcdState]: 'Done',
  };
  setObjectCondition(node, 'Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', now);
  save(state, kind, before, node);
  recordEvent(state, {
    about: node,
    reason: 'NodeReady',
    message: `Node ${name} status is now: NodeReady`,
    component: 'kubelet',
    host: name,
    at: now,
  });
}
