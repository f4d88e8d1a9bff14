// The cluster-level series real conditional-risk queries use (cluster_version, the infrastructure
// provider, operator conditions, node labels, the machine-config daemon's state…), made from the mock's
// state on each scrape, in the Prometheus text exposition format.
import { KUBE_LABEL } from 'cincy/cluster/labels';
import { servedKinds } from '../apiserver/crds.js';
import { KINDS, stored, type ResourceKind } from '../apiserver/kinds.js';
import { SCENARIO } from './scenario.js';
import type { ClusterState } from '../apiserver/state.js';

const kind = (k: string): ResourceKind => KINDS.find((x) => x.kind === k)!;

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
    servedKinds(state)
      .filter(stored)
      .map((k): [Record<string, string>, number] => [
        { resource: k.group ? `${k.plural}.${k.group}` : k.plural },
        state.list(k).length,
      ]),
  );
  return `${lines.join('\n')}\n`;
}
