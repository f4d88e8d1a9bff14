// Makes the release payload of a version: the `release-manifests/` folder the cluster-version-operator
// applies, laid out as a real OpenShift payload is (runlevels, one component per operator, the CVO at
// runlevel 00, the Machine Config Operator near the end). Deterministic: the same input gives the same bytes.
// Made before its release image (whose digest depends on it), it names that image `{{.ReleaseImage}}`.
import { createHash } from 'node:crypto';
import semver from 'semver';
import { stringify } from 'yaml';
import { LABEL } from 'cincy/graph/model';
import { KUBE_LABEL } from 'cincy/cluster/labels';
import { RELEASE_IMAGE_PLACEHOLDER } from 'cincy/payload/load';
import { CONFIG_KINDS, CVO, MIGRATION_JOB, MONITORING_DASHBOARDS, OPERATORS, type Operator } from './operators.js';

export interface GenerateOptions {
  version: string;
  /**
   * The release image pull spec (by digest); the CVO Deployment runs it. Without it, the CVO's manifests name
   * RELEASE_IMAGE_PLACEHOLDER and `repository` says where the release image (and its components) live.
   */
  image?: string;
  /** `host[:port]/path` of the release image; needed without `image`. */
  repository?: string;
  arch?: string;
  previous?: string[];
  /** The errata URL (release-metadata `metadata.url`). */
  url?: string;
}

/** The repository of a pull spec: without its @digest or :tag. */
const repositoryOf = (image: string): string =>
  image.includes('@') ? image.slice(0, image.indexOf('@')) : image.replace(/:[^:/]*$/, '');
const namespaceOf = (o: Operator): string => o.namespace ?? `openshift-${o.co}-operator`;
const deploymentOf = (o: Operator): string => o.deployment ?? `${o.co}-operator`;
const pad = (n: number): string => String(n).padStart(2, '0');
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const envName = (tag: string): string => `${tag.toUpperCase().replace(/-/g, '_')}_IMAGE`;

/** Every object carries the annotation real payload manifests use to pick a cluster profile. */
const PROFILE = { 'include.release.openshift.io/self-managed-high-availability': 'true' };

function plural(kind: string): string {
  const k = kind.toLowerCase();
  return k.endsWith('s') ? `${k}es` : k.endsWith('y') ? `${k.slice(0, -1)}ies` : `${k}s`;
}

/**
 * The approval annotation an API server asks of a CRD: groups under k8s.io and kubernetes.io are protected
 * (kube-apiserver refuses their CRDs without `api-approved.kubernetes.io`), OpenShift's carry its own.
 */
