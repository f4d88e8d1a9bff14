// The mock cluster's API server against a real kube-apiserver (../shared/kube): the same requests sent to
// both, their answers compared. Where they differ the mock is wrong, since a real cluster answers as the
// real server does; it is what hid the ClusterVersion wipe (the mock did not prune). Each case reduces an
// answer to what a client acts on (status and reason of an error, fields dropped, events seen), so that
// what both servers may word or number differently (uids, resourceVersions, times) is not compared.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterApiError, type ClusterApi, type KubeObject, type WatchEvent } from 'cincy/cluster/api';
import { droppedFields } from 'cincy/cluster/dropped';
import { RESOURCES } from 'cincy/cluster/resources';
import { clusterApi, loadKubeConfig } from 'cincy/cli/kubeconfig';
import { useCleanup } from '../../../test/support/cli.js';
import { kubectl, kubectlAvailable } from '../../../test/support/kubectl.js';
import { serveMock } from '../../../test/support/mock.js';
import { realApiServerAvailable, startRealApiServer } from '../../../test/support/realApiServer.js';
import { image } from '../../../test/support/updateFixtures.js';

const cleanup = useCleanup();
const CV = RESOURCES.clusterVersions;
const CRDS = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  namespaced: false,
};
const NS = 'conformance';

interface Server {
  name: 'mock' | 'real';
  api: ClusterApi;
  kubeconfig: string;
}

/** What a client acts on in a failed call: the status, the reason, and each cause's field and reason. */
function failure(err: unknown): object {
  if (!(err instanceof ClusterApiError)) throw err;
  return {
    status: err.status,
    reason: err.reason,
    details: err.details && {
      name: err.details.name,
      group: err.details.group,
      kind: err.details.kind,
      causes: err.details.causes?.map((c) => ({ reason: c.reason, field: c.field })),
    },
  };
}

const answerOf = async (call: () => Promise<unknown>): Promise<unknown> => {
  try {
    return { ok: await call() };
  } catch (err) {
    return { failed: failure(err) };
  }
};

const clusterVersion = (name: string, spec: object, more: object = {}): KubeObject => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ClusterVersion',
  metadata: { name },
  spec: { clusterID: randomUUID(), ...spec },
  ...more,
});

