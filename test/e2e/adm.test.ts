// `cincy adm upgrade` and its subcommands as an `oc` user runs them, against `cincy mock-cluster` as a
// process: the messages, layout and exit codes of oc, and each failure of the Kubernetes client as one line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import { cincyAsync, useCleanup } from '../support/cli.js';
import { serveMock, CV } from '../support/mock.js';

const cleanup = useCleanup();

/** Runs each command (with its environment) at once; each must fail with exit 1 and its one line. */
async function expectLines(runs: Array<[string[], Record<string, string>, string]>): Promise<void> {
  const results = await Promise.all(runs.map(([args, env]) => cincyAsync(args, env)));
  results.forEach((r, i) => {
    expect(r.stderr, runs[i]![0].join(' ')).toBe(`cincy: ${runs[i]![2]}\n`);
    expect(r.code).toBe(1);
  });
}

const digest = (v: string): string =>
  `quay.example/ocp/release@sha256:${Buffer.from(v).toString('hex').padEnd(64, '0')}`;

describe('adm upgrade as oc has it', () => {
  it('channel: no change, the available channels, --allow-explicit-channel, clearing, and nothing printed on success', async () => {
    const dir = cleanup.dir();
    const m = await serveMock(['--version', '4.16.3', '--channel', 'stable-4.16'], dir, cleanup);
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const cv = async (): Promise<ClusterVersion> => (await custom.getClusterCustomObject(CV)) as ClusterVersion;
    // What the agent writes from the graph: the channels 4.16.3 is in.
    const status = (await cv()).status;
    await custom.replaceClusterCustomObjectStatus({
      ...CV,
      body: {
        ...(await cv()),
        status: { ...status, desired: { ...status.desired, channels: ['candidate-4.16', 'fast-4.16', 'stable-4.16'] } },
      },
    });
    const channel = (...args: string[]) =>
      cincyAsync(['adm', 'upgrade', 'channel', ...args, '--kubeconfig', m.kubeconfig]);

    expect(await channel('stable-4.16')).toMatchObject({
      code: 0,
      stdout: 'info: Cluster is already in stable-4.16 (no change)\n',
      stderr: '',
    });
    expect(await channel('fast-4.16')).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect((await cv()).spec.channel).toBe('fast-4.16');
    expect(await channel('candidate-4.17')).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'cincy: the requested channel "candidate-4.17" is not one of the available channels (candidate-4.16, fast-4.16, stable-4.16), you must pass --allow-explicit-channel to continue\n',
    });
    expect((await cv()).spec.channel).toBe('fast-4.16');
    expect(await channel('candidate-4.17', '--allow-explicit-channel')).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        'warning: The requested channel "candidate-4.17" is not one of the available channels (candidate-4.16, fast-4.16, stable-4.16). You have used --allow-explicit-channel to proceed anyway. Setting the update channel to "candidate-4.17".\n',
    });
    // Clearing a channel that is not listed needs nothing more; a listed one needs --allow-explicit-channel.
    expect(await channel()).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        'warning: Clearing channel "candidate-4.17"; cluster will no longer request available update recommendations.\n',
    });
    expect((await cv()).spec.channel).toBeUndefined();
    expect((await channel()).stdout).toBe('info: Cluster channel is already clear (no change)\n');
    await channel('stable-4.16');
    expect(await channel()).toMatchObject({
      code: 1,
      stderr:
        'cincy: You are requesting to clear the update channel. The current channel "stable-4.16" is one of the available channels, you must pass --allow-explicit-channel to continue\n',
    });
    expect((await channel('--allow-explicit-channel')).code).toBe(0);
    expect((await cv()).spec.channel).toBeUndefined();
  }, 240_000);

  it("status, --to the current version, --to-latest, --clear and --include-not-recommended with none, in oc's words", async () => {
    const dir = cleanup.dir();
    const m = await serveMock(['--version', '4.16.3', '--channel', 'stable-4.16'], dir, cleanup);
    const custom = m.kc.makeApiClient(k8s.CustomObjectsApi);
    const cv = async (): Promise<ClusterVersion> => (await custom.getClusterCustomObject(CV)) as ClusterVersion;
    const current = await cv();
    await custom.replaceClusterCustomObjectStatus({
      ...CV,
      body: {
        ...current,
        status: {
          ...current.status,
          availableUpdates: ['4.16.4', '4.16.5'].map((version) => ({ version, image: digest(version) })),
          conditionalUpdates: [],
          conditions: current.status.conditions!.map((c) =>
            c.type === 'RetrievedUpdates' ? { ...c, status: 'True', reason: '', message: '' } : c,
          ),
        },
      },
    });
    const upgrade = (...args: string[]) => cincyAsync(['adm', 'upgrade', ...args, '--kubeconfig', m.kubeconfig]);

    expect(await cincyAsync(['adm', 'upgrade', 'status', '--kubeconfig', m.kubeconfig])).toMatchObject({
      code: 0,
      stdout: 'The cluster is not updating.\n',
    });
    expect(await upgrade('--to', '4.16.3')).toMatchObject({
      code: 0,
      stdout: 'info: Cluster is already at version 4.16.3\n',
      stderr: '',
    });
    expect((await cv()).spec.desiredUpdate).toBeUndefined();
    expect(await upgrade('--clear')).toMatchObject({ code: 0, stdout: 'info: No update in progress\n' });
    expect(await upgrade('--to-latest')).toMatchObject({ code: 0, stdout: 'Requested update to 4.16.5\n' });
    expect((await cv()).spec.desiredUpdate).toEqual({ version: '4.16.5', image: digest('4.16.5') });
    expect(await upgrade('--clear')).toMatchObject({ code: 0, stdout: 'Cancelled requested upgrade to 4.16.5\n' });
    expect((await cv()).spec.desiredUpdate).toBeUndefined();
    expect(await upgrade('--clear', '--to-latest')).toMatchObject({
      code: 1,
      stderr: 'cincy: --clear may not be specified with any other flags\n',
    });
    const report = await upgrade('--include-not-recommended');
    expect(report.stdout).toMatch(
      /\n {2}4\.16\.4 {6}quay\.example\S+\n\nNo updates which are not recommended based on your cluster configuration are available\.\n$/,
    );
  }, 240_000);
});

