// What the agent writes can never damage the cluster through a CRD's schema, on the simulated API server,
// which prunes as kube-apiserver does (simulator/test/e2e/api-server-conformance checks that it does): a
// payload CRD that would prune objects of its kind is not applied, and a status write the server prunes is an
// error rather than "written". And the payload that cannot be retrieved says why, in words an administrator
// can act on: the Job's namespace missing, the registry refusing the pull.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClusterVersionClient } from '../../../../src/agent/clusterVersion.js';
import { applyManifest } from '../../../../src/agent/update/apply.js';
import { OperatorContext } from '../../../../src/agent/update/context.js';
import type { PayloadRetrieval } from '../../../../src/agent/update/context.js';
import { retrievePayload } from '../../../../src/agent/update/retrieval.js';
import { ReleaseVerifier } from '../../../../src/agent/update/verify.js';
import type { KubeObject } from '../../../../src/cluster/api.js';
import { DroppedFieldsError } from '../../../../src/cluster/dropped.js';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { PayloadStore } from '../../../../src/payload/store.js';
import { TrustStore } from '../../../../src/signatures/verify.js';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { useCleanup } from '../../../support/cleanup.js';
import { image } from '../../../support/updateFixtures.js';

const cleanup = useCleanup();
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false };
const CV_CRD = 'clusterversions.config.openshift.io';
const MANIFEST = {
  file: '0000_00_cluster-version-operator_01_clusterversion.crd.yaml',
  runlevel: 0,
  component: 'cvo',
  docs: [],
};

async function rig(
  retrieval: PayloadRetrieval = { kind: 'job' },
): Promise<{ cluster: InProcessCluster; ctx: OperatorContext }> {
  const cluster = await InProcessCluster.start({
    version: '4.15.9',
    image: image('4.15.9'),
    channel: 'stable-4.16',
    payloadStore: cleanup.dir(),
  });
  cleanup.add(() => cluster.close());
  const { api } = cluster.client();
  const ctx = new OperatorContext({
    api,
    clock: new ManualClock(),
    payloads: new PayloadStore(cleanup.dir()),
    retrieval,
    verifier: new ReleaseVerifier(TrustStore.empty(), api, []),
    workers: 1,
    log: pino({ level: 'silent' }),
  });
  return { cluster, ctx };
}

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

describe('a payload that cannot be retrieved', () => {
  const release = { version: '4.16.5', image: image('4.16.5') };

  it('names the Job and the missing namespace when the cluster has no openshift-cluster-version', async () => {
    const { ctx } = await rig({ kind: 'job' });
    await ctx.api.delete(
      { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
      { name: 'openshift-cluster-version' },
    );
    expect(await retrievePayload(ctx, release)).toMatch(
      /^could not create the Job openshift-cluster-version\/version-4\.16\.5-\w+: namespaces "openshift-cluster-version" not found \(HTTP 404\)$/,
    );
  });

  it('names the image and the registry failure when the agent pulls it itself', async () => {
    const { ctx } = await rig({
      kind: 'pull',
      registry: { plainHttp: new Set(['127.0.0.1:9']), retries: 0, timeoutMs: 2_000 },
    });
    const pulled = { version: '4.16.5', image: `127.0.0.1:9/ocp/release@sha256:${'a'.repeat(64)}` };
    expect(await retrievePayload(ctx, pulled)).toMatch(
      /^pulling the release image 127\.0\.0\.1:9\/ocp\/release@sha256:a{64} failed: .*127\.0\.0\.1:9/,
    );
    expect(ctx.payloads.has(pulled.image)).toBe(false);
  });
});
