// The kinds the mock cluster serves (group, version, plural, kind, scope) and the shape of its objects.

export interface ResourceKind {
  group: string; // '' for the core group
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** The rule its names follow, as the API server validates them (names.ts); a DNS-1123 subdomain when unset. */
  names?: 'dns1123Label' | 'dns1035Label' | 'pathSegment';
}

export const KINDS: ResourceKind[] = [
  { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions', kind: 'ClusterVersion', namespaced: false },
  {
    group: 'config.openshift.io',
    version: 'v1',
    plural: 'clusteroperators',
    kind: 'ClusterOperator',
    namespaced: false,
  },
  { group: 'config.openshift.io', version: 'v1', plural: 'proxies', kind: 'Proxy', namespaced: false },
  { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
  { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false, names: 'dns1123Label' },
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
  { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true },
  {
    group: 'machineconfiguration.openshift.io',
    version: 'v1',
    plural: 'machineconfigpools',
    kind: 'MachineConfigPool',
    namespaced: false,
  },
  { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true, names: 'dns1035Label' },
  { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true },
  { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
  { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
    names: 'pathSegment',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    names: 'pathSegment',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'roles',
    kind: 'Role',
    namespaced: true,
    names: 'pathSegment',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
    names: 'pathSegment',
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
  },
];

/** The kind named `kind` (e.g. 'Node'); every kind name is unique in KINDS. */
export function kindNamed(kind: string): ResourceKind {
  const k = KINDS.find((x) => x.kind === kind);
  if (!k) throw new Error(`unknown kind ${kind}`);
  return k;
}

export const apiVersionOf = (k: ResourceKind): string => (k.group ? `${k.group}/${k.version}` : k.version);

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

export function kindFor(o: KubeObject): ResourceKind {
  const k = KINDS.find((x) => x.kind === o.kind && apiVersionOf(x) === o.apiVersion);
  if (!k) throw new Error(`unknown kind ${o.apiVersion} ${o.kind}`);
  return k;
}
