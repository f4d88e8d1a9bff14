// The default inventory of the mock cluster (a ClusterVersion with history, the ClusterOperators of
// an OpenShift 4.x cluster and their operator Deployments as the installed release's payload has them,
// three control-plane and three worker nodes in zones, two MachineConfigPools on the installed release's
// rendered configs).
import { createHash, randomUUID } from 'node:crypto';
import { kubeTime } from 'cincy/clock';
import semver from 'semver';
import { payloadFiles } from '../payloads/generate.js';
import { RHEL_LABEL, renderedConfig } from './mco.js';
import { kubeletVersionFor, rhcosNodeInfo } from './releaseContent.js';
import { OPERATORS as PAYLOAD_OPERATORS } from '../payloads/operators.js';
import { SCENARIO } from './scenario.js';
import { KINDS, type StoredObject, type ResourceKind } from '../apiserver/kinds.js';
import { type ClusterState } from '../apiserver/state.js';
import { installCrds } from '../apiserver/crds.js';
import { ensureRenderedConfig, installMachineConfigs } from './machineConfigs.js';
import { KUBE_LABEL } from 'cincy/cluster/labels';
import { ACCEPT_RISKS_GATE } from 'cincy/agent/acceptRisks';
import { seedSingleNode, SINGLE_NODE_GROUPS } from './singleNode.js';

export const OPERATOR_NAMES = [
  'authentication',
  'baremetal',
  'cloud-controller-manager',
  'cloud-credential',
  'cluster-autoscaler',
  'config-operator',
  'console',
  'control-plane-machine-set',
  'csi-snapshot-controller',
  'dns',
  'etcd',
  'image-registry',
  'ingress',
  'insights',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kube-storage-version-migrator',
  'machine-api',
  'machine-approver',
  'machine-config',
  'marketplace',
  'monitoring',
  'network',
  'node-tuning',
  'openshift-apiserver',
  'openshift-controller-manager',
  'openshift-samples',
  'operator-lifecycle-manager',
  'operator-lifecycle-manager-catalog',
  'operator-lifecycle-manager-packageserver',
  'service-ca',
  'storage',
];

/** The capabilities a release knows: those of 4.16 on (CloudControllerManager, Ingress) not before it. */
const capabilitiesOf = (version: string): string[] =>
  semver.lt(version, '4.16.0') ? CAPABILITIES.filter((c) => !CAPABILITIES_SINCE_4_16.includes(c)) : CAPABILITIES;
const CAPABILITIES_SINCE_4_16 = ['CloudControllerManager', 'Ingress'];

/** The optional core components a cluster installed with the default capability set runs. */
const CAPABILITIES = [
  'Build',
  'CSISnapshot',
  'CloudControllerManager',
  'CloudCredential',
  'Console',
  'DeploymentConfig',
  'ImageRegistry',
  'Ingress',
  'Insights',
  'MachineAPI',
  'NodeTuning',
  'OperatorLifecycleManager',
  'Storage',
  'baremetal',
  'marketplace',
  'openshift-samples',
];

/** The gates a feature set turns on beyond the Default ones: those the mock's CRDs and FeatureGate know of. */
export function gatesOf(featureSet: string | undefined): ReadonlySet<string> {
  return new Set(featureSet === 'TechPreviewNoUpgrade' ? [ACCEPT_RISKS_GATE] : []);
}

/** Some of the gates of the Default feature set, on and off, as status.featureGates lists them. */
const FEATURE_GATES = {
  enabled: [
    'AdminNetworkPolicy',
    'AzureWorkloadIdentity',
    'BuildCSIVolumes',
    'CloudDualStackNodeIPs',
    'KMSv1',
    'NetworkLiveMigration',
    'PrivateHostedZoneAWS',
    'ValidatingAdmissionPolicy',
  ],
  disabled: [
    'ClusterAPIInstall',
    'DynamicResourceAllocation',
    'GatewayAPI',
    'ImagePolicy',
    'MachineConfigNodes',
    'OnClusterBuild',
    'PinnedImages',
    'SigstoreImageVerification',
  ],
};