function approval(group: string): Record<string, string> {
  const kubernetes = group === 'k8s.io' || group.endsWith('.k8s.io') || group.endsWith('.kubernetes.io');
  return kubernetes
    ? { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' }
    : { 'api-approved.openshift.io': 'https://github.com/openshift/api/pull/470' };
}

function crd(kindGroup: string): object {
  const dot = kindGroup.indexOf('.');
  const kind = kindGroup.slice(0, dot);
  const group = kindGroup.slice(dot + 1);
  const clusterScoped =
    group.startsWith('config.') ||
    group.endsWith('operator.openshift.io') ||
    group === 'machineconfiguration.openshift.io';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural(kind)}.${group}`,
      annotations: { ...PROFILE, ...approval(group) },
    },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural: plural(kind), singular: kind.toLowerCase() },
      scope: clusterScoped ? 'Cluster' : 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

function deployment(
  namespace: string,
  name: string,
  image: string,
  env: Array<{ name: string; value: string }>,
  annotations: Record<string, string>,
  args: string[] = [],
): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, annotations: { ...PROFILE, ...annotations }, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'Recreate' },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          serviceAccountName: name,
          priorityClassName: 'system-cluster-critical',
          nodeSelector: { [KUBE_LABEL.masterRole]: '' },
          tolerations: [{ key: KUBE_LABEL.masterRole, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'operator',
              image,
              ...(args.length && { args }),
              env,
              resources: { requests: { cpu: '10m', memory: '50Mi' } },
            },
          ],
        },
      },
    },
  };
}

export function generatePayload(o: GenerateOptions): Map<string, string> {
  const text = (content: object[] | string): string =>
    typeof content === 'string' ? content : content.map((d) => stringify(d)).join('---\n');
  return new Map([...payloadFiles(o)].map(([file, content]) => [file, text(content)]));
}

/**
 * The payload's files before they are written as text: each manifest's documents as objects (what a
 * simulated cluster reads of its running release needs no YAML written and read back), image-references
 * and release-metadata as their JSON text.
 */
export function payloadFiles(o: GenerateOptions): Map<string, object[] | string> {
  for (const v of [o.version, ...(o.previous ?? [])])
    if (semver.valid(v) !== v) throw new Error(`version: ${v} is not a semantic version`);
  const { version } = o;
  const image = o.image ?? RELEASE_IMAGE_PLACEHOLDER;
  const repo = o.image ? repositoryOf(o.image) : o.repository;
  if (!repo) throw new Error('generator: give the release image, or the repository it will be pushed to');
  const artRepo = `${repo.includes('/') ? repo.slice(0, repo.lastIndexOf('/')) : repo}/ocp-v4.0-art-dev`;
  const tags = new Map<string, string>();
  const imageOf = (tag: string): string => {
    const ref = `${artRepo}@sha256:${sha256(version + tag)}`;
    tags.set(tag, ref);
    return ref;
  };
  const files = new Map<string, object[] | string>();
  const put = (rl: number, component: string, name: string, ...docs: object[]): void => {
    const file = `0000_${pad(rl)}_${component}_${name}.yaml`;
    if (files.has(file)) throw new Error(`generator bug: ${file} twice`);
    files.set(file, docs);
  };
  const meta = (name: string, namespace?: string, extra: object = {}): object => ({
    name,
    ...(namespace && { namespace }),
    annotations: { ...PROFILE },
    ...extra,
  });
  const rbacSubject = (name: string, namespace: string): object => ({ kind: 'ServiceAccount', name, namespace });

  // Runlevel 00: the CVO itself. Its Deployment runs the release image, so applying it is the CVO's restart.
  const cvo = (nn: string, ...docs: object[]): void => put(0, CVO.component, nn, ...docs);
  imageOf(CVO.component);
  cvo('00_namespace', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: meta(CVO.namespace, undefined, { labels: { name: CVO.namespace, 'openshift.io/run-level': '1' } }),
  });
  cvo('01_clusterversions.crd', crd('ClusterVersion.config.openshift.io'));
  cvo('01_clusteroperators.crd', crd('ClusterOperator.config.openshift.io'));
  cvo('02_serviceaccount', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(CVO.component, CVO.namespace) });
  cvo('02_roles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: meta('cluster-version-operator'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [rbacSubject(CVO.component, CVO.namespace)],
  });
  cvo('03_service', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(CVO.component, CVO.namespace),
    spec: { selector: { app: CVO.component }, ports: [{ name: 'metrics', port: 9099, targetPort: 9099 }] },
  });
  cvo(
    '03_deployment',
    deployment(CVO.namespace, CVO.component, image, [{ name: 'RELEASE_VERSION', value: version }], {}, [
      'start',
      `--release-image=${image}`,
      '--enable-auto-update=false',
      '--listen=0.0.0.0:9099',
      '--serving-cert-file=/etc/tls/serving-cert/tls.crt',
      '--v=2',
    ]),
  );

  // Runlevel 03: the config.openshift.io API every later operator reads, and the namespaces holding configuration.
  put(
    3,
    'config-operator',
    '00_namespaces',
    ...['openshift-config', 'openshift-config-managed'].map((ns) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: meta(ns),
    })),
  );
  for (const k of CONFIG_KINDS) put(3, 'config-operator', `01_${plural(k)}.crd`, crd(`${k}.config.openshift.io`));

  for (const op of OPERATORS) {
    const ns = namespaceOf(op);
    const name = deploymentOf(op);
    const f = (nn: string, ...docs: object[]): void => put(op.rl, op.co, nn, ...docs);
    const rbac = 'rbac.authorization.k8s.io/v1';
    f('00_namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: meta(ns, undefined, { labels: { name: ns, 'openshift.io/cluster-monitoring': 'true' } }),
    });
    for (const k of op.crds ?? []) {
      const kind = k.slice(0, k.indexOf('.'));
      const group = k.slice(k.indexOf('.') + 1);
      f(`01_${plural(kind)}${group.startsWith('operator.') ? '' : `-${group.split('.')[0]}`}.crd`, crd(k));
    }
    f('02_serviceaccount', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name, ns) });
    f('03_clusterrole', {
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: meta(`system:openshift:operator:${op.co}`),
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    });
    f('03_clusterrolebinding', {
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: meta(`system:openshift:operator:${op.co}`),
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: `system:openshift:operator:${op.co}`,
      },
      subjects: [rbacSubject(name, ns)],
    });
    f('03_role', {
      apiVersion: rbac,
      kind: 'Role',
      metadata: meta(name, 'openshift-config'),
      rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] }],
    });
    f('03_rolebinding', {
      apiVersion: rbac,
      kind: 'RoleBinding',
      metadata: meta(name, 'openshift-config'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [rbacSubject(name, ns)],
    });
    f('03_role-prometheus', {
      apiVersion: rbac,
      kind: 'Role',
      metadata: meta('prometheus-k8s', ns),
      rules: [{ apiGroups: [''], resources: ['services', 'endpoints', 'pods'], verbs: ['get', 'list', 'watch'] }],
    });
    f('03_rolebinding-prometheus', {
      apiVersion: rbac,
      kind: 'RoleBinding',
      metadata: meta('prometheus-k8s', ns),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'prometheus-k8s' },
      subjects: [rbacSubject('prometheus-k8s', 'openshift-monitoring')],
    });
    f('04_configmap-config', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(`${name}-config`, ns),
      data: {
        'config.yaml': `apiVersion: operator.openshift.io/v1alpha1\nkind: GenericOperatorConfig\nleaderElection:\n  namespace: ${ns}\n`,
      },
    });
    f('04_configmap-trusted-ca-bundle', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('trusted-ca-bundle', ns, { labels: { 'config.openshift.io/inject-trusted-cabundle': 'true' } }),
      data: {},
    });
    // About half the operators serve a webhook or API and get the service CA injected (chosen by hash, so it is stable).
    if (parseInt(sha256(op.co).slice(0, 2), 16) % 2 === 0) {
      f('04_configmap-service-ca', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: meta('service-ca-bundle', ns, {
          annotations: { ...PROFILE, 'service.beta.openshift.io/inject-cabundle': 'true' },
        }),
        data: {},
      });
    }
    f('05_service', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('metrics', ns, {
        annotations: { ...PROFILE, 'service.beta.openshift.io/serving-cert-secret-name': `${name}-serving-cert` },
      }),
      spec: { selector: { app: name }, ports: [{ name: 'https', port: 8443, targetPort: 8443 }] },
    });
    const env = [
      { name: 'RELEASE_VERSION', value: version },
      ...(op.operands ?? []).map((t) => ({ name: envName(t), value: imageOf(t) })),
    ];
    f('06_deployment', deployment(ns, name, imageOf(name), env, { [KUBE_LABEL.clusterOperator]: op.co }));
    f('07_clusteroperator', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterOperator',
      metadata: meta(op.co),
      spec: {},
      status: { versions: ['operator', ...(op.versions ?? [])].map((n) => ({ name: n, version })) },
    });
  }

  // Extras real payloads carry: a node DaemonSet, the console dashboards (runlevel 90), and one migration Job.
  const dns = OPERATORS.find((x) => x.co === 'dns')!;
  put(dns.rl, 'dns', '06_daemonset-node-resolver', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: meta('node-resolver', namespaceOf(dns)),
    spec: {
      selector: { matchLabels: { app: 'node-resolver' } },
      template: {
        metadata: { labels: { app: 'node-resolver' } },
        spec: {
          containers: [
            {
              name: 'dns-node-resolver',
              image: imageOf('coredns'),
              command: ['/bin/bash', '-c', 'exec sleep infinity'],
            },
          ],
        },
      },
    },
  });
  for (const d of MONITORING_DASHBOARDS) {
    put(90, 'monitoring', `01_dashboard-${d}`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(`grafana-dashboard-${d}`, 'openshift-config-managed', {
        labels: { 'console.openshift.io/dashboard': 'true' },
      }),
      data: { [`${d}.json`]: JSON.stringify({ title: d, uid: sha256(d).slice(0, 32), panels: [] }) },
    });
  }
  const job = OPERATORS.find((x) => x.co === MIGRATION_JOB.co)!;
  put(job.rl, job.co, `08_${MIGRATION_JOB.name}.job`, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(MIGRATION_JOB.name, namespaceOf(job)),
    spec: {
      backoffLimit: 3,
      template: {
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: deploymentOf(job),
          containers: [{ name: 'migrate', image: imageOf(deploymentOf(job)), args: ['migrate', `--to=${version}`] }],
        },
      },
    },
  });

  files.set(
    'image-references',
    `${JSON.stringify(
      {
        kind: 'ImageStream',
        apiVersion: 'image.openshift.io/v1',
        metadata: { name: version, creationTimestamp: null },
        spec: {
          tags: [...tags]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([name, ref]) => ({ name, from: { kind: 'DockerImage', name: ref } })),
        },
      },
      null,
      2,
    )}\n`,
  );
  const metadata: Record<string, string> = {
    ...(o.url && { url: o.url }),
    ...(o.arch === 'multi' && { [LABEL.architecture]: 'multi' }),
  };
  files.set(
    'release-metadata',
    `${JSON.stringify(
      {
        kind: 'cincinnati-metadata-v0',
        version,
        previous: [...(o.previous ?? [])].sort(semver.compare),
        ...(Object.keys(metadata).length && { metadata }),
      },
      null,
      2,
    )}\n`,
  );
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
