// The mock cluster as real clients see it (issue 12, points 1–7): kubectl, the real client, drives each
// case — server-side dry runs, OpenAPI for apply, edit, explain and diff, table output, the kinds and verbs
// kubectl's commands need, faithful objects, multi-arch clusters, and the command's flags against its state.
import { readFileSync, statSync } from 'node:fs';
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
