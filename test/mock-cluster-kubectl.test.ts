// The mock cluster as real clients see it (issue 12, points 1–7): kubectl, the real client, drives each
// case — server-side dry runs, OpenAPI for apply, edit, explain and diff, table output, the kinds and verbs
// kubectl's commands need, faithful objects, multi-arch clusters, and the command's flags against its state.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { useCleanup } from './support/cli.js';
import { kubectl, kubectlAvailable, type KubectlResult } from './support/kubectl.js';
import { serveMock, type Mock } from './support/mock.js';

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

describe.runIf(kubectlAvailable())('mock cluster through kubectl (issue 12)', () => {
  it('issue 12 point 1: a server-side dry run of create, patch, update and delete answers as the API server would and changes nothing', async () => {
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

describe.runIf(kubectlAvailable())('mock cluster OpenAPI through kubectl (issue 12)', () => {
  it('issue 12 point 2: kubectl apply, diff, edit and explain work without --validate=false, and the server validates fields', async () => {
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

  it('issue 12 point 2: server-side apply creates, merges, and drops the fields its manager no longer applies', async () => {
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
    expect(got.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } }),
    ]);
    const dry = ok(
      await k(['apply', '--server-side', '--dry-run=server', '-o', 'jsonpath={.data}', '-f', '-'], cm('z: "9"')),
    );
    expect(dry.stdout).toBe('{"other":"kept","z":"9"}');
    expect(ok(await k(['get', 'cm', 'ssa', '-n', 'default', '-o', 'jsonpath={.data}'])).stdout).toBe(
      '{"a":"1","other":"kept"}',
    );
  }, 120_000);
});

describe.runIf(kubectlAvailable())('mock cluster tables through kubectl (issue 12)', () => {
  it('issue 12 point 3: kubectl get prints the columns of a real OpenShift cluster, and lists the CRDs', async () => {
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