export interface InventoryOptions {
  version: string;
  image: string;
  channel?: string;
  upstream?: string;
  arch: string;
  /** The version the cluster was installed at (history's oldest entry). */
  installedVersion?: string;
  platform?: string;
  /** The cloud region the nodes' zones are in (default us-east-1). */
  region?: string;
  /** The feature set (FeatureGate spec.featureSet): '' (Default), TechPreviewNoUpgrade, … */
  featureSet?: string;
  /** How many of the workers (the last ones) run RHEL instead of RHCOS. */
  rhelWorkers?: number;
  /**
   * A single-node cluster (singleNode.ts): one node with the control-plane, master and worker roles, the
   * SingleReplica topology, and the Lifecycle Agent and OADP with their APIs.
   */
  singleNode?: boolean;
  /**
   * The capabilities the API server's ClusterVersion CRD accepts (its enum), when the cluster is made on
   * another API server: a capability its CRD does not know is left out, as that server would refuse it.
   */
  acceptedCapabilities?: readonly string[];
}

const kind = (k: string): ResourceKind => KINDS.find((x) => x.kind === k)!;

/**
 * What the payload of the running release applied that the simulation needs: the operator Deployments
 * (the CVO's too), so applying the next payload updates them, and each ClusterOperator's version names.
 */
function runningRelease(
  version: string,
  image: string,
): {
  deployments: StoredObject[];
  serviceAccounts: StoredObject[];
  versionNames: Map<string, string[]>;
  relatedObjects: Map<string, object[]>;
} {
  const deployments: StoredObject[] = [];
  const serviceAccounts: StoredObject[] = [];
  const versionNames = new Map<string, string[]>();
  const relatedObjects = new Map<string, object[]>();
  for (const [file, docs] of payloadFiles({ version, image })) {
    if (typeof docs === 'string' || !/_\d+_(deployment|clusteroperator|serviceaccount)\.yaml$/.test(file)) continue;
    for (const doc of docs) {
      // A copy as plain JSON, as the payload's YAML reads back: the generator's objects stay its own.
      const obj = JSON.parse(JSON.stringify(doc)) as StoredObject & { status?: { versions?: Array<{ name: string }> } };
      if (obj.kind === 'Deployment') deployments.push(obj);
      if (obj.kind === 'ServiceAccount') serviceAccounts.push(obj);
      if (obj.kind === 'ClusterOperator')
        versionNames.set(
          obj.metadata.name,
          (obj.status?.versions ?? []).map((v) => v.name),
        );
    }
  }
  // What `oc adm inspect` collects of an operator: its configuration object and its namespace.
  for (const d of deployments) {
    const co = d.metadata.annotations?.[KUBE_LABEL.clusterOperator];
    if (!co) continue;
    const op = PAYLOAD_OPERATORS.find((x) => x.co === co);
    const configs = (op?.crds ?? [])
      .filter((c) => c.endsWith('.operator.openshift.io'))
      .map((c) => ({
        group: 'operator.openshift.io',
        resource: `${c.slice(0, c.indexOf('.')).toLowerCase()}s`,
        name: 'cluster',
      }));
    relatedObjects.set(co, [...configs, { group: '', resource: 'namespaces', name: d.metadata.namespace! }]);
  }
  return { deployments, serviceAccounts, versionNames, relatedObjects };
}

/** A metav1.MicroTime: an RFC 3339 time with microseconds. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d+)Z$/, '.$1000Z');

/** The architectures a cluster can run: one, or multi (nodes of several). */
export const CLUSTER_ARCHES = ['amd64', 'arm64', 's390x', 'ppc64le', 'multi'];

/** A node's architecture: the cluster's, or on a multi-arch cluster amd64 for the control plane and arm64 for workers but the first. */
export function nodeArch(clusterArch: string, pool: string, i: number): string {
  if (clusterArch !== 'multi') return clusterArch;
  return pool === 'worker' && i > 0 ? 'arm64' : 'amd64';
}

