// What the agent writes can never damage the cluster through a CRD's schema (src/agent/update/apply.ts, and
// the status write of src/agent/clusterVersion.ts), on the simulated API server, which prunes as
// kube-apiserver does (simulator/test/e2e/api-server-conformance checks that it does): a payload CRD that
// would prune objects of its kind is not applied, and a status write the server prunes is an error rather
// than "written". The payload that cannot be retrieved is in retrieval.test.ts.
import { describe, expect, it } from 'vitest';
import { ClusterVersionClient } from '../../../../src/agent/clusterVersion.js';
import { applyManifest } from '../../../../src/agent/update/apply.js';
import type { OperatorContext } from '../../../../src/agent/update/context.js';
import type { KubeObject } from '../../../../src/cluster/api.js';
import { DroppedFieldsError } from '../../../../src/cluster/dropped.js';
import { useOperatorRig } from '../../../support/operatorContext.js';

const rig = useOperatorRig();
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false };
const CV_CRD = 'clusterversions.config.openshift.io';
const MANIFEST = {
  file: '0000_00_cluster-version-operator_01_clusterversion.crd.yaml',
  runlevel: 0,
  component: 'cvo',
  docs: [],
};

/** The ClusterVersion CRD as stored, with every version's schema replaced by `schema`. */
async function crdWithSchema(ctx: OperatorContext, schema: object): Promise<KubeObject> {
  const crd = await ctx.api.get<KubeObject & { spec: { versions: object[] } }>(CRDS, { name: CV_CRD });
  const versions = crd.spec.versions.map((v) => ({ ...v, schema: { openAPIV3Schema: schema } }));
  return {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata: { name: CV_CRD },
    spec: { ...crd.spec, versions },
  };
}

const POORER = { type: 'object', properties: { spec: { type: 'object' }, status: { type: 'object' } } };

describe('CRD writes that would damage the cluster', () => {
  it('does not apply a CRD whose schema would prune the ClusterVersion, naming what it would lose', async () => {
    const { cluster, ctx } = await rig();
    const before = cluster.cv();
    const poorer = await crdWithSchema(ctx, POORER);
    await expect(applyManifest(ctx, poorer, MANIFEST)).rejects.toThrow(
      /applying the CustomResourceDefinition clusterversions\.config\.openshift\.io would prune 1 object\(s\) of its kind: version \(spec\.clusterID, spec\.channel, .*\); not applied/,
    );
    // Nothing changed: the stored schema is the old one, and the ClusterVersion is whole.
    const stored = await ctx.api.get<{ spec: { versions: Array<{ schema: unknown }> } }>(CRDS, { name: CV_CRD });
    expect(stored.spec.versions[0]!.schema).not.toEqual({ openAPIV3Schema: POORER });
    expect(cluster.cv()).toEqual(before);
  });

  it('applies a CRD that keeps every field of the objects of its kind', async () => {
    const { cluster, ctx } = await rig();
    const keeping = await crdWithSchema(ctx, {
      type: 'object',
      properties: {
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    await expect(applyManifest(ctx, keeping, MANIFEST)).resolves.toMatchObject({ created: false });
    expect(cluster.cv().spec.clusterID).toBeTruthy();
  });

  it('calls a status write the server pruned an error, naming the fields, not a success', async () => {
    const { cluster, ctx } = await rig();
    // The poorer schema put in place behind the agent's back (as the old client library's stripped CRD did).
    const crd = await ctx.api.get<KubeObject>(CRDS, { name: CV_CRD });
    const poorer = await crdWithSchema(ctx, {
      type: 'object',
      properties: {
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: {
          type: 'object',
          properties: {
            conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    });
    await ctx.api.replace(CRDS, {
      ...poorer,
      metadata: { ...poorer.metadata, resourceVersion: crd.metadata.resourceVersion },
    });
    const write = new ClusterVersionClient(ctx.api).writeStatus((s) => ({ ...s, availableUpdates: [] }));
    await expect(write).rejects.toBeInstanceOf(DroppedFieldsError);
    await expect(
      new ClusterVersionClient(ctx.api).writeStatus((s) => ({ ...s, availableUpdates: [] })),
    ).rejects.toThrow(
      /the API server stored the ClusterVersion version without status\.availableUpdates.*: its CustomResourceDefinition's schema does not declare them/,
    );
    expect(cluster.cv().status.conditions?.length).toBeGreaterThan(0); // what the schema declares stays
  });
});
