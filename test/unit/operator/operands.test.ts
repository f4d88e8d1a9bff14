// What the operator makes of an UpdateService (src/operator/operands.ts): pure, no cluster. The spec's
// problems and the status rules it writes by are in updateService.test.ts.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/cluster/api.js';
import { INPUTS_HASH_ANNOTATION, operands, type ClusterInputs } from '../../../src/operator/operands.js';
import type { UpdateService } from '../../../src/operator/updateService.js';
import { CA, us } from '../../support/updateServices.js';

const all: ClusterInputs = { pullSecret: 'eyJhdXRocyI6e319', registryCa: CA, routes: true };

type Pod = {
  metadata: { annotations: Record<string, string> };
  spec: {
    securityContext: object;
    volumes: Array<{ name: string }>;
    containers: Array<{ args: string[]; securityContext: object; volumeMounts: Array<{ mountPath: string }> }>;
  };
};
const byKind = (objects: ReturnType<typeof operands>, kind: string): KubeObject =>
  objects.find((o) => o.object.kind === kind && !(kind === 'ConfigMap' && !o.object.metadata.name.endsWith('-env')))!
    .object;
const pod = (objects: ReturnType<typeof operands>): Pod =>
  (byKind(objects, 'Deployment').spec as { template: Pod }).template;

describe('operands', () => {
  it("makes OSUS's objects by its names, owned by the UpdateService, the settings as CINCY_* variables", () => {
    const objects = operands(us(), 'quay.example.com/cincy:1', all);
    expect(objects.map((o) => `${o.object.kind}/${o.object.metadata.name}`)).toEqual([
      'Secret/update-service-oc-mirror-pull-secret',
      'ConfigMap/update-service-oc-mirror-trusted-ca',
      'ConfigMap/update-service-oc-mirror-env',
      'Deployment/update-service-oc-mirror',
      'Service/update-service-oc-mirror-policy-engine',
      'PodDisruptionBudget/update-service-oc-mirror',
      'Route/update-service-oc-mirror-route',
    ]);
    for (const { object } of objects) {
      expect(object.metadata.namespace).toBe('openshift-update-service');
      expect(object.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'UpdateService', uid: 'u-1', controller: true }),
      ]);
      expect(object.metadata.labels).toMatchObject({
        app: 'update-service-oc-mirror',
        'app.kubernetes.io/managed-by': 'cincy-operator',
      });
    }
    expect(byKind(objects, 'ConfigMap').data).toEqual({
      CINCY_HOST: '0.0.0.0',
      CINCY_PORT: '8080',
      CINCY_DB: '/data/cincy.db',
      CINCY_RELEASES: 'mirror.example.com:8443/openshift/release-images',
      CINCY_GRAPH_DATA_IMAGE: 'mirror.example.com:8443/openshift/graph-image:latest',
      CINCY_LOG_FORMAT: 'json',
      CINCY_REGISTRY_CREDENTIALS: '/var/run/secrets/cincy/pull-secret/config.json',
      CINCY_REGISTRY_CA: '/etc/cincy/registry-ca/ca.crt',
    });
    expect(byKind(objects, 'Deployment').spec).toMatchObject({ replicas: 2 });
    // Pull specs written with spaces around them reach the pod without.
    const spaced = us();
    spaced.spec = {
      ...spaced.spec,
      releases: ` ${spaced.spec.releases}\t`,
      graphDataImage: `${spaced.spec.graphDataImage} `,
    };
    expect(byKind(operands(spaced, 'quay.example.com/cincy:1', all), 'ConfigMap').data).toMatchObject({
      CINCY_RELEASES: 'mirror.example.com:8443/openshift/release-images',
      CINCY_GRAPH_DATA_IMAGE: 'mirror.example.com:8443/openshift/graph-image:latest',
    });
  });

  it('runs under restricted-v2: no UID of its own, nothing writable but its emptyDirs, no escalation', () => {
    const template = pod(operands(us(), 'i', all));
    expect(template.spec.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const container = template.spec.containers[0]!;
    expect(container.args).toEqual(['serve']);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(JSON.stringify(template)).not.toMatch(/runAsUser|runAsGroup|fsGroup|hostPath|privileged/);
  });

  it('mounts the pull secret and the CA only when the cluster has them; no Route without routes', () => {
    const objects = operands(us({ replicas: 1 }), 'i', { routes: false });
    expect(objects.map((o) => o.object.kind)).toEqual(['ConfigMap', 'Deployment', 'Service', 'PodDisruptionBudget']);
    expect(Object.keys(byKind(objects, 'ConfigMap').data as object)).not.toContain('CINCY_REGISTRY_CA');
    expect(pod(objects).spec.volumes.map((v) => v.name)).toEqual(['data', 'tmp']);
    // One replica may go for a node drain; two or more keep one.
    expect(byKind(objects, 'PodDisruptionBudget').spec).toMatchObject({ minAvailable: 0 });
  });

  it('changes the pods (their template) when an input changes, and only then', () => {
    const hash = (s: UpdateService, i: ClusterInputs): string =>
      pod(operands(s, 'i', i)).metadata.annotations[INPUTS_HASH_ANNOTATION]!;
    const base = hash(us(), all);
    expect(hash(us(), { ...all })).toBe(base);
    expect(hash(us({ replicas: 5 }), all)).toBe(base);
    expect(
      hash(us({ graphDataImage: 'mirror.example.com:8443/openshift/graph-image@sha256:' + 'a'.repeat(64) }), all),
    ).not.toBe(base);
    expect(hash(us(), { ...all, registryCa: CA + CA })).not.toBe(base);
    expect(hash(us(), { ...all, pullSecret: 'e30=' })).not.toBe(base);
  });
});