/** What the parts of a new cluster's inventory share: the state, the options, and when it was installed. */
interface Seeding {
  state: ClusterState;
  o: InventoryOptions;
  /** The version it was installed at. */
  installed: string;
  installedAt: number;
  region: string;
  /** Creates an object, dated `at` (the installation by default). */
  add(k: string, namespace: string | undefined, obj: Omit<StoredObject, 'apiVersion' | 'kind'>, at?: number): void;
  /** A condition as it stands since the last update completed. */
  condition(type: string, status: string, reason?: string, message?: string): object;
  /** Bytes drawn from the release image: the same image, the same cluster details. */
  digest(what: string): Buffer;
}

export function seedInventory(state: ClusterState, o: InventoryOptions): void {
  const installed = o.installedVersion ?? o.version;
  // The objects date from the installation (the oldest history entry), the workers a little after the masters.
  // Some months before now, never in the future of the wall clock.
  const installedAt = Math.min(
    Date.parse(installed !== o.version ? '2025-11-10T09:45:00Z' : '2026-03-02T11:10:00Z'),
    Date.now() - (installed !== o.version ? 400 : 90) * 86_400_000,
  );
  const s: Seeding = {
    state,
    o,
    installed,
    installedAt,
    region: o.region ?? 'us-east-1',
    add: (k, namespace, obj, at = installedAt) =>
      void state.create(kind(k), namespace, { apiVersion: '', kind: k, ...obj } as StoredObject, at),
    condition: (type, status, reason = '', message = '') => ({
      type,
      status,
      lastTransitionTime: kubeTime(installedAt),
      reason,
      message,
    }),
    digest: (what) => createHash('sha256').update(`${what}:${o.image}`).digest(),
  };
  installCrds(state, installedAt, [], gatesOf(o.featureSet));
  const release = runningRelease(o.version, o.image);
  seedWorkloads(s, release);
  seedClusterVersion(s);
  seedOperators(s, release);
  const platform = seedClusterConfig(s);
  for (const [p, pool] of ['master', 'worker'].entries()) seedPool(s, p, pool);
  s.add('ConfigMap', SCENARIO.namespace, {
    metadata: { name: SCENARIO.name },
    data: { platform, region: s.region, featureSet: o.featureSet ?? '', proxy: 'false' },
  });
  if (o.singleNode) {
    installCrds(state, installedAt, SINGLE_NODE_GROUPS, gatesOf(o.featureSet));
    seedSingleNode(state, { version: o.version, image: o.image, at: installedAt });
  }
}

/** The namespaces, the release's service accounts and operator Deployments, the admin gates and acks. */
function seedWorkloads(s: Seeding, release: ReturnType<typeof runningRelease>): void {
  const { add } = s;
  const namespaces = [
    'default',
    'kube-system',
    'openshift-config',
    'openshift-config-managed',
    'openshift-cluster-version',
    'openshift-monitoring',
    'openshift-machine-config-operator',
    'kube-node-lease',
  ];
  for (const ns of new Set([...namespaces, ...release.deployments.map((d) => d.metadata.namespace!)])) {
    add('Namespace', undefined, { metadata: { name: ns }, status: { phase: 'Active' } });
  }
  // The release's service accounts, which its workloads' pods run as (the API server admits no pod without its own).
  for (const a of release.serviceAccounts) add('ServiceAccount', a.metadata.namespace, a);
  for (const d of release.deployments) add('Deployment', d.metadata.namespace, d);
  // The administrator acknowledgements, as every cluster has them: no gate until one is added
  // (kubectl patch cm admin-gates -n openshift-config-managed), acknowledged in admin-acks.
  add('ConfigMap', 'openshift-config-managed', { metadata: { name: 'admin-gates' }, data: {} });
  add('ConfigMap', 'openshift-config', { metadata: { name: 'admin-acks' }, data: {} });
}

