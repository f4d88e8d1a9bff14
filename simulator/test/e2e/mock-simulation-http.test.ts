// The mock cluster's simulation over HTTP on a scaled clock, as `cincy mock-cluster` runs it (a process):
// the generic client through discovery, an operator updated, the master pool rolled across a restart, read
// back with `cincy get`. The controllers on explicit simulated times are in simulator/test/unit/controllers/.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { renderedConfig } from '@cincy/simulator/controllers/mco';
import { cincy, cincyAsync, useCleanup } from '../../../test/support/cli.js';
import { serveMock } from '../../../test/support/mock.js';
import { OLD, NEW } from '../support/simulation.js';

const cleanup = useCleanup();

describe('the mock cluster over HTTP, on a scaled clock', () => {
  it('serves the new kinds to the generic client through discovery', async () => {
    const dir = cleanup.dir();
    const m = await serveMock(['--plain-http', '--state', join(dir, 'state.json')], dir, cleanup);
    const api = k8s.KubernetesObjectApi.makeApiClient(m.kc);
    const spec = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    };
    await api.create(spec);
    const read = (await api.read({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
    })) as k8s.V1Deployment;
    expect(read.spec?.replicas).toBe(2);
    for (const [apiVersion, kind, namespace] of [
      ['rbac.authorization.k8s.io/v1', 'ClusterRole', undefined],
      ['v1', 'ServiceAccount', 'default'],
      ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined],
    ] as const) {
      await api.create({ apiVersion, kind, metadata: { name: 'x', ...(namespace && { namespace }) } });
      expect(
        (await api.read({ apiVersion, kind, metadata: { name: 'x', ...(namespace && { namespace }) } })).metadata?.name,
      ).toBe('x');
    }
    // RBAC names carry colons, which the client percent-encodes in the path.
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:openshift:operator:dns' },
    };
    await api.create(role);
    expect((await api.read(role)).metadata?.name).toBe('system:openshift:operator:dns');
    await api.replace({ ...role, rules: [] });
  });

  it('updates an operator when its Deployment runs a new release, and `cincy get` shows it', async () => {
    const dir = cleanup.dir();
    const m = await serveMock(
      ['--time-scale', '600', '--plain-http', '--state', join(dir, 'state.json')],
      dir,
      cleanup,
    );
    const core = m.kc.makeApiClient(k8s.CoreV1Api);
    const clock = await core.readNamespacedConfigMap({ namespace: 'openshift-config', name: 'cincy-mock-clock' });
    expect(clock.data?.scale).toBe('600');
    const apps = m.kc.makeApiClient(k8s.AppsV1Api);
    const all = await apps.listDeploymentForAllNamespaces();
    const dns = all.items.find((d) => d.metadata?.annotations?.['operator.cincy.io/cluster-operator'] === 'dns')!;
    dns.spec!.template.spec!.containers[0]!.env = dns.spec!.template.spec!.containers[0]!.env!.map((e) =>
      e.name === 'RELEASE_VERSION' ? { name: e.name, value: NEW } : e,
    );
    await apps.replaceNamespacedDeployment({
      namespace: dns.metadata!.namespace!,
      name: dns.metadata!.name!,
      body: dns,
    });
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const dnsCo = async (): Promise<{ status: { versions: Array<{ version: string }> } }> =>
      (await custom.getClusterCustomObject({
        group: 'config.openshift.io',
        version: 'v1',
        plural: 'clusteroperators',
        name: 'dns',
      })) as never;
    const started = Date.now();
    while ((await dnsCo()).status.versions[0]!.version !== NEW && Date.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    expect((await dnsCo()).status.versions[0]!.version).toBe(NEW);

    const get = (...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      cincyAsync(['get', ...args, '--kubeconfig', m.kubeconfig]);
    const [co, nodes, mcp, cv, json, pods, nope] = await Promise.all([
      get('co'),
      get('nodes'),
      get('mcp'),
      get('clusterversion'),
      get('co', 'dns', '-o', 'json'),
      get('pods'),
      get('co', 'nope'),
    ]);
    expect(co.stdout.split('\n')[0]).toMatch(/^NAME +VERSION +AVAILABLE +PROGRESSING +DEGRADED +SINCE +MESSAGE$/);
    expect(co.stdout).toMatch(/^dns +4\.16\.5 +True +False +False +\d+d$/m);
    expect(co.stdout).toMatch(/^etcd +4\.16\.3 +True +False +False +\d+d$/m);
    expect(nodes.stdout.split('\n')[0]).toMatch(/^NAME +STATUS +ROLES +AGE +VERSION$/);
    expect(nodes.stdout).toMatch(/^master-0 +Ready +control-plane,master +\d+d +v1\.29\.\d+\+[0-9a-f]{7}$/m);
    expect(mcp.stdout.split('\n')[0]).toMatch(
      /^NAME +CONFIG +UPDATED +UPDATING +DEGRADED +MACHINECOUNT +READYMACHINECOUNT +UPDATEDMACHINECOUNT +DEGRADEDMACHINECOUNT +AGE$/,
    );
    expect(mcp.stdout).toMatch(
      new RegExp(`^worker +${renderedConfig('worker', OLD)} +True +False +False +3 +3 +3 +0 +\\d+d$`, 'm'),
    );
    expect(cv.stdout).toMatch(
      /^NAME +VERSION +AVAILABLE +PROGRESSING +SINCE +STATUS\nversion +4\.16\.3 +True +False +\d+d +Cluster version is 4\.16\.3\n$/,
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ metadata: { name: 'dns' } });
    expect(pods).toMatchObject({ code: 1, stderr: expect.stringContaining("unknown resource type 'pods'") });
    expect(nope).toMatchObject({ code: 1, stderr: expect.stringContaining('"nope" not found') });
  });

  it('rolls the master pool and reports machine-config, continuing its simulated time after a restart', async () => {
    const dir = cleanup.dir();
    const state = join(dir, 'state.json');
    const m = await serveMock(['--time-scale', '600', '--plain-http', '--state', state], dir, cleanup);
    // Each node is cordoned for a few simulated minutes, under a second here: a watch sees it, where polling may not.
    let sawCordoned = false;
    const nodeWatch = await new k8s.Watch(m.kc).watch(
      '/api/v1/nodes',
      {},
      (_type, node: k8s.V1Node) => void (sawCordoned ||= node.spec?.unschedulable === true),
      () => undefined,
    );
    cleanup.add(() => nodeWatch.abort());
    const apps = m.kc.makeApiClient(k8s.AppsV1Api);
    const mco = await apps.readNamespacedDeployment({
      namespace: 'openshift-machine-config-operator',
      name: 'machine-config-operator',
    });
    mco.spec!.template.spec!.containers[0]!.env = mco.spec!.template.spec!.containers[0]!.env!.map((e) =>
      e.name === 'RELEASE_VERSION' ? { name: e.name, value: NEW } : e,
    );
    await apps.replaceNamespacedDeployment({
      namespace: 'openshift-machine-config-operator',
      name: 'machine-config-operator',
      body: mco,
    });
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const mcoCo = async (): Promise<string> =>
      (
        (await custom.getClusterCustomObject({
          group: 'config.openshift.io',
          version: 'v1',
          plural: 'clusteroperators',
          name: 'machine-config',
        })) as { status: { versions: Array<{ version: string }> } }
      ).status.versions[0]!.version;
    const started = Date.now();
    while ((await mcoCo()) !== NEW && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50));
    expect(await mcoCo()).toBe(NEW);
    expect(sawCordoned).toBe(true);
    expect(cincy(['get', 'mcp', 'master', '--kubeconfig', m.kubeconfig]).stdout).toMatch(
      new RegExp(`^master +${renderedConfig('master', NEW)} +True +False +False +3 +3 +3 +0 `, 'm'),
    );
    const simNow = async (): Promise<number> => {
      const cm = await m.kc
        .makeApiClient(k8s.CoreV1Api)
        .readNamespacedConfigMap({ namespace: 'openshift-config', name: 'cincy-mock-clock' });
      return Number(cm.data!.simEpoch) + (Date.now() - Number(cm.data!.realEpoch)) * Number(cm.data!.scale);
    };
    const before = await simNow();
    await m.stop();
    const again = await serveMock(['--time-scale', '1', '--plain-http', '--state', state], dir, cleanup);
    const cm = await again.kc
      .makeApiClient(k8s.CoreV1Api)
      .readNamespacedConfigMap({ namespace: 'openshift-config', name: 'cincy-mock-clock' });
    expect(cm.data!.scale).toBe('1');
    expect(Number(cm.data!.simEpoch)).toBeGreaterThanOrEqual(before);
    expect(Number(cm.data!.simEpoch)).toBeLessThan(before + 60 * 60_000); // continued (at 600× while it was down), not restarted from real time
  });

  it('refuses a scenario file with a mistake, naming the file and the field', () => {
    const dir = cleanup.dir();
    const f = join(dir, 'scenario.yaml');
    writeFileSync(f, 'operators:\n  etcd: {behavior: flaky}\n');
    const r = cincy([
      'mock-cluster',
      '--plain-http',
      '--port',
      '0',
      '--state',
      join(dir, 'state.json'),
      '--scenario',
      f,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${f}: operators.etcd.behavior: "flaky" is not a behavior`);
  });
});