/** A CRD using every x-kubernetes-* key a payload's CRDs do: stored as sent, or a cluster is damaged. */
const WIDGETS = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.conformance.cincy.io' },
  spec: {
    group: 'conformance.cincy.io',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Cluster',
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
              spec: {
                type: 'object',
                'x-kubernetes-validations': [{ rule: 'self.size >= 0', message: 'size is never negative' }],
                properties: {
                  size: { type: 'integer' },
                  port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  parts: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
                  },
                  labels: {
                    type: 'object',
                    'x-kubernetes-map-type': 'granular',
                    additionalProperties: { type: 'string' },
                  },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

/** Each case: what it does, and the answer it reduces to. Cases run in this order on each server. */
const CASES: Array<[string, (s: Server) => Promise<unknown>]> = [
  [
    'a CRD with x-kubernetes-* keys is stored whole (round trip)',
    async ({ api }) =>
      answerOf(async () => {
        const stored = await api.create<KubeObject>(CRDS, WIDGETS);
        const read = await api.get<KubeObject>(CRDS, { name: WIDGETS.metadata.name });
        return {
          droppedOnCreate: droppedFields(WIDGETS.spec, stored.spec),
          droppedOnRead: droppedFields(WIDGETS.spec, read.spec),
        };
      }),
  ],
  [
    'create: fields the schema does not declare are pruned',
    async ({ api }) =>
      answerOf(async () => {
        const sent = clusterVersion('conformance-a', {
          channel: 'stable-4.16',
          bogus: 1,
          desiredUpdate: { version: '4.16.5', force: false, bogus: true },
        });
        return droppedFields(sent, await api.create(CV, sent)).sort();
      }),
  ],
  [
    'status subresource: undeclared status fields are pruned',
    async ({ api }) =>
      answerOf(async () => {
        const cv = await api.get<KubeObject & { status?: object }>(CV, { name: 'conformance-a' });
        const status = {
          desired: { version: '4.16.5', image: image('4.16.5'), bogus: 'x' },
          history: [],
          observedGeneration: 1,
          versionHash: '',
          capabilities: {},
          availableUpdates: null,
          bogusTop: 1,
          conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', extra: 1 }],
        };
        return droppedFields(status, (await api.replaceStatus(CV, { ...cv, status })).status).sort();
      }),
  ],
  [
    'status subresource: a write of the object keeps its status, a write of status keeps its spec',
    async ({ api }) =>
      answerOf(async () => {
        const cv = await api.get<KubeObject & { spec: { channel?: string }; status?: { desired?: object } }>(CV, {
          name: 'conformance-a',
        });
        const main = await api.replace(CV, { ...cv, spec: { ...cv.spec, channel: 'fast-4.16' }, status: {} });
        const status = await api.replaceStatus(CV, { ...main, spec: { ...cv.spec, channel: 'eus-4.16' } });
        return {
          statusKept: !!(main as { status?: { desired?: object } }).status?.desired,
          channel: (status as typeof cv).spec.channel,
        };
      }),
  ],
  [
    'a stale resourceVersion is a conflict',
    async ({ api }) =>
      answerOf(async () => {
        const cv = await api.get<KubeObject>(CV, { name: 'conformance-a' });
        return api.replace(CV, { ...cv, metadata: { ...cv.metadata, resourceVersion: '1' } });
      }),
  ],
  [
    'an object that does not exist is a 404 naming it',
    async ({ api }) => answerOf(() => api.get(CV, { name: 'nope' })),
  ],
  [
    'a required field missing is a 422 naming it',
    async ({ api }) =>
      answerOf(() =>
        api.create(CV, {
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterVersion',
          metadata: { name: 'conformance-b' },
          spec: {},
        }),
      ),
  ],
  [
    'a CEL rule of the CRD (x-kubernetes-validations) refuses what it forbids',
    async ({ api }) =>
      answerOf(() =>
        api.create(
          CV,
          clusterVersion('conformance-c', { desiredUpdate: { architecture: 'Multi', image: 'x', version: '' } }),
        ),
      ),
  ],
  [
    'dry run stores nothing',
    async ({ api, kubeconfig }) => {
      const cv = clusterVersion('conformance-dry', {});
      const r = await kubectl(kubeconfig, ['create', '--dry-run=server', '-o', 'name', '-f', '-'], JSON.stringify(cv));
      return {
        printed: r.stdout.trim(),
        code: r.code,
        stored: await answerOf(() => api.get(CV, { name: 'conformance-dry' })),
      };
    },
  ],
  [
    'server-side apply records the field manager; an update adds its own',
    async ({ api }) =>
      answerOf(async () => {
        await api.create(RESOURCES.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
        const body = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'applied', namespace: NS },
          data: { a: '1' },
        };
        const applied = await api.patch<KubeObject>(
          RESOURCES.configMaps,
          { name: 'applied', namespace: NS },
          { type: 'apply', body, force: true },
        );
        const updated = await api.replace<KubeObject>(RESOURCES.configMaps, {
          ...applied,
          data: { a: '1', b: '2' },
        } as KubeObject);
        const managers = (o: KubeObject): unknown =>
          ((o.metadata as { managedFields?: Array<{ manager: string; operation: string }> }).managedFields ?? [])
            .map((f) => `${f.manager}:${f.operation}`)
            .sort();
        return { applied: managers(applied), updated: managers(updated) };
      }),
  ],
  [
    'a watch sees ADDED, MODIFIED and DELETED in order',
    async ({ api }) => {
      const events: string[] = [];
      const stop = new AbortController();
      const ended = api.watch(
        RESOURCES.configMaps,
        { namespace: NS, labelSelector: 'watched=yes' },
        (e: WatchEvent) => void (e.type !== 'BOOKMARK' && events.push(`${e.type} ${e.object.metadata.name}`)),
        stop.signal,
      );
      await new Promise((r) => setTimeout(r, 500));
      const key = { name: 'watched', namespace: NS };
      const made = await api.create<KubeObject>(RESOURCES.configMaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { ...key, labels: { watched: 'yes' } },
        data: { a: '1' },
      });
      await api.replace(RESOURCES.configMaps, { ...made, data: { a: '2' } } as KubeObject);
      await api.delete(RESOURCES.configMaps, key);
      for (let i = 0; i < 40 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
      stop.abort();
      await ended;
      return events;
    },
  ],
  [
    'a CRD replaced with a poorer schema prunes the objects of its kind',
    async ({ api }) =>
      answerOf(async () => {
        const crd = await api.get<KubeObject & { spec: { versions: Array<Record<string, unknown>> } }>(CRDS, {
          name: 'clusterversions.config.openshift.io',
        });
        const poorer = {
          type: 'object',
          properties: { spec: { type: 'object' }, status: { type: 'object' } },
        };
        const versions = crd.spec.versions.map((v) => ({ ...v, schema: { openAPIV3Schema: poorer } }));
        await api.replace(CRDS, { ...crd, spec: { ...crd.spec, versions } } as KubeObject);
        for (let i = 0; i < 50; i++) {
          const cv = await api.get<KubeObject & { spec: object; status?: object }>(CV, { name: 'conformance-a' });
          if (Object.keys(cv.spec).length === 0) return { spec: cv.spec, status: cv.status };
          await new Promise((r) => setTimeout(r, 100));
        }
        return 'never pruned';
      }),
  ],
];

describe.runIf(realApiServerAvailable() && kubectlAvailable())('the mock API server answers as kube-apiserver', () => {
  const servers: Server[] = [];
  const answers = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    const dir = cleanup.dir();
    const real = await startRealApiServer(join(dir, 'real'), cleanup);
    const mock = await serveMock(['--version', '4.15.9', '--image', image('4.15.9')], dir, cleanup);
    for (const [name, kubeconfig] of [
      ['mock', mock.kubeconfig],
      ['real', real.kubeconfig],
    ] as const)
      servers.push({ name, kubeconfig, api: clusterApi(loadKubeConfig({ kubeconfig }), 'cincy-conformance') });
    for (const [what, run] of CASES) {
      const row: Record<string, unknown> = {};
      for (const s of servers) row[s.name] = await run(s);
      answers.set(what, row);
    }
  }, 180_000);

  afterAll(() => {
    // The table for the record: each request kind and whether the two servers agreed.
    for (const [what, row] of answers)
      console.log(`${JSON.stringify(row.mock) === JSON.stringify(row.real) ? 'same     ' : 'DIFFERENT'} ${what}`);
  });

  it('on the real server: a CRD keeps every x-kubernetes-* key, undeclared fields are pruned, a poorer CRD wipes', () => {
    const real = (what: string): unknown => answers.get(what)!.real;
    expect(real(CASES[0]![0])).toEqual({ ok: { droppedOnCreate: [], droppedOnRead: [] } });
    expect(real(CASES[1]![0])).toEqual({ ok: ['spec.bogus', 'spec.desiredUpdate.bogus'] });
    expect(real(CASES[2]![0])).toEqual({ ok: ['bogusTop', 'conditions[0].extra', 'desired.bogus'] });
    expect(real(CASES.at(-1)![0])).toEqual({ ok: { spec: {}, status: {} } });
  });

  for (const [what] of CASES)
    it(what, () => {
      const row = answers.get(what)!;
      expect(row.mock).toEqual(row.real);
    });
});