/** The ClusterVersion `version`, at its release since the last update (and the installation before it). */
function seedClusterVersion(s: Seeding): void {
  const { o, installed, add, condition, digest } = s;
  const accepted = o.acceptedCapabilities;
  const capabilities = capabilitiesOf(o.version).filter((c) => !accepted || accepted.includes(c));
  const history = [
    {
      state: 'Completed',
      startedTime: '2026-03-02T10:00:00Z',
      completionTime: '2026-03-02T11:10:00Z',
      version: o.version,
      image: o.image,
      verified: true,
    },
    ...(installed !== o.version
      ? [
          {
            state: 'Completed',
            startedTime: '2025-11-10T09:00:00Z',
            completionTime: '2025-11-10T09:45:00Z',
            version: installed,
            image: `${o.image.split('@')[0]}@sha256:${'0'.repeat(64)}`,
            verified: false,
          },
        ]
      : []),
  ];
  add('ClusterVersion', undefined, {
    metadata: { name: 'version' },
    spec: {
      clusterID: randomUUID(),
      ...(o.channel && { channel: o.channel }),
      ...(o.upstream && { upstream: o.upstream }),
    },
    status: {
      desired: {
        version: o.version,
        image: o.image,
        url: `https://access.redhat.com/errata/RHBA-${2024 + (digest('year')[0]! % 2)}:${1000 + digest('errata').readUInt16BE(0)}`,
        channels: [],
        ...(o.arch === 'multi' && { architecture: 'Multi' }),
      },
      history,
      observedGeneration: 1,
      // As the cluster-version-operator writes it: a base64 fingerprint of the payload being applied.
      versionHash: digest('payload').subarray(0, 8).toString('base64'),
      availableUpdates: null,
      capabilities: { enabledCapabilities: capabilities, knownCapabilities: capabilities },
      conditions: [
        condition('Available', 'True', '', `Done applying ${o.version}`),
        condition('Failing', 'False'),
        condition('Progressing', 'False', '', `Cluster version is ${o.version}`),
        // With a channel, the update service is asked at the first poll; without one, there is nothing to ask.
        ...(o.channel
          ? []
          : [condition('RetrievedUpdates', 'False', 'NoChannel', 'The update channel has not been configured.')]),
        condition('ImplicitlyEnabledCapabilities', 'False', 'AsExpected', 'Capabilities match configured spec'),
        condition(
          'ReleaseAccepted',
          'True',
          'PayloadLoaded',
          `Payload loaded version="${o.version}" image="${o.image}" architecture="${o.arch === 'multi' ? 'Multi' : o.arch}"`,
        ),
        condition('Upgradeable', 'True'),
      ],
    },
  });
}

/** The ClusterOperators, each available at the release with its versions and related objects. */
function seedOperators(s: Seeding, release: ReturnType<typeof runningRelease>): void {
  const { o, add, condition } = s;
  for (const name of OPERATOR_NAMES) {
    add('ClusterOperator', undefined, {
      metadata: { name },
      spec: {},
      status: {
        versions: (release.versionNames.get(name) ?? ['operator']).map((n) => ({ name: n, version: o.version })),
        relatedObjects: release.relatedObjects.get(name) ?? [],
        conditions: [
          condition('Available', 'True', 'AsExpected'),
          condition('Progressing', 'False', 'AsExpected'),
          condition('Degraded', 'False', 'AsExpected'),
          // A Tech Preview feature set holds minor updates back, as the config operator says on a real cluster.
          name === 'config-operator' && o.featureSet === 'TechPreviewNoUpgrade'
            ? condition(
                'Upgradeable',
                'False',
                'FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade',
                'FeatureGatesUpgradeable: "TechPreviewNoUpgrade" does not allow updates',
              )
            : condition('Upgradeable', 'True', 'AsExpected'),
        ],
      },
    });
  }
}

