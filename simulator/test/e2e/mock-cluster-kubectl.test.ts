// The mock cluster as real clients see it: kubectl, the real client, drives each
// case — server-side dry runs, OpenAPI for apply, edit, explain and diff, table output, the kinds and verbs
// kubectl's commands need, faithful objects, multi-arch clusters, and the command's flags against its state.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { cincyAsync, useCleanup } from '../../../test/support/cli.js';
import { kubectl, kubectlAvailable, type KubectlResult } from '../../../test/support/kubectl.js';
import { serveMock, type Mock } from '../../../test/support/mock.js';

const cleanup = useCleanup();

async function start(args: string[] = [], dir = cleanup.dir()): Promise<Mock & { dir: string; state: string }> {
  const state = join(dir, 'state.json');
  return { ...(await serveMock(['--state', state, ...args], dir, cleanup)), dir, state };
}

const until = async (what: string, ok: () => boolean, ms = 30_000): Promise<void> => {
  for (const end = Date.now() + ms; !ok(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
};

/** Every watch event of a resource from now on, as `TYPE:name`. */
async function watchEvents(m: Mock, path: string): Promise<string[]> {
  const events: string[] = [];
  const req = await new k8s.Watch(m.kc).watch(
    path,
    { resourceVersion: '0' },
    (type, o: { metadata: { name: string } }) => events.push(`${type}:${o.metadata.name}`),
    () => undefined,
  );
  cleanup.add(() => req.abort());
  return events;
}

const ok = (r: KubectlResult): KubectlResult => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r;
};

describe.runIf(kubectlAvailable())('mock cluster through kubectl', () => {
  it('a server-side dry run of create, patch, update and delete answers as the API server would and changes nothing', async () => {
    const m = await start(['--version', '4.16.3', '--channel', 'stable-4.16']);
    const k = (args: string[], input?: string): Promise<KubectlResult> => kubectl(m.kubeconfig, args, input);
    ok(await k(['create', 'configmap', 'kept', '-n', 'default', '--from-literal=a=1']));
    const cvBefore = JSON.parse(ok(await k(['get', 'clusterversion', 'version', '-o', 'json'])).stdout) as {
      metadata: { resourceVersion: string };
    };
    const cmEvents = await watchEvents(m, '/api/v1/namespaces/default/configmaps');
    const cvEvents = await watchEvents(m, '/apis/config.openshift.io/v1/clusterversions');
    await until('the watches to start', () => cmEvents.length === 1 && cvEvents.length === 1);
    const journal = statSync(`${m.state}.journal`).size;

    const created = ok(await k(['create', 'configmap', 'x', '-n', 'default', '--dry-run=server', '-o', 'json']));
    const answer = JSON.parse(created.stdout) as { metadata: Record<string, unknown> };
    expect(answer.metadata).toMatchObject({ name: 'x', namespace: 'default' });
    expect(answer.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.metadata.resourceVersion).toBeUndefined();
    const patched = ok(
      await k([
        'patch',
        'clusterversion',
        'version',
        '--type',
        'merge',
        '-p',
        '{"spec":{"channel":"fast-4.16"}}',
        '--dry-run=server',
        '-o',
        'jsonpath={.spec.channel}',
      ]),
    );
    expect(patched.stdout).toBe('fast-4.16');
    const labelled = ok(await k(['label', 'configmap', 'kept', '-n', 'default', 'team=a', '--dry-run=server']));
    expect(labelled.stdout).toBe('configmap/kept labeled (server dry run)\n');
    const deleted = ok(await k(['delete', 'configmap', 'kept', '-n', 'default', '--dry-run=server']));
    expect(deleted.stdout).toBe('configmap "kept" deleted (server dry run)\n');
    // A dry run is checked as a real write is: an existing name is still a conflict, a bad one still invalid.
    const exists = await k(['create', 'configmap', 'kept', '-n', 'default', '--dry-run=server']);
    expect(exists.stderr).toContain('configmaps "kept" already exists');
    const invalid = await k(['create', 'configmap', 'Bad_Name', '-n', 'default', '--dry-run=server']);
    expect(invalid.stderr).toContain('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"');

    expect(ok(await k(['get', 'configmaps', '-n', 'default', '-o', 'name'])).stdout).toBe('configmap/kept\n');
    expect(ok(await k(['get', 'configmap', 'kept', '-n', 'default', '-o', 'jsonpath={.metadata.labels}'])).stdout).toBe(
      '',
    );
    const cvAfter = JSON.parse(ok(await k(['get', 'clusterversion', 'version', '-o', 'json'])).stdout) as {
      spec: { channel: string };
      metadata: { resourceVersion: string };
    };
    expect(cvAfter.spec.channel).toBe('stable-4.16');
    expect(cvAfter.metadata.resourceVersion).toBe(cvBefore.metadata.resourceVersion);
    expect(statSync(`${m.state}.journal`).size).toBe(journal); // nothing journaled
    // No watch event: the first one after the dry runs is a real change's.
    ok(await k(['create', 'configmap', 'real', '-n', 'default']));
    await until('the real change to be seen', () => cmEvents.length === 2);
    expect(cmEvents).toEqual(['ADDED:kept', 'ADDED:real']);
    expect(cvEvents).toEqual(['ADDED:version']);
    expect(readFileSync(`${m.state}.journal`, 'utf8')).not.toContain('"name":"x"');
  }, 120_000);
});

/** The rows of kubectl's table output, each split into its cells (cells hold no double spaces). */
const table = (out: string): string[][] =>
  out
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

describe.runIf(kubectlAvailable())('mock cluster OpenAPI through kubectl', () => {
  it('kubectl apply, diff, edit and explain work without --validate=false, and the server validates fields', async () => {
    const m = await start(['--version', '4.16.3', '--channel', 'stable-4.16']);
    const k = (args: string[], input?: string, env?: Record<string, string>): Promise<KubectlResult> =>
      kubectl(m.kubeconfig, args, input, env);
    const manifest = (c: string): string =>
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: web, namespace: default, labels: {app: web}}',
        `data: {a: "1", c: "${c}"}`,
        // What `cincy signatures configmap … | oc apply -f -` sends has binary entries.
        'binaryData: {sig: AAEC}',
      ].join('\n');
    expect(ok(await k(['apply', '-f', '-'], manifest('d'))).stdout).toBe('configmap/web created\n');
    expect(ok(await k(['apply', '-f', '-'], manifest('d'))).stdout).toBe('configmap/web unchanged\n');
    // kubectl diff is a server-side dry run of the apply: it shows the change and makes none.
    const diff = await k(['diff', '-f', '-'], manifest('e'));
    expect(diff.code).toBe(1); // 1: there are differences
    expect(diff.stdout).toMatch(/^-\s+c: d$/m);
    expect(diff.stdout).toMatch(/^\+\s+c: e$/m);
    expect(ok(await k(['get', 'cm', 'web', '-n', 'default', '-o', 'jsonpath={.data.c}'])).stdout).toBe('d');
    expect(ok(await k(['apply', '-f', '-'], manifest('e'))).stdout).toBe('configmap/web configured\n');
    expect(
      ok(await k(['get', 'cm', 'web', '-n', 'default', '-o', 'jsonpath={.data.c} {.binaryData.sig}'])).stdout,
    ).toBe('e AAEC');
    expect((await k(['diff', '-f', '-'], manifest('e'))).code).toBe(0);

    // kubectl leaves field validation to the server, which refuses fields the schema does not declare.
    const unknown = await k(['apply', '-f', '-'], `${manifest('e')}\nspec: {replicas: 1}\n`);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('strict decoding error: unknown field "spec"');
    const cv = [
      'apiVersion: config.openshift.io/v1',
      'kind: ClusterVersion',
      'metadata: {name: version}',
      'spec: {channel: fast-4.16, desiredUpdate: {version: 4.16.4, bogus: true}}',
    ].join('\n');
    expect((await k(['apply', '-f', '-'], cv)).stderr).toContain('unknown field "spec.desiredUpdate.bogus"');
    const applied = await k(['apply', '-f', '-'], cv.replace(', bogus: true', ''));
    expect(applied).toMatchObject({ code: 0, stdout: 'clusterversion.config.openshift.io/version configured\n' });
    // As on a real cluster: the object was not made by kubectl apply, which says it adds its annotation.
    expect(applied.stderr).toContain('missing the kubectl.kubernetes.io/last-applied-configuration annotation');
    expect(
      ok(await k(['get', 'clusterversion', 'version', '-o', 'jsonpath={.spec.channel} {.spec.desiredUpdate.version}']))
        .stdout,
    ).toBe('fast-4.16 4.16.4');

    // kubectl edit, with an editor that changes the channel.
    const editor = join(m.dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/channel: fast-4.16/channel: candidate-4.16/" "$1"\n', { mode: 0o755 });
    const edited = ok(await k(['edit', 'clusterversion', 'version'], undefined, { EDITOR: editor }));
    expect(edited.stdout).toBe('clusterversion.config.openshift.io/version edited\n');
    expect(ok(await k(['get', 'clusterversion', 'version', '-o', 'jsonpath={.spec.channel}'])).stdout).toBe(
      'candidate-4.16',
    );

    const explained = ok(await k(['explain', 'clusterversion.spec']));
    expect(explained.stdout).toContain('KIND:       ClusterVersion');
    expect(explained.stdout).toMatch(/^ {2}channel\t<string>$/m);
    expect(explained.stdout).toMatch(/^ {2}clusterID\t<string> -required-$/m);
    expect(explained.stdout).toMatch(/^ {2}desiredUpdate\t<Object>$/m);
    expect(ok(await k(['explain', 'mcp.status.updatedMachineCount'])).stdout).toContain(
      'FIELD: updatedMachineCount <integer>',
    );
    expect(ok(await k(['explain', 'nodes.status.nodeInfo.kubeletVersion'])).stdout).toContain('KIND:       Node');
  }, 180_000);

  it('server-side apply creates, merges, and drops the fields its manager no longer applies', async () => {
    const m = await start();
    const k = (args: string[], input?: string): Promise<KubectlResult> => kubectl(m.kubeconfig, args, input);
    const cm = (data: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: {${data}}\n`;
    expect(ok(await k(['apply', '--server-side', '-f', '-'], cm('a: "1", b: "2"'))).stdout).toBe(
      'configmap/ssa serverside-applied\n',
    );
    ok(await k(['patch', 'cm', 'ssa', '-n', 'default', '--type', 'merge', '-p', '{"data":{"other":"kept"}}']));
    ok(await k(['apply', '--server-side', '-f', '-'], cm('a: "1"')));
    const got = JSON.parse(
      ok(await k(['get', 'cm', 'ssa', '-n', 'default', '-o', 'json', '--show-managed-fields'])).stdout,
    ) as {
      data: Record<string, string>;
      metadata: { managedFields: Array<{ manager: string; operation: string; fieldsV1: unknown }> };
    };
    expect(got.data).toEqual({ a: '1', other: 'kept' }); // b, applied before, is dropped; another writer's field stays
    // As kube-apiserver records them: the applier owns what it applies now, the patch what it set.
    expect(got.metadata.managedFields).toHaveLength(2);
    expect(got.metadata.managedFields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } }),
        expect.objectContaining({
          manager: 'kubectl-patch',
          operation: 'Update',
          fieldsV1: { 'f:data': { 'f:other': {} } },
        }),
      ]),
    );
    const dry = ok(
      await k(['apply', '--server-side', '--dry-run=server', '-o', 'jsonpath={.data}', '-f', '-'], cm('z: "9"')),
    );
    expect(dry.stdout).toBe('{"other":"kept","z":"9"}');
    expect(ok(await k(['get', 'cm', 'ssa', '-n', 'default', '-o', 'jsonpath={.data}'])).stdout).toBe(
      '{"a":"1","other":"kept"}',
    );
  }, 120_000);
});

describe.runIf(kubectlAvailable())('mock cluster tables through kubectl', () => {
  it('kubectl get prints the columns of a real OpenShift cluster, and lists the CRDs', async () => {
    const m = await start(['--version', '4.16.3', '--channel', 'stable-4.16']);
    const k = (args: string[]): Promise<KubectlResult> => kubectl(m.kubeconfig, args);
    const cv = table(ok(await k(['get', 'clusterversion'])).stdout);
    expect(cv[0]).toEqual(['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'SINCE', 'STATUS']);
    expect(cv[1]).toEqual([
      'version',
      '4.16.3',
      'True',
      'False',
      expect.stringMatching(/^\d+d$/),
      'Cluster version is 4.16.3',
    ]);
    const co = table(ok(await k(['get', 'co'])).stdout);
    expect(co[0]).toEqual(['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'DEGRADED', 'SINCE', 'MESSAGE']);
    expect(co.find((r) => r[0] === 'etcd')).toEqual([
      'etcd',
      '4.16.3',
      'True',
      'False',
      'False',
      expect.stringMatching(/^\d+d$/),
    ]);
    const nodes = table(ok(await k(['get', 'nodes'])).stdout);
    expect(nodes[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(nodes.slice(1).map((r) => `${r[0]} ${r[1]} ${r[2]}`)).toEqual([
      'master-0 Ready control-plane,master',
      'master-1 Ready control-plane,master',
      'master-2 Ready control-plane,master',
      'worker-0 Ready worker',
      'worker-1 Ready worker',
      'worker-2 Ready worker',
    ]);
    const wide = table(ok(await k(['get', 'nodes', '-o', 'wide'])).stdout);
    expect(wide[0]).toEqual([
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    expect(wide[1]![5]).toMatch(/^10\.0\.\d+\.\d+$/);
    expect(wide[1]![7]).toMatch(/^Red Hat Enterprise Linux CoreOS 416\.\d+/);
    expect(wide[1]![9]).toMatch(/^cri-o:\/\/1\.29\./);
    const mcp = table(ok(await k(['get', 'mcp'])).stdout);
    expect(mcp[0]).toEqual([
      'NAME',
      'CONFIG',
      'UPDATED',
      'UPDATING',
      'DEGRADED',
      'MACHINECOUNT',
      'READYMACHINECOUNT',
      'UPDATEDMACHINECOUNT',
      'DEGRADEDMACHINECOUNT',
      'AGE',
    ]);
    expect(mcp[1]).toEqual([
      'master',
      expect.stringMatching(/^rendered-master-[0-9a-f]{32}$/),
      'True',
      'False',
      'False',
      '3',
      '3',
      '3',
      '0',
      expect.stringMatching(/^\d+d$/),
    ]);
    const crds = table(ok(await k(['get', 'crd'])).stdout);
    expect(crds[0]).toEqual(['NAME', 'CREATED AT']);
    expect(crds.map((r) => r[0])).toEqual(
      expect.arrayContaining([
        'clusterversions.config.openshift.io',
        'clusteroperators.config.openshift.io',
        'machineconfigpools.machineconfiguration.openshift.io',
      ]),
    );
    const columns = ok(
      await k([
        'get',
        'crd',
        'clusterversions.config.openshift.io',
        '-o',
        'jsonpath={.spec.versions[0].additionalPrinterColumns[*].name}',
      ]),
    );
    expect(columns.stdout).toBe('Version Available Progressing Since Status');
    const cms = table(ok(await k(['get', 'cm', '-n', 'openshift-config'])).stdout);
    expect(cms[0]).toEqual(['NAME', 'DATA', 'AGE']);
  }, 120_000);
});

describe.runIf(kubectlAvailable())('mock cluster kinds and verbs through kubectl', () => {
  it('describe node with its pods, events of drains, reboots and operator changes, infrastructures, featuregates, machineconfigs, auth can-i, JSON patch', async () => {
    const m = await start(['--version', '4.16.3', '--channel', 'stable-4.16', '--time-scale', '600']);
    const k = (args: string[], input?: string): Promise<KubectlResult> => kubectl(m.kubeconfig, args, input);
    const described = ok(await k(['describe', 'node', 'master-0'])).stdout;
    expect(described).toMatch(/^Non-terminated Pods: +\((\d+) in total\)$/m);
    expect(Number(/Non-terminated Pods: +\((\d+) in total\)/.exec(described)![1])).toBeGreaterThan(0);
    expect(described).not.toContain('Failed to get lease');
    expect(described).toMatch(/^Lease:\n {2}HolderIdentity: {2}master-0$/m);
    const pods = ok(await k(['get', 'pods', '-A', '--field-selector', 'spec.nodeName=master-0', '-o', 'name']));
    expect(pods.stdout.trim().split('\n').length).toBeGreaterThan(0);
    expect(ok(await k(['get', 'infrastructure', 'cluster', '-o', 'jsonpath={.status.platform}'])).stdout).toBe('AWS');
    expect(
      ok(await k(['get', 'featuregate', 'cluster', '-o', 'jsonpath={.status.featureGates[0].version}'])).stdout,
    ).toBe('4.16.3');
    const mcs = table(ok(await k(['get', 'machineconfigs'])).stdout).map((r) => r[0]);
    expect(mcs).toEqual(expect.arrayContaining(['00-master', '00-worker']));
    expect(mcs.some((n) => /^rendered-worker-[0-9a-f]{32}$/.test(n!))).toBe(true);
    // kubectl looks the resource up in discovery: a cluster-scoped one asked in a namespace is warned about.
    const nodes = await k(['auth', 'can-i', 'delete', 'nodes']);
    expect(nodes).toMatchObject({ code: 0, stdout: 'yes\n' });
    expect(nodes.stderr).toBe("Warning: resource 'nodes' is not namespace scoped\n\n");
    expect(ok(await k(['auth', 'can-i', 'delete', 'nodes', '-A'])).stdout).toBe('yes\n');
    expect(ok(await k(['auth', 'can-i', 'patch', 'clusterversions', '--all-namespaces'])).stdout).toBe('yes\n');
    expect(ok(await k(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).stdout).toBe('system:admin');

    // JSON patch (RFC 6902): a failing test leaves the object as it was.
    ok(await k(['create', 'configmap', 'j', '-n', 'default', '--from-literal=a=1']));
    const patch = (ops: object[]): Promise<KubectlResult> =>
      k(['patch', 'cm', 'j', '-n', 'default', '--type', 'json', '-p', JSON.stringify(ops)]);
    ok(
      await patch([
        { op: 'add', path: '/data/b', value: '2' },
        { op: 'remove', path: '/data/a' },
      ]),
    );
    const failed = await patch([
      { op: 'test', path: '/data/b', value: 'not 2' },
      { op: 'add', path: '/data/c', value: '3' },
    ]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/test/i);
    expect(ok(await k(['get', 'cm', 'j', '-n', 'default', '-o', 'jsonpath={.data}'])).stdout).toBe('{"b":"2"}');

    // An operator and the Machine Config Operator move to another release: their events say what happened.
    ok(await k(['set', 'env', 'deployment/dns-operator', '-n', 'openshift-dns-operator', 'RELEASE_VERSION=4.16.4']));
    ok(
      await k([
        'set',
        'env',
        'deployment/machine-config-operator',
        '-n',
        'openshift-machine-config-operator',
        'RELEASE_VERSION=4.16.4',
      ]),
    );
    let reasons: string[] = [];
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 500))) {
      const out = ok(
        await k(['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.name=worker-2', '-o', 'json']),
      ).stdout;
      reasons = (JSON.parse(out) as { items: Array<{ reason: string }> }).items.map((e) => e.reason);
      if (reasons.includes('NodeDone')) break;
    }
    expect(reasons).toEqual(
      expect.arrayContaining(['Cordon', 'Drain', 'OSUpdateStarted', 'Reboot', 'Rebooted', 'NodeReady', 'Uncordon']),
    );
    const dns = ok(await k(['get', 'events', '-n', 'openshift-dns-operator'])).stdout;
    expect(dns).toMatch(/OperatorStatusChanged +deployment\/dns-operator +Status for clusteroperator\/dns changed/);
    expect(dns).toContain('clusteroperator/dns version "operator" changed from "4.16.3" to "4.16.4"');
    // The events are aged against the wall clock, never in its future (kubectl would print <invalid>), however
    // fast the simulated one runs: it starts behind real time.
    const ages = table(dns)
      .slice(1)
      .map((r) => r[0]);
    expect(ages).toEqual(ages.map(() => expect.stringMatching(/^(\d+[smhd])+$/)));
    expect(ok(await k(['describe', 'node', 'worker-2'])).stdout).toMatch(/Normal +Drain +\S+ +machineconfigdaemon/);
  }, 180_000);
});

/** A creationTimestamp as ms; it has whole seconds. */
const created = async (kubeconfig: string, args: string[]): Promise<number> =>
  Date.parse(ok(await kubectl(kubeconfig, [...args, '-o', 'jsonpath={.metadata.creationTimestamp}'])).stdout);

describe.runIf(kubectlAvailable())('mock cluster objects through kubectl', () => {
  it('objects as a real cluster has them: generations, node details by release, relatedObjects, the ClusterVersion status, /metrics behind the token', async () => {
    const m = await start(['--version', '4.16.3', '--channel', 'stable-4.16']);
    const k = (args: string[]): Promise<KubectlResult> => kubectl(m.kubeconfig, args);
    const json = async <T>(args: string[]): Promise<T> => JSON.parse(ok(await k([...args, '-o', 'json'])).stdout) as T;
    type Obj = { metadata: Record<string, unknown>; spec?: unknown; status?: Record<string, unknown> };
    // Kinds without a generation have none; a Deployment's status follows each new one.
    expect((await json<Obj>(['get', 'node', 'worker-0'])).metadata.generation).toBeUndefined();
    ok(await k(['create', 'configmap', 'g', '-n', 'default', '--from-literal=a=1']));
    expect((await json<Obj>(['get', 'cm', 'g', '-n', 'default'])).metadata.generation).toBeUndefined();
    const dns = ['deployment/dns-operator', '-n', 'openshift-dns-operator'];
    const before = await json<Obj>(['get', ...dns]);
    ok(await k(['set', 'env', ...dns, 'EXTRA=1']));
    const generation = (before.metadata.generation as number) + 1;
    for (let i = 0; i < 100; i++) {
      const d = await json<Obj>(['get', ...dns]);
      expect(d.metadata.generation).toBe(generation);
      if (d.status?.observedGeneration === generation) break;
      if (i === 99) throw new Error(`observedGeneration stayed ${String(d.status?.observedGeneration)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Nodes: the kubelet of the release's Kubernetes (1.29 on 4.16, not 1.29.3 from the z-stream), RHCOS,
    // internal IPs, zones named after the region, both roles on the control plane.
    const node = await json<{
      metadata: { labels: Record<string, string> };
      status: { nodeInfo: Record<string, string>; addresses: Array<{ type: string; address: string }> };
    }>(['get', 'node', 'master-1']);
    expect(node.status.nodeInfo.kubeletVersion).toMatch(/^v1\.29\.(?!3\+)\d+\+[0-9a-f]{7}$/);
    expect(node.status.nodeInfo.osImage).toMatch(/^Red Hat Enterprise Linux CoreOS 416\.94\.\d{12}-0 \(Plow\)$/);
    expect(node.status.nodeInfo.kernelVersion).toMatch(/^5\.14\.0-427\.\d+\.1\.el9_4\.x86_64$/);
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^cri-o:\/\/1\.29\.\d+-\d+\.rhaos4\.16\./);
    expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: expect.stringMatching(/^10\.0\./) });
    expect(node.metadata.labels).toMatchObject({
      'topology.kubernetes.io/region': 'us-east-1',
      'topology.kubernetes.io/zone': 'us-east-1b',
      'node-role.kubernetes.io/control-plane': '',
      'node-role.kubernetes.io/master': '',
    });
    // ClusterOperators name the objects `oc adm inspect` collects.
    const co = await json<{ status: { relatedObjects: Array<Record<string, string>> } }>(['get', 'co', 'dns']);
    expect(co.status.relatedObjects).toContainEqual({
      group: '',
      resource: 'namespaces',
      name: 'openshift-dns-operator',
    });
    // The ClusterVersion as the cluster-version-operator writes it; with a channel, no NoChannel.
    const cv = await json<{
      status: {
        desired: Record<string, string>;
        versionHash: string;
        conditions: Array<{ type: string; status: string; reason?: string }>;
      };
    }>(['get', 'clusterversion', 'version']);
    expect(cv.status.desired.url).toMatch(/^https:\/\/access\.redhat\.com\/errata\/RHBA-\d{4}:\d+$/);
    expect(cv.status.versionHash).toMatch(/^[A-Za-z0-9+/_-]{11}=?$/);
    expect(cv.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'ImplicitlyEnabledCapabilities', status: 'False', reason: 'AsExpected' }),
    );
    expect(cv.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'ReleaseAccepted', status: 'True', reason: 'PayloadLoaded' }),
    );
    expect(cv.status.conditions.map((c) => c.reason)).not.toContain('NoChannel');
    // /metrics is behind the token, like the rest of the API.
    const status = await new Promise<number | undefined>((resolve, reject) =>
      httpsGet(`${m.url}/metrics`, { ca: Buffer.from(m.kc.getCurrentCluster()!.caData!, 'base64') }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject),
    );
    expect(status).toBe(401);
    expect(ok(await k(['get', '--raw', '/metrics'])).stdout).toMatch(
      /^cluster_version\{type="current",version="4.16.3"/m,
    );

    // Before 4.14 the control plane's nodes have only the master role.
    const old = await start(['--version', '4.13.10']);
    expect(table(ok(await kubectl(old.kubeconfig, ['get', 'nodes'])).stdout)[1]!.slice(0, 3)).toEqual([
      'master-0',
      'Ready',
      'master',
    ]);
  }, 180_000);

  it('creation timestamps are never after the wall clock on a scaled clock, across restarts, and the mock follows a patch of its clock ConfigMap', async () => {
    const dir = cleanup.dir();
    let m = await start(['--time-scale', '3600'], dir);
    await new Promise((r) => setTimeout(r, 1500)); // 1.5 simulated hours
    ok(await kubectl(m.kubeconfig, ['create', 'configmap', 'a', '-n', 'default']));
    expect(await created(m.kubeconfig, ['get', 'cm', 'a', '-n', 'default'])).toBeLessThanOrEqual(Date.now());
    await m.stop();
    await new Promise((r) => setTimeout(r, 1500)); // while it is down, its clock must not run ahead either
    m = await start(['--time-scale', '3600'], dir);
    ok(await kubectl(m.kubeconfig, ['create', 'configmap', 'b', '-n', 'default']));
    expect(await created(m.kubeconfig, ['get', 'cm', 'b', '-n', 'default'])).toBeLessThanOrEqual(Date.now());
    // The pods the simulation makes, and its events, are aged by kubectl without <invalid>.
    expect(ok(await kubectl(m.kubeconfig, ['get', 'pods', '-A'])).stdout).not.toContain('<invalid>');

    // A patch of the clock ConfigMap moves the mock's simulated time: ten days back, at real speed.
    const realEpoch = Date.now();
    const simEpoch = realEpoch - 10 * 86_400_000;
    const data = { scale: '1', realEpoch: String(realEpoch), simEpoch: String(simEpoch) };
    ok(
      await kubectl(m.kubeconfig, [
        'patch',
        'cm',
        'cincy-mock-clock',
        '-n',
        'openshift-config',
        '--type',
        'merge',
        '-p',
        JSON.stringify({ data }),
      ]),
    );
    ok(await kubectl(m.kubeconfig, ['create', 'configmap', 'c', '-n', 'default']));
    const c = await created(m.kubeconfig, ['get', 'cm', 'c', '-n', 'default']);
    expect(c).toBeGreaterThanOrEqual(simEpoch - 1000);
    expect(c).toBeLessThan(realEpoch - 9 * 86_400_000);
  }, 120_000);
});

