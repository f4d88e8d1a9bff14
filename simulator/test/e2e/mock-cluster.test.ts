// The mock cluster through the standard Kubernetes client, the way the agent and kubectl reach it:
// kubeconfig, discovery, get/list with selectors, status writes with optimistic concurrency, merge
// patches, watch, persistence across a restart, and the metrics Prometheus scrapes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { serveMock, type Mock, CV } from '../../../test/support/mock.js';
import { useCleanup } from '../../../test/support/cli.js';

const cleanup = useCleanup();

async function start(args: string[] = [], dir = cleanup.dir()): Promise<Mock & { dir: string }> {
  return { ...(await serveMock(['--state', join(dir, 'state.json'), ...args], dir, cleanup)), dir };
}

describe('mock cluster', () => {
  it('serves the default inventory to the standard client through the kubeconfig it writes', async () => {
    const m = await start(['--version', '4.16.3', '--channel', 'stable-4.16']);
    const core = m.kc.makeApiClient(k8s.CoreV1Api);
    const workers = await core.listNode({ labelSelector: 'node-role.kubernetes.io/worker' });
    expect(workers.items.map((n) => n.metadata!.name)).toEqual(['worker-0', 'worker-1', 'worker-2']);
    expect(new Set(workers.items.map((n) => n.metadata!.labels!['topology.kubernetes.io/zone'])).size).toBe(3);
    expect(
      (
        await core.listNode({
          labelSelector: 'topology.kubernetes.io/zone in (us-east-1a,us-east-1b),!node-role.kubernetes.io/worker',
        })
      ).items.map((n) => n.metadata!.name),
    ).toEqual(['master-0', 'master-1']);
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const cv = (await custom.getClusterCustomObject(CV)) as {
      spec: { channel: string; clusterID: string };
      status: { desired: { version: string }; history: unknown[] };
    };
    expect(cv.spec.channel).toBe('stable-4.16');
    expect(cv.spec.clusterID).toMatch(/^[0-9a-f-]{36}$/);
    expect(cv.status.desired.version).toBe('4.16.3');
    const operators = (await custom.listClusterCustomObject({
      group: 'config.openshift.io',
      version: 'v1',
      plural: 'clusteroperators',
    })) as { items: unknown[] };
    expect(operators.items.length).toBeGreaterThanOrEqual(30);
    const pools = (await custom.listClusterCustomObject({
      group: 'machineconfiguration.openshift.io',
      version: 'v1',
      plural: 'machineconfigpools',
    })) as { items: Array<{ metadata: { name: string } }> };
    expect(pools.items.map((p) => p.metadata.name)).toEqual(['master', 'worker']);
  });

  it('writes status through the subresource with resourceVersion conflicts, and merge-patches', async () => {
    const m = await start();
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const cv = (await custom.getClusterCustomObject(CV)) as k8s.KubernetesObject & {
      status: Record<string, unknown>;
      spec: Record<string, unknown>;
    };
    const updated = (await custom.replaceClusterCustomObjectStatus({
      ...CV,
      body: {
        ...cv,
        status: { ...cv.status, availableUpdates: [{ version: '4.16.4' }] },
        spec: { channel: 'ignored' },
      },
    })) as typeof cv;
    expect(updated.status.availableUpdates).toEqual([{ version: '4.16.4' }]);
    expect(updated.spec.channel).toBe(cv.spec.channel); // the status subresource never changes spec
    await expect(custom.replaceClusterCustomObjectStatus({ ...CV, body: cv })).rejects.toMatchObject({ code: 409 });
    const patched = (await custom.patchClusterCustomObject(
      { ...CV, body: { spec: { channel: 'fast-4.16' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as typeof cv & { metadata: { generation: number } };
    expect(patched.spec.channel).toBe('fast-4.16');
    expect(patched.metadata.generation).toBe(2);
    expect(patched.status.availableUpdates).toEqual([{ version: '4.16.4' }]);
  });

  it('streams watch events and keeps its state across a restart', async () => {
    const m = await start();
    const events: string[] = [];
    const watch = new k8s.Watch(m.kc);
    const req = await watch.watch(
      '/apis/config.openshift.io/v1/clusterversions',
      {},
      (type, obj: { spec: { channel?: string } }) => events.push(`${type}:${obj.spec.channel ?? ''}`),
      () => undefined,
    );
    const core = m.kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'x', labels: { a: 'b' } }, data: { k: 'v' } },
    });
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    await custom.patchClusterCustomObject(
      { ...CV, body: { spec: { channel: 'candidate-4.17' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    for (let i = 0; i < 50 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    req.abort();
    expect(events).toEqual(['ADDED:', 'MODIFIED:candidate-4.17']);
    await m.stop();

    const again = await start([], m.dir);
    const cm = await again.kc.makeApiClient(k8s.CoreV1Api).readNamespacedConfigMap({ namespace: 'default', name: 'x' });
    expect(cm.data).toEqual({ k: 'v' });
    const cv = (await again.kc.makeApiClient(k8s.CustomObjectsApi).getClusterCustomObject(CV)) as {
      spec: { channel: string };
    };
    expect(cv.spec.channel).toBe('candidate-4.17');
    await expect(
      again.kc
        .makeApiClient(k8s.CoreV1Api)
        .createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'x' } } }),
    ).rejects.toMatchObject({ code: 409 });
  });

  it('reports an object entering and leaving a selective watch as ADDED and DELETED', async () => {
    const m = await start();
    const events: string[] = [];
    const req = await new k8s.Watch(m.kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { labelSelector: 'team=a' },
      (type, obj: { metadata: { name: string } }) => events.push(`${type}:${obj.metadata.name}`),
      () => undefined,
    );
    const core = m.kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'c', labels: { team: 'b' } } },
    });
    const patch = (team: string): Promise<unknown> =>
      core.patchNamespacedConfigMap(
        { namespace: 'default', name: 'c', body: { metadata: { labels: { team } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    await patch('a');
    await patch('b');
    for (let i = 0; i < 50 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    req.abort();
    expect(events).toEqual(['ADDED:c', 'DELETED:c']);
  });

  it('serves HTTPS with its own CA by default, which the kubeconfig carries', async () => {
    const m = await start();
    expect(m.url).toMatch(/^https:/);
    const nodes = await m.kc.makeApiClient(k8s.CoreV1Api).listNode();
    expect(nodes.items).toHaveLength(6);
    await expect(fetch(`${m.url}/healthz`)).rejects.toThrow(); // not trusted without the CA
    const kubeconfig = readFileSync(m.kubeconfig, 'utf8');
    expect(kubeconfig).toContain('certificate-authority-data');
    expect(kubeconfig).not.toContain('insecure-skip-tls-verify');
  });

  it('without --state, makes its certificate in a temporary folder and leaves nothing there', async () => {
    const tmp = cleanup.dir();
    const m = await serveMock([], cleanup.dir(), cleanup, { TMPDIR: tmp });
    expect(m.url).toMatch(/^https:/);
    expect(await m.kc.makeApiClient(k8s.CoreV1Api).listNode()).toHaveProperty('items');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('serves the cluster-level series real risks query, from its state (here over plain HTTP, with auth)', async () => {
    const m = await start(['--plain-http', '--version', '4.16.3', '--installed-version', '4.9.0', '--platform', 'GCP']);
    expect((await fetch(`${m.url}/api/v1/nodes`)).status).toBe(401);
    expect(readFileSync(m.kubeconfig, 'utf8')).toContain('insecure-skip-tls-verify');
    expect((await fetch(`${m.url}/metrics`)).status).toBe(401); // behind the token, like the API
    const auth = { authorization: `Bearer ${m.kc.getCurrentUser()!.token!}` };
    const text = await (await fetch(`${m.url}/metrics`, { headers: auth })).text();
    expect(text).toMatch(/^cluster_version\{type="current",version="4.16.3",image="[^"]+"\} 1$/m);
    expect(text).toMatch(/^cluster_version\{type="initial",version="4.9.0",image="[^"]+"\} 1$/m);
    expect(text).toContain('cluster_infrastructure_provider{type="GCP",region="us-east-1"} 1');
    expect(text).toContain('cluster_operator_conditions{name="etcd",condition="Degraded",reason="AsExpected"} 0');
    expect(text).toContain('cluster_version_capability{name="Console"} 1');
    expect(text).toContain('kube_node_labels{node="worker-0",');
    expect(text).toContain('apiserver_storage_objects{resource="clusteroperators.config.openshift.io"} 33');
    expect(readFileSync(join(m.dir, 'kubeconfig'), 'utf8')).toContain(m.url);
  });
});