/** The cluster's configuration: Proxy, Infrastructure, FeatureGate; returns its platform. */
function seedClusterConfig(s: Seeding): string {
  const { o, add, region, digest } = s;
  add('Proxy', undefined, { metadata: { name: 'cluster' }, spec: {}, status: {} });
  const platform = o.platform ?? 'AWS';
  const infraName = `mock-${digest('infra').toString('hex').slice(0, 5)}`;
  add('Infrastructure', undefined, {
    metadata: { name: 'cluster' },
    spec: { cloudConfig: { name: '' }, platformSpec: { type: platform, ...(platform === 'AWS' && { aws: {} }) } },
    status: {
      infrastructureName: infraName,
      platform,
      platformStatus: {
        type: platform,
        ...(platform === 'AWS' && { aws: { region } }),
        ...(platform === 'GCP' && { gcp: { projectID: infraName, region } }),
      },
      etcdDiscoveryDomain: '',
      apiServerURL: `https://api.${infraName}.example.com:6443`,
      apiServerInternalURI: `https://api-int.${infraName}.example.com:6443`,
      controlPlaneTopology: o.singleNode ? 'SingleReplica' : 'HighlyAvailable',
      infrastructureTopology: o.singleNode ? 'SingleReplica' : 'HighlyAvailable',
      cpuPartitioning: 'None',
    },
  });
  add('FeatureGate', undefined, {
    metadata: { name: 'cluster' },
    spec: { featureSet: o.featureSet ?? '' },
    status: {
      conditions: [],
      featureGates: [
        {
          version: o.version,
          // The Tech Preview feature set turns the accept-risks API on, as it does on a real cluster.
          enabled: [...FEATURE_GATES.enabled, ...gatesOf(o.featureSet)].sort().map((name) => ({ name })),
          disabled: [...FEATURE_GATES.disabled, ACCEPT_RISKS_GATE]
            .filter((g) => !gatesOf(o.featureSet).has(g))
            .sort()
            .map((name) => ({ name })),
        },
      ],
    },
  });
  return platform;
}

/** The zones a cluster's nodes are spread over, one node of a pool in each. */
const ZONES = ['a', 'b', 'c'];

/** A pool: its nodes (each with its lease) in the zones, its MachineConfigs, the pool itself. */
function seedPool(s: Seeding, p: number, pool: string): void {
  const { state, o, installed, installedAt, add, condition } = s;
  const rendered = renderedConfig(pool, o.version);
  // A single-node cluster has its one node in the master pool; its worker pool is empty.
  const poolZones = o.singleNode ? (pool === 'master' ? ZONES.slice(0, 1) : []) : ZONES;
  poolZones.forEach((zone, i) => {
    const name = `${pool}-${i}`;
    const at = installedAt + (p * 20 + i) * 60_000;
    add('Node', undefined, nodeOf(s, { name, pool, p, i, zone, rendered }), at);
    add(
      'Lease',
      'kube-node-lease',
      {
        metadata: { name },
        spec: {
          holderIdentity: name,
          leaseDurationSeconds: 40,
          // MicroTime, as kubectl describe node parses it: six digits of the second's fraction.
          renewTime: microTime(installedAt),
          acquireTime: microTime(installedAt),
        },
      },
      at,
    );
  });
  installMachineConfigs(state, pool, installed, installedAt);
  ensureRenderedConfig(state, pool, rendered, o.version, installedAt);
  add('MachineConfigPool', undefined, {
    metadata: { name: pool },
    spec: {
      maxUnavailable: 1,
      configuration: { name: rendered },
      nodeSelector: { matchLabels: { [`${KUBE_LABEL.nodeRolePrefix}${pool}`]: '' } },
    },
    status: {
      observedGeneration: 1,
      machineCount: poolZones.length,
      readyMachineCount: poolZones.length,
      updatedMachineCount: poolZones.length,
      unavailableMachineCount: 0,
      degradedMachineCount: 0,
      configuration: { name: rendered },
      conditions: [
        condition('Updated', 'True', '', `All nodes are updated with MachineConfig ${rendered}`),
        condition('Updating', 'False'),
        condition('Degraded', 'False'),
      ],
    },
  });
}

