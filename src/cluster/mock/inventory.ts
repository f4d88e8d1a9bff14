// The default inventory of the mock cluster (a ClusterVersion with history, the ClusterOperators of
// an OpenShift 4.x cluster and their operator Deployments as the installed release's payload has them,
// three control-plane and three worker nodes in zones, two MachineConfigPools on the installed release's
// rendered configs).
import { randomUUID } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { generatePayload } from '../../payload/generate.js';
import { RHEL_LABEL, kubeletVersionFor, renderedConfig } from './mco.js';
import { SCENARIO } from './scenario.js';
import { KINDS, type KubeObject, type ResourceKind } from './kinds.js';
import { type ClusterState } from './state.js';
import { KUBE_LABEL } from '../labels.js';

export const OPERATORS = [
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

export interface InventoryOptions {
  version: string;
  image: string;
  channel?: string;
  upstream?: string;
  arch: string;
  /** The version the cluster was installed at (history's oldest entry). */
  installedVersion?: string;
  platform?: string;
  /** How many of the workers (the last ones) run RHEL instead of RHCOS. */
  rhelWorkers?: number;
}

const kind = (k: string): ResourceKind => KINDS.find((x) => x.kind === k)!;

/**
 * What the payload of the running release applied that the simulation needs: the operator Deployments
 * (the CVO's too), so applying the next payload updates them, and each ClusterOperator's version names.
 */
function runningRelease(
  version: string,
  image: string,
): { deployments: KubeObject[]; versionNames: Map<string, string[]> } {
  const deployments: KubeObject[] = [];
  const versionNames = new Map<string, string[]>();
  for (const [file, text] of generatePayload({ version, image })) {
    if (!/_\d+_(deployment|clusteroperator)\.yaml$/.test(file)) continue;
    for (const doc of parseAllDocuments(text)) {
      const obj = doc.toJS() as KubeObject & { status?: { versions?: Array<{ name: string }> } };
      if (obj.kind === 'Deployment') deployments.push(obj);
      if (obj.kind === 'ClusterOperator')
        versionNames.set(
          obj.metadata.name,
          (obj.status?.versions ?? []).map((v) => v.name),
        );
    }
  }
  return { deployments, versionNames };
}

export function seedInventory(state: ClusterState, o: InventoryOptions): void {
  const installed = o.installedVersion ?? o.version;
  // The objects date from the installation (the oldest history entry), the workers a little after the masters.
  const installedAt = Date.parse(installed !== o.version ? '2025-11-10T09:45:00Z' : '2026-03-02T11:10:00Z');
  const add = (
    k: string,
    namespace: string | undefined,
    obj: Omit<KubeObject, 'apiVersion' | 'kind'>,
    at = installedAt,
  ): void => void state.create(kind(k), namespace, { apiVersion: '', kind: k, ...obj } as KubeObject, at);
  // Conditions last changed when the last update completed.
  const condition = (type: string, status: string, reason = '', message = ''): object => ({
    type,
    status,
    lastTransitionTime: '2026-03-02T11:10:00Z',
    reason,
    message,
  });

  const release = runningRelease(o.version, o.image);
  const namespaces = [
    'default',
    'kube-system',
    'openshift-config',
    'openshift-config-managed',
    'openshift-cluster-version',
    'openshift-monitoring',
    'openshift-machine-config-operator',
  ];
  for (const ns of new Set([...namespaces, ...release.deployments.map((d) => d.metadata.namespace!)])) {
    add('Namespace', undefined, { metadata: { name: ns }, status: { phase: 'Active' } });
  }
  for (const d of release.deployments) add('Deployment', d.metadata.namespace, d);
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
      desired: { version: o.version, image: o.image, channels: [] },
      history,
      observedGeneration: 1,
      versionHash: 'mock',
      availableUpdates: null,
      capabilities: {
        enabledCapabilities: ['Console', 'Insights', 'Storage', 'MachineAPI'],
        knownCapabilities: ['Console', 'Insights', 'Storage', 'MachineAPI', 'Build'],
      },
      conditions: [
        condition('Available', 'True', '', `Done applying ${o.version}`),
        condition('Failing', 'False'),
        condition('Progressing', 'False', '', `Cluster version is ${o.version}`),
        condition('RetrievedUpdates', 'False', 'NoChannel', 'The update channel has not been configured.'),
        condition('Upgradeable', 'True'),
      ],
    },
  });
  for (const name of OPERATORS) {
    add('ClusterOperator', undefined, {
      metadata: { name },
      spec: {},
      status: {
        versions: (release.versionNames.get(name) ?? ['operator']).map((n) => ({ name: n, version: o.version })),
        conditions: [
          condition('Available', 'True', 'AsExpected'),
          condition('Progressing', 'False', 'AsExpected'),
          condition('Degraded', 'False', 'AsExpected'),
          condition('Upgradeable', 'True', 'AsExpected'),
        ],
      },
    });
  }
  add('Proxy', undefined, { metadata: { name: 'cluster' }, spec: {}, status: {} });
  const zones = ['a', 'b', 'c'];
  const rhel = (pool: string, i: number): boolean => pool === 'worker' && i >= zones.length - (o.rhelWorkers ?? 0);
  for (const [p, pool] of ['master', 'worker'].entries()) {
    const rendered = renderedConfig(pool, o.version);
    zones.forEach((z, i) => {
      add(
        'Node',
        undefined,
        {
          metadata: {
            name: `${pool}-${i}`,
            labels: {
              [`${KUBE_LABEL.nodeRolePrefix}${pool}`]: '',
              [KUBE_LABEL.arch]: o.arch === 'multi' ? 'amd64' : o.arch,
              [KUBE_LABEL.os]: 'linux',
              [KUBE_LABEL.zone]: `zone-${z}`,
              ...(rhel(pool, i) && { [RHEL_LABEL]: 'rhel' }),
            },
            annotations: {
              [KUBE_LABEL.currentConfig]: rendered,
              [KUBE_LABEL.desiredConfig]: rendered,
              [KUBE_LABEL.mcdState]: 'Done',
            },
          },
          spec: {},
          status: {
            conditions: [condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')],
            nodeInfo: {
              architecture: o.arch === 'multi' ? 'amd64' : o.arch,
              kubeletVersion: kubeletVersionFor(o.version),
              osImage: rhel(pool, i) ? 'Red Hat Enterprise Linux 8.10 (Ootpa)' : 'Red Hat Enterprise Linux CoreOS',
            },
          },
        },
        installedAt + (p * 20 + i) * 60_000,
      );
    });
    add('MachineConfigPool', undefined, {
      metadata: { name: pool },
      spec: {
        maxUnavailable: 1,
        configuration: { name: rendered },
        nodeSelector: { matchLabels: { [`${KUBE_LABEL.nodeRolePrefix}${pool}`]: '' } },
      },
      status: {
        observedGeneration: 1,
        machineCount: 3,
        readyMachineCount: 3,
        updatedMachineCount: 3,
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
  add('ConfigMap', SCENARIO.namespace, {
    metadata: { name: SCENARIO.name },
    data: { platform: o.platform ?? 'AWS', region: 'us-east-1', featureSet: '', proxy: 'false' },
  });
}
