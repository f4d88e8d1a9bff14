// What runs cincy for one UpdateService, as objects: the settings (a ConfigMap of CINCY_* variables), the
// cluster's pull secret and registry CA copied beside them, the Deployment, its Service, its
// PodDisruptionBudget and, where the cluster serves routes, its Route. Pure: the same inputs give the same
// objects, which the reconciler applies server-side.
import { createHash } from 'node:crypto';
import type { KubeObject, Resource } from '../cluster/api.js';
import { RESOURCES } from '../cluster/resources.js';
import { operandNames, trimmedSpec, type UpdateService } from './updateService.js';

/** What the cluster holds that the objects depend on. */
export interface ClusterInputs {
  /** The cluster pull secret's `.dockerconfigjson`, base64 as a Secret holds it; none reads the registry anonymously. */
  pullSecret?: string;
  /** The registry CA (PEM): image.config.openshift.io's additionalTrustedCA, key `updateservice-registry`. */
  registryCa?: string;
  /** Whether the cluster serves route.openshift.io. */
  routes: boolean;
}

export interface Operand {
  resource: Resource;
  object: KubeObject;
}

/** Where the pod finds what is mounted, and the one path it writes. */
export const POD_PATHS = {
  data: '/data',
  tmp: '/tmp',
  pullSecret: '/var/run/secrets/cincy/pull-secret',
  registryCa: '/etc/cincy/registry-ca',
} as const;

/** The key of the CA in the additionalTrustedCA ConfigMap, as the cincinnati-operator reads it. */
export const REGISTRY_CA_KEY = 'updateservice-registry';
/** The annotation on the pod template that changes when any input does, so that the pods roll. */
export const INPUTS_HASH_ANNOTATION = 'updateservice.operator.openshift.io/inputs-hash';
/** The label every object made carries: who manages it (the operator watches objects by it). */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'cincy-operator' } as const;
const PORT = 8080;
const SERVICE_PORT_NAME = 'policy-engine';

/** The objects for `us`, in the order they are applied (what the Deployment mounts comes before it). */
export function operands(us: UpdateService, image: string, inputs: ClusterInputs): Operand[] {
  const name = us.metadata.name;
  const namespace = us.metadata.namespace!;
  const names = operandNames(name);
  const spec = trimmedSpec(us.spec);
  const labels = { app: name, ...MANAGED_BY };
  const podLabels = { app: name, deployment: name };
  const meta = (objectName: string): KubeObject['metadata'] => ({
    name: objectName,
    namespace,
    labels,
    ownerReferences: [
      {
        apiVersion: 'updateservice.operator.openshift.io/v1',
        kind: 'UpdateService',
        name,
        uid: us.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  });
  const env: Record<string, string> = {
    CINCY_HOST: '0.0.0.0',
    CINCY_PORT: String(PORT),
    CINCY_DB: `${POD_PATHS.data}/cincy.db`,
    CINCY_RELEASES: spec.releases,
    CINCY_GRAPH_DATA_IMAGE: spec.graphDataImage,
    CINCY_LOG_FORMAT: 'json',
    ...(inputs.pullSecret && { CINCY_REGISTRY_CREDENTIALS: `${POD_PATHS.pullSecret}/config.json` }),
    ...(inputs.registryCa && { CINCY_REGISTRY_CA: `${POD_PATHS.registryCa}/ca.crt` }),
  };
  const out: Operand[] = [];
  if (inputs.pullSecret)
    out.push({
      resource: RESOURCES.secrets,
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: meta(names.pullSecret),
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': inputs.pullSecret },
      },
    });
  if (inputs.registryCa)
    out.push({
      resource: RESOURCES.configMaps,
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: meta(names.trustedCa),
        data: { [REGISTRY_CA_KEY]: inputs.registryCa },
      },
    });
  out.push({
    resource: RESOURCES.configMaps,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(names.env), data: env },
  });
  const inputsHash = createHash('sha256')
    .update(JSON.stringify([env, inputs.pullSecret ?? null, inputs.registryCa ?? null]))
    .digest('hex');
  out.push({
    resource: RESOURCES.deployments,
    object: deployment(meta(names.deployment), podLabels, image, us.spec.replicas, inputsHash, names, inputs),
  });
  out.push({
    resource: RESOURCES.services,
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(names.service),
      spec: {
        selector: podLabels,
        ports: [{ name: SERVICE_PORT_NAME, port: 80, targetPort: 'http', protocol: 'TCP' }],
      },
    },
  });
  out.push({
    resource: RESOURCES.podDisruptionBudgets,
    object: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta(names.podDisruptionBudget),
      // One pod may go for a node drain; with two or more, one always stays.
      spec: { minAvailable: us.spec.replicas >= 2 ? 1 : 0, selector: { matchLabels: podLabels } },
    },
  });
  if (inputs.routes)
    out.push({
      resource: RESOURCES.routes,
      object: {
        apiVersion: 'route.openshift.io/v1',
        kind: 'Route',
        metadata: meta(names.route),
        spec: {
          to: { kind: 'Service', name: names.service, weight: 100 },
          port: { targetPort: SERVICE_PORT_NAME },
          // The router ends TLS with the cluster's ingress certificate; the pod serves plain HTTP behind it.
          tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'None' },
          wildcardPolicy: 'None',
        },
      },
    });
  return out;
}

function deployment(
  metadata: KubeObject['metadata'],
  podLabels: Record<string, string>,
  image: string,
  replicas: number,
  inputsHash: string,
  names: ReturnType<typeof operandNames>,
  inputs: ClusterInputs,
): KubeObject {
  const probe = (path: string, periodSeconds: number, failureThreshold: number): object => ({
    httpGet: { path, port: 'http' },
    periodSeconds,
    timeoutSeconds: 3,
    failureThreshold,
  });
  const mounts = [
    { name: 'data', mountPath: POD_PATHS.data },
    { name: 'tmp', mountPath: POD_PATHS.tmp },
    ...(inputs.pullSecret ? [{ name: 'pull-secret', mountPath: POD_PATHS.pullSecret, readOnly: true }] : []),
    ...(inputs.registryCa ? [{ name: 'registry-ca', mountPath: POD_PATHS.registryCa, readOnly: true }] : []),
  ];
  const volumes = [
    { name: 'data', emptyDir: {} },
    { name: 'tmp', emptyDir: {} },
    ...(inputs.pullSecret
      ? [
          {
            name: 'pull-secret',
            secret: { secretName: names.pullSecret, items: [{ key: '.dockerconfigjson', path: 'config.json' }] },
          },
        ]
      : []),
    ...(inputs.registryCa
      ? [
          {
            name: 'registry-ca',
            configMap: { name: names.trustedCa, items: [{ key: REGISTRY_CA_KEY, path: 'ca.crt' }] },
          },
        ]
      : []),
  ];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata,
    spec: {
      replicas,
      selector: { matchLabels: podLabels },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels: podLabels, annotations: { [INPUTS_HASH_ANNOTATION]: inputsHash } },
        spec: {
          // cincy serve talks to no Kubernetes API; service links could shadow its CINCY_* settings.
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 30,
          // No UID or group of its own: restricted-v2 gives an arbitrary UID in group 0.
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'cincy',
              image,
              imagePullPolicy: 'IfNotPresent',
              args: ['serve'],
              envFrom: [{ configMapRef: { name: names.env } }],
              ports: [{ name: 'http', containerPort: PORT, protocol: 'TCP' }],
              startupProbe: probe('/livez', 2, 30),
              livenessProbe: probe('/livez', 10, 3),
              readinessProbe: probe('/readyz', 5, 2),
              lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
              resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
    },
  };
}
