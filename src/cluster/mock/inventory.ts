// The default inventory of the mock cluster (a ClusterVersion with history, the ClusterOperators of
// an OpenShift 4.x cluster and their operator Deployments as the installed release's payload has them,
// three control-plane and three worker nodes in zones, two MachineConfigPools on the installed release's
// rendered configs) and the cluster-level metrics real risks query, made from the state.
import { randomUUID } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { generatePayload } from '../../payload/generate.js';
import { RHEL_LABEL, kubeletVersionFor, renderedConfig } from './mco.js';
import { SCENARIO } from './scenario.js';
import { KINDS, type ClusterState, type KubeObject, type ResourceKind } from './state.js';
import { KUBE_LABEL } from '../labels.js';

export { SCENARIO };

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

/** The Prometheus text exposition of the series real conditional-risk queries use. */
export function clusterMetrics(state: ClusterState): string {
  const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  const labels = (l: Record<string, string>): string =>
    `{${Object.entries(l)
      .map(([k, v]) => `${k}="${esc(v)}"`)
      .join(',')}}`;
  const lines: string[] = [];
  const metric = (name: string, help: string, samples: Array<[Record<string, string>, number]>): void => {
    lines.push(
      `# HELP ${name} ${help}`,
      `# TYPE ${name} gauge`,
      ...samples.map(([l, v]) => `${name}${labels(l)} ${v}`),
    );
  };
  const cv = state.find(kind('ClusterVersion'), undefined, 'version');
  const status = (cv?.status ?? {}) as {
    desired?: { version?: string; image?: string };
    history?: Array<{ version: string; image: string; completionTime: string | null }>;
    capabilities?: { enabledCapabilities?: string[] };
  };
  const history = status.history ?? [];
  const initial = history[history.length - 1];
  const completed = history.find((h) => h.completionTime);
  metric('cluster_version', 'Reported versions of the cluster: current, initial, desired, completed', [
    ...(status.desired?.version
      ? [
          [{ type: 'current', version: status.desired.version, image: status.desired.image ?? '' }, 1] as [
            Record<string, string>,
            number,
          ],
        ]
      : []),
    ...(initial
      ? [[{ type: 'initial', version: initial.version, image: initial.image }, 1] as [Record<string, string>, number]]
      : []),
    ...(completed
      ? [
          [{ type: 'completed', version: completed.version, image: completed.image }, 1] as [
            Record<string, string>,
            number,
          ],
        ]
      : []),
  ]);
  const scenario = (state.find(kind('ConfigMap'), SCENARIO.namespace, SCENARIO.name)?.data ?? {}) as Record<
    string,
    string
  >;
  metric('cluster_infrastructure_provider', 'The infrastructure platform of the cluster', [
    [{ type: scenario.platform ?? 'None', region: scenario.region ?? '' }, 1],
  ]);
  metric('cluster_feature_set', 'The feature set of the cluster', [[{ name: scenario.featureSet ?? '' }, 1]]);
  metric(
    'cluster_proxy_enabled',
    'Whether a cluster-wide proxy is configured',
    scenario.proxy === 'true' ? [[{ type: 'https' }, 1]] : [],
  );
  metric(
    'cluster_version_capability',
    'Enabled capabilities',
    (status.capabilities?.enabledCapabilities ?? []).map((name) => [{ name }, 1]),
  );
  const operators = state.list(kind('ClusterOperator'));
  metric(
    'cluster_operator_conditions',
    'Conditions of the cluster operators',
    operators.flatMap((co) =>
      ((co.status as { conditions?: Array<{ type: string; status: string; reason?: string }> })?.conditions ?? []).map(
        (c): [Record<string, string>, number] => [
          { name: co.metadata.name, condition: c.type, reason: c.reason ?? '' },
          c.status === 'True' ? 1 : 0,
        ],
      ),
    ),
  );
  metric(
    'cluster_operator_up',
    'Whether each cluster operator is available',
    operators.map((co): [Record<string, string>, number] => {
      const s = co.status as {
        conditions?: Array<{ type: string; status: string }>;
        versions?: Array<{ name: string; version: string }>;
      };
      return [
        { name: co.metadata.name, version: s?.versions?.find((v) => v.name === 'operator')?.version ?? '' },
        s?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ? 1 : 0,
      ];
    }),
  );
  metric('cluster_installer', 'How the cluster was installed', [
    [{ type: 'openshift-install', invoker: 'user', version: initial?.version ?? '' }, 1],
  ]);
  const nodes = state.list(kind('Node'));
  metric(
    'kube_node_labels',
    'Node labels, as kube-state-metrics exposes them',
    nodes.map((n): [Record<string, string>, number] => [
      {
        node: n.metadata.name,
        ...Object.fromEntries(
          Object.entries(n.metadata.labels ?? {}).map(([k, v]) => [`label_${k.replace(/[^a-zA-Z0-9_]/g, '_')}`, v]),
        ),
      },
      1,
    ]),
  );
  metric(
    'mcd_update_state',
    'Machine config daemon state per node',
    nodes.map((n): [Record<string, string>, number] => [
      {
        node: n.metadata.name,
        config: n.metadata.annotations?.[KUBE_LABEL.currentConfig] ?? '',
        state: n.metadata.annotations?.[KUBE_LABEL.mcdState] ?? 'Done',
      },
      1,
    ]),
  );
  metric(
    'apiserver_storage_objects',
    'Objects stored, per resource',
    KINDS.map((k): [Record<string, string>, number] => [
      { resource: k.group ? `${k.plural}.${k.group}` : k.plural },
      state.list(k).length,
    ]),
  );
  return `${lines.join('\n')}\n`;
}
