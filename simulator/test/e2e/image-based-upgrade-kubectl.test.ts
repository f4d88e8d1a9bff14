// Image-based upgrade as a user runs it: a seed image pushed with `cincy seed push` to a
// docker-registry, `cincy mock-cluster --single-node` (whose simulated Lifecycle Agent runs the stages) pulling
// from it as a process, driven with kubectl (its printer columns, patches and the CRD rule's refusal) and
// `cincy get ibu`; the cluster killed (SIGKILL) in the middle of the Upgrade stage, restarted from its state
// file, then resumed to the end. The stages themselves are tested in depth in process
// (simulator/test/e2e/image-based-upgrade.test.ts).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cincy, cincyAsync, useCleanup } from '../../../test/support/cli.js';
import { kubectl, kubectlAvailable, type KubectlResult } from '../../../test/support/kubectl.js';
import { serveMock, type Mock } from '../../../test/support/mock.js';
import { registryAvailable, startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { until as pollUntil } from '../../../test/support/processes.js';
import { SKOPEO } from '../../../test/support/skopeo.js';

const cleanup = useCleanup();

const ok = (r: KubectlResult): string => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

/** `skopeo inspect` of an image of a plain-HTTP registry: its digest and labels. */
function skopeoInspect(
  registry: TestRegistry,
  image: string,
): Promise<{ Digest: string; Labels: Record<string, string> }> {
  return new Promise((resolve, reject) =>
    execFile(
      SKOPEO,
      ['inspect', '--tls-verify=false', '--no-creds', `docker://${registry.host}/${image}`],
      { timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(JSON.parse(stdout))),
    ),
  );
}

/** Polls `f` until `pass` holds of what it answers (the shared poll, test/support/processes.ts); the last value seen in the error otherwise. */
async function until(what: string, f: () => Promise<string>, pass: (v: string) => boolean): Promise<string> {
  let last = '';
  return pollUntil(`${what}`, async () => {
    last = await f();
    return pass(last) && last;
  }).catch((err: Error) => {
    throw new Error(`${err.message}; last: ${last}`);
  });
}

describe.runIf(kubectlAvailable() && registryAvailable())('image-based upgrade with kubectl and the processes', () => {
  it('cincy seed push, kubectl get/patch ibu, the refusal of an invalid stage, cincy get ibu; the cluster killed mid-Upgrade and restarted resumes to the end', async () => {
    const dir = cleanup.dir();
    // The seed image, made and pushed by `cincy seed push`, read back by skopeo.
    const registry = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const pushed = await cincyAsync([
      'seed',
      'push',
      '--version',
      '4.17.2',
      '--registry',
      registry.reference('lca/seed'),
    ]);
    expect(pushed.stderr).toBe(`pushed the seed image of 4.17.2 to ${registry.reference('lca/seed')}:4.17.2\n`);
    expect(pushed.stdout).toMatch(new RegExp(`^${registry.host}/lca/seed@sha256:[0-9a-f]{64}\n$`));
    const inspected = await skopeoInspect(registry, 'lca/seed:4.17.2');
    expect(inspected.Digest).toBe(pushed.stdout.trim().split('@')[1]);
    expect(inspected.Labels['com.openshift.lifecycle-agent.seed_format_version']).toBe('4');
    expect(JSON.parse(inspected.Labels['com.openshift.lifecycle-agent.seed_cluster_info']!)).toMatchObject({
      seed_cluster_ocp_version: '4.17.2',
    });

    const state = join(dir, 'cluster.json');
    const args = ['--single-node', '--state', state, '--version', '4.16.3', '--time-scale', '60'];
    args.push('--registry-plain-http', registry.host);
    let m: Mock = await serveMock(args, dir, cleanup);
    const k = (a: string[]): Promise<KubectlResult> => kubectl(m.kubeconfig, a);
    const field =
      (path: string): (() => Promise<string>) =>
      async () =>
        ok(await k(['get', 'ibu', 'upgrade', '-o', `jsonpath=${path}`]));
    const latest = field('{.status.conditions[-1:].type} {.status.conditions[-1:].reason}');

    const table = ok(await k(['get', 'ibu']))
      .trimEnd()
      .split('\n');
    expect(table[0]).toMatch(/^NAME\s+AGE\s+DESIRED STAGE\s+STATE\s+DETAILS$/);
    expect(table[1]).toMatch(/^upgrade\s+\d+d\s+Idle\s+Idle\s+Idle$/);
    expect(ok(await k(['get', 'nodes', '-o', 'name']))).toBe('node/master-0\n');

    const refused = await k(['patch', 'ibu', 'upgrade', '--type', 'merge', '-p', '{"spec":{"stage":"Upgrade"}}']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'The ImageBasedUpgrade "upgrade" is invalid: <nil>: Invalid value: "object": the stage transition is not permitted. Please refer to status.validNextStages for valid transitions.',
    );
    expect(await field('{.spec.stage}')()).toBe('Idle');

    const prep = JSON.stringify({
      spec: { stage: 'Prep', seedImageRef: { version: '4.17.2', image: `${registry.host}/lca/seed:4.17.2` } },
    });
    ok(await k(['patch', 'ibu', 'upgrade', '--type', 'merge', '-p', prep]));
    await until('Prep to complete', latest, (v) => v === 'PrepCompleted Completed');
    const got = cincy(['get', 'ibu', '--kubeconfig', m.kubeconfig]);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/^NAME\s+DESIRED STAGE\s+STAGE\s+STATE\s+NEXT STAGES\s+SINCE\s+DETAILS\n/);
    expect(got.stdout).toMatch(
      /\nupgrade\s+Prep\s+Prep\s+Completed\s+Idle,Upgrade\s+\S+\s+Prep stage completed successfully\n/,
    );
    expect(got.stdout).toMatch(
      /\n {2}Prep: started \S+ ago, took \S+\n {4}StaterootSetup: took \S+\n {4}Precache: took \S+\n/,
    );

    ok(await k(['patch', 'ibu', 'upgrade', '--type', 'merge', '-p', '{"spec":{"stage":"Upgrade"}}']));
    await until(
      'the Upgrade stage to start',
      field('{.status.conditions[-1:].type}'),
      (v) => v === 'UpgradeInProgress',
    );
    expect(m.output()).toContain('the Lifecycle Agent runs');
    await m.kill();
    m = await serveMock(args, dir, cleanup);
    await until('Upgrade to complete', latest, (v) => v === 'UpgradeCompleted Completed');
    expect(ok(await k(['get', 'clusterversion', 'version', '-o', 'jsonpath={.status.desired.version}']))).toBe(
      '4.17.2',
    );
    expect(ok(await k(['get', 'ibu', 'upgrade', '-o', 'jsonpath={.status.validNextStages}']))).toBe(
      '["Idle","Rollback"]',
    );
    const booted = (): Promise<string> =>
      k(['get', 'cm', 'cincy-mock-host', '-n', 'openshift-lifecycle-agent', '-o', 'jsonpath={.data.booted}']).then(ok);
    expect(await booted()).toBe('rhcos_4.17.2');

    ok(await k(['patch', 'ibu', 'upgrade', '--type', 'merge', '-p', '{"spec":{"stage":"Idle"}}']));
    await until('the upgrade to be finalized', latest, (v) => v === 'Idle Idle');
    const stateroots = JSON.parse(
      ok(
        await k([
          'get',
          'cm',
          'cincy-mock-host',
          '-n',
          'openshift-lifecycle-agent',
          '-o',
          'jsonpath={.data.stateroots}',
        ]),
      ),
    ) as Array<{ name: string }>;
    expect(stateroots.map((s) => s.name)).toEqual(['rhcos_4.17.2']);
    const rollback = await k(['patch', 'ibu', 'upgrade', '--type', 'merge', '-p', '{"spec":{"stage":"Rollback"}}']);
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toContain('the stage transition is not permitted');
    // The host pulled the seed from the registry: its manifest, configuration and layer.
    const served = (await registry.requests()).filter((q) => q.userAgent === 'cincy' && q.method === 'GET');
    expect(served.map((q) => q.path)).toEqual(expect.arrayContaining(['/v2/lca/seed/manifests/4.17.2']));
    expect(served.filter((q) => q.path.startsWith('/v2/lca/seed/blobs/'))).toHaveLength(2);
  });
});
