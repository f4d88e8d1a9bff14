// What the operator makes of an UpdateService, and the status rules it writes by: pure, no cluster.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/cluster/api.js';
import { certificateProblem } from '../../../src/operator/clusterInputs.js';
import { INPUTS_HASH_ANNOTATION, operands, type ClusterInputs } from '../../../src/operator/operands.js';
import { setUpdateServiceCondition, specProblems, type UpdateService } from '../../../src/operator/updateService.js';

const us = (spec: Partial<UpdateService['spec']> = {}): UpdateService => ({
  apiVersion: 'updateservice.operator.openshift.io/v1',
  kind: 'UpdateService',
  metadata: { name: 'update-service-oc-mirror', namespace: 'openshift-update-service', uid: 'u-1' },
  spec: {
    releases: 'mirror.example.com:8443/openshift/release-images',
    graphDataImage: 'mirror.example.com:8443/openshift/graph-image:latest',
    replicas: 2,
    ...spec,
  },
});
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
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

describe('the UpdateService spec and status', () => {
  it('names each field a spec cannot be served with', () => {
    expect(specProblems(us().spec)).toEqual([]);
    expect(specProblems({ releases: 'release-images', graphDataImage: 'mirror.example.com/g', replicas: 0 })).toEqual([
      "spec.releases: 'release-images' names no repository: expected HOST[:PORT]/REPOSITORY",
      "spec.graphDataImage: 'mirror.example.com/g' names no image version: add :TAG or @sha256:DIGEST",
      'spec.replicas: a whole number, 1 or more',
    ]);
    expect(
      specProblems({ releases: 'https://mirror.example.com/r', graphDataImage: 'mirror.example.com/g:1', replicas: 1 }),
    ).toEqual(['spec.releases: a pull spec names no scheme']);
  });

  it('keeps a condition as it was while nothing of it changes; a new status moves its transition time', () => {
    const first = setUpdateServiceCondition(
      [],
      { type: 'ReconcileCompleted', status: 'True', reason: 'Success', message: '' },
      't1',
    );
    expect(
      setUpdateServiceCondition(
        first,
        { type: 'ReconcileCompleted', status: 'True', reason: 'Success', message: '' },
        't2',
      ),
    ).toEqual(first);
    const msg = setUpdateServiceCondition(
      first,
      { type: 'ReconcileCompleted', status: 'True', reason: 'Success', message: 'x' },
      't3',
    );
    expect(msg[0]).toMatchObject({ lastTransitionTime: 't1', lastHeartbeatTime: 't3' });
    const failed = setUpdateServiceCondition(
      msg,
      { type: 'ReconcileCompleted', status: 'False', reason: 'InvalidSpec' },
      't4',
    );
    expect(failed[0]).toMatchObject({ lastTransitionTime: 't4', lastHeartbeatTime: 't4' });
    const three = setUpdateServiceCondition(
      setUpdateServiceCondition(failed, { type: 'ReconcileError', status: 'True' }, 't5'),
      { type: 'RegistryCACertFound', status: 'False' },
      't5',
    );
    expect(three.map((c) => c.type)).toEqual(['ReconcileCompleted', 'RegistryCACertFound', 'ReconcileError']);
  });

  it('refuses a CA that is no PEM certificate', () => {
    expect(certificateProblem('hello')).toBe('no PEM certificate (-----BEGIN CERTIFICATE-----)');
    expect(certificateProblem(CA)).toMatch(/^certificate 1 cannot be read/);
  });
});