describe.runIf(kubectlAvailable())('mock cluster architectures and flags through kubectl', () => {
  it('--arch multi gives a Multi cluster of several architectures, whose agent asks arch=multi; x86_64 is refused', async () => {
    const asked: string[] = [];
    const graph = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"nodes":[],"edges":[]}');
    });
    await new Promise<void>((r) => graph.listen(0, '127.0.0.1', r));
    cleanup.add(() => new Promise((r) => graph.close(r)));
    const upstream = `http://127.0.0.1:${(graph.address() as AddressInfo).port}/graph`;
    const m = await start([
      '--arch',
      'multi',
      '--version',
      '4.16.3',
      '--channel',
      'stable-4.16',
      '--upstream',
      upstream,
    ]);
    const k = (args: string[]): Promise<KubectlResult> => kubectl(m.kubeconfig, args);
    expect(
      ok(await k(['get', 'clusterversion', 'version', '-o', 'jsonpath={.status.desired.architecture}'])).stdout,
    ).toBe('Multi');
    const arches = ok(await k(['get', 'nodes', '-o', 'jsonpath={.items[*].status.nodeInfo.architecture}'])).stdout;
    expect(new Set(arches.split(' '))).toEqual(new Set(['amd64', 'arm64']));
    expect(ok(await k(['get', 'nodes', '-L', 'kubernetes.io/arch'])).stdout).toMatch(/^worker-1 .* arm64$/m);
    const agent = await cincyAsync(['agent', '--kubeconfig', m.kubeconfig, '--once', '--no-update']);
    expect(asked.length).toBeGreaterThan(0);
    expect(new URL(asked[0]!, 'http://x').searchParams.get('arch')).toBe('multi');
    expect(agent.stderr).not.toContain('Error');

    const refused = await cincyAsync(['mock-cluster', '--port', '0', '--arch', 'x86_64']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      "cincy: --arch: 'x86_64' is not an architecture the cluster can run (one of amd64, arm64, s390x, ppc64le, multi)",
    );
  }, 120_000);

  it('a saved state refuses other --version, --channel or --image unless --reset; a busy --port is one line; --channel is no NoChannel', async () => {
    const dir = cleanup.dir();
    const m = await start(['--version', '4.16.3', '--channel', 'stable-4.16'], dir);
    expect(
      ok(
        await kubectl(m.kubeconfig, [
          'get',
          'clusterversion',
          'version',
          '-o',
          'jsonpath={.status.conditions[*].reason}',
        ]),
      ).stdout,
    ).not.toContain('NoChannel');
    const port = new URL(m.url).port;
    const busy = await cincyAsync(['mock-cluster', '--port', port, '--host', '127.0.0.1']);
    expect(busy.code).not.toBe(0);
    expect(busy.stderr.trim().split('\n')).toEqual([
      `cincy: --port ${port}: 127.0.0.1:${port} is in use by another process; choose another port (0: any free one)`,
    ]);
    await m.stop();
    const state = join(dir, 'state.json');
    const again = (args: string[]): ReturnType<typeof cincyAsync> =>
      cincyAsync(['mock-cluster', '--port', '0', '--state', state, ...args]);
    for (const [flag, value, saved] of [
      ['--version', '4.16.5', '4.16.3'],
      ['--channel', 'fast-4.16', 'stable-4.16'],
      ['--image', 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'a'.repeat(64), ''],
    ] as const) {
      const r = await again([flag, value]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`${flag} "${value}" (the saved cluster has "${saved}`);
      expect(r.stderr).toContain('--reset');
    }
    // The same flags as saved are fine; --reset starts a new cluster from the flags.
    const same = await start(['--version', '4.16.3', '--channel', 'stable-4.16'], dir);
    await same.stop();
    const reset = await start(['--version', '4.16.5', '--channel', 'fast-4.16', '--reset'], dir);
    expect(
      ok(
        await kubectl(reset.kubeconfig, [
          'get',
          'clusterversion',
          'version',
          '-o',
          'jsonpath={.status.desired.version} {.spec.channel}',
        ]),
      ).stdout,
    ).toBe('4.16.5 fast-4.16');
  }, 180_000);
});