describe('Kubernetes client errors, one line each', () => {
  it('names a missing kubeconfig, refused credentials, an unreachable server and a missing ClusterVersion', async () => {
    const dir = cleanup.dir();
    const m = await serveMock(['--version', '4.16.3', '--channel', 'stable-4.16'], dir, cleanup);
    const noConfig = { HOME: dir, KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' };
    const refused = join(dir, 'refused-kubeconfig');
    writeFileSync(refused, readFileSync(m.kubeconfig, 'utf8').replace(/token: .*/, 'token: not-the-token'));
    const down = join(dir, 'down-kubeconfig');
    writeFileSync(down, readFileSync(m.kubeconfig, 'utf8').replace(/server: .*/, 'server: https://127.0.0.1:1'));
    const unauthorized = `401 Unauthorized: the token in KUBECONFIG (${refused}) was refused by ${m.url}`;
    // Each run with the one line it must print, all at once.
    await expectLines([
      [['adm', 'upgrade'], noConfig, 'no kubeconfig: set --kubeconfig or KUBECONFIG'],
      [
        ['adm', 'upgrade'],
        { ...noConfig, KUBECONFIG: join(dir, 'gone') },
        `KUBECONFIG: cannot read ${join(dir, 'gone')}: no such file`,
      ],
      [
        ['adm', 'upgrade', '--kubeconfig', join(dir, 'gone')],
        {},
        `--kubeconfig: cannot read ${join(dir, 'gone')}: no such file`,
      ],
      [['adm', 'upgrade'], { KUBECONFIG: refused }, unauthorized],
      [['adm', 'upgrade', 'channel', 'fast-4.16'], { KUBECONFIG: refused }, unauthorized],
      [['get', 'co'], { KUBECONFIG: refused }, unauthorized],
      [
        ['agent', '--once', '--kubeconfig', refused],
        {},
        `401 Unauthorized: the token in ${refused} (--kubeconfig) was refused by ${m.url}`,
      ],
      [
        ['adm', 'upgrade', '--kubeconfig', down],
        {},
        'cannot reach the cluster at https://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1',
      ],
    ]);

    await m.kc.makeApiClient(k8s.CustomObjectsApi).deleteClusterCustomObject(CV);
    const missing = `ClusterVersion "version" not found on ${m.url}`;
    await expectLines([
      [['adm', 'upgrade', '--kubeconfig', m.kubeconfig], {}, missing],
      [['adm', 'upgrade', '--to', '4.16.4', '--kubeconfig', m.kubeconfig], {}, missing],
    ]);
    // Made again without status, as a create on a real API server leaves it until the cluster writes it.
    await m.kc.makeApiClient(k8s.CustomObjectsApi).createClusterCustomObject({
      ...CV,
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'ClusterVersion',
        metadata: { name: 'version' },
        spec: { clusterID: '8f3c5e2a-4b6d-4e8f-9a1b-2c3d4e5f6a7b' },
      },
    });
    const unwritten = 'ClusterVersion "version" has no status.desired yet: the cluster has not written its status';
    await expectLines([[['adm', 'upgrade', '--kubeconfig', m.kubeconfig], {}, unwritten]]);
  }, 240_000);
});