/** Node `i` of `pool` (the `p`th pool) in `zone`, as its kubelet reports it, on its `rendered` configuration. */
function nodeOf(
  s: Seeding,
  n: { name: string; pool: string; p: number; i: number; zone: string; rendered: string },
): Omit<StoredObject, 'apiVersion' | 'kind'> {
  const { o, region, condition } = s;
  const { name, pool, p, i, rendered } = n;
  // Zones are named after the region, as each platform names them (us-east-1a on AWS, us-central1-a on GCP).
  const zone = (o.platform ?? 'AWS') === 'AWS' ? `${region}${n.zone}` : `${region}-${n.zone}`;
  const rhel = pool === 'worker' && i >= ZONES.length - (o.rhelWorkers ?? 0);
  const minor = Number(/^\d+\.(\d+)/.exec(o.version)?.[1] ?? 0);
  const arch = nodeArch(o.arch, pool, i);
  const software = rhel
    ? {
        osImage: 'Red Hat Enterprise Linux 8.10 (Ootpa)',
        kernelVersion: `4.18.0-553.16.1.el8_10.${arch === 'amd64' ? 'x86_64' : arch}`,
        containerRuntimeVersion: rhcosNodeInfo(o.version, arch).containerRuntimeVersion.replace(/\.el9$/, '.el8'),
      }
    : rhcosNodeInfo(o.version, arch);
  const id = (what: string): string => createHash('sha256').update(`${what}:${name}`).digest('hex').slice(0, 32);
  const uuid = (what: string): string => id(what).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
  const ip = `10.0.${i * 32 + p * 16}.${10 + i + 3 * p}`;
  return {
    metadata: {
      name,
      labels: {
        // Control-plane nodes carry both roles from 4.14 on, as oc get nodes shows them.
        ...(pool === 'master' && minor >= 14 && { [`${KUBE_LABEL.nodeRolePrefix}control-plane`]: '' }),
        [`${KUBE_LABEL.nodeRolePrefix}${pool}`]: '',
        ...(o.singleNode && { [`${KUBE_LABEL.nodeRolePrefix}worker`]: '' }),
        [KUBE_LABEL.arch]: arch,
        [KUBE_LABEL.os]: 'linux',
        'kubernetes.io/hostname': name,
        [KUBE_LABEL.zone]: zone,
        'topology.kubernetes.io/region': region,
        'node.kubernetes.io/instance-type': pool === 'master' ? 'm6i.xlarge' : 'm6i.2xlarge',
        [RHEL_LABEL]: rhel ? 'rhel' : 'rhcos',
      },
      annotations: {
        [KUBE_LABEL.currentConfig]: rendered,
        [KUBE_LABEL.desiredConfig]: rendered,
        [KUBE_LABEL.mcdState]: 'Done',
      },
    },
    spec: {
      providerID: `aws:///${zone}/i-0${id('instance').slice(0, 16)}`,
      ...(pool === 'master' &&
        !o.singleNode && {
          taints: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }],
        }),
    },
    status: {
      capacity: {
        cpu: pool === 'master' ? '4' : '8',
        memory: pool === 'master' ? '16092640Ki' : '32472048Ki',
        pods: '250',
        'ephemeral-storage': '125238252Ki',
      },
      allocatable: {
        cpu: pool === 'master' ? '3500m' : '7500m',
        memory: pool === 'master' ? '14941664Ki' : '31321072Ki',
        pods: '250',
        'ephemeral-storage': '114345831029',
      },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
        { type: 'InternalDNS', address: `ip-${ip.replace(/\./g, '-')}.ec2.internal` },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: id('machine'),
        systemUUID: uuid('system'),
        bootID: uuid('boot'),
        ...software,
        kubeletVersion: kubeletVersionFor(o.version),
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: arch,
      },
    },
  };
}
