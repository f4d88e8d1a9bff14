// `cincy mock-cluster --kubeconfig FILE` on a real kube-apiserver (../shared/kube): the simulated cluster
// made there, its controllers acting through that server's API, the product's agent and commands working on
// it as on any cluster, and a restart finding the cluster it made. What the real server refuses of the
// simulator shows here, where the simulator's own API server would have taken it.
import { join } from 'node:path';
import { startCincy, until } from '../../../test/support/processes.js';
import { describe, expect, it } from 'vitest';
import { cincyAsync, serveCli, useCleanup } from '../../../test/support/cli.js';
import { kubectl, kubectlAvailable } from '../../../test/support/kubectl.js';
import { realApiServerAvailable, useRealApiServer } from '../../../test/support/realApiServer.js';
import { clusterFlags, image, payloadVersions, writeUpdateTree } from '../../../test/support/updateFixtures.js';

const cleanup = useCleanup();
const realApiServer = useRealApiServer();

describe.runIf(realApiServerAvailable() && kubectlAvailable())('the simulated cluster on a real API server', () => {
  it('is made there, acts through its API, serves the agent and adm upgrade, and is found again after a kill', async () => {
    const dir = cleanup.dir();
    const payloads = join(dir, 'payloads');
    for (const [v, madeAs] of payloadVersions().filter(([v]) => ['4.15.9', '4.16.5'].includes(v))) {
      const made = await cincyAsync([
        'payload',
        'create',
        '--version',
        madeAs,
        '--image',
        image(v),
        '--store',
        payloads,
      ]);
      expect(made.code, made.stderr).toBe(0);
    }
    const server = (
      await serveCli(['--db', ':memory:', '--graph-data', writeUpdateTree(join(dir, 'tree'), {})], cleanup)
    ).url;
    const api = await realApiServer();
    const k = async (...args: string[]): Promise<string> => {
      const r = await kubectl(api.kubeconfig, args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const mockArgs = ['mock-cluster', '--kubeconfig', api.kubeconfig, ...clusterFlags(server, payloads, 60)];
    let mock = await startCincy(mockArgs, /simulating on \S+ \(a new cluster made there\)/, cleanup);

    // The inventory, made on the real server with OpenShift's own CRDs.
    expect(await k('get', 'clusterversion', 'version', '-o', 'jsonpath={.status.desired.version}')).toBe('4.15.9');
    expect((await k('get', 'nodes', '-o', 'name')).trim().split('\n')).toHaveLength(6);
    expect((await k('get', 'clusteroperators', '-o', 'name')).trim().split('\n').length).toBeGreaterThan(30);
    // The controllers act through the API: pods scheduled and running, nodes' not-ready taint taken off.
    await until('every pod running', async () => {
      const phases = (await k('get', 'pods', '-A', '-o', 'jsonpath={.items[*].status.phase}')).split(' ');
      return phases.length > 30 && phases.every((p) => p === 'Running');
    });
    expect(await k('get', 'nodes', '-o', 'jsonpath={.items[*].spec.taints}')).not.toContain('not-ready');
    const managers = JSON.parse(await k('get', 'node', 'worker-0', '-o', 'json', '--show-managed-fields')) as {
      metadata: { managedFields?: Array<{ manager: string }> };
    };
    expect(managers.metadata.managedFields?.map((f) => f.manager)).toContain('cincy-mock-cluster');

    // The product works on it as on any cluster: a poll, and the report of oc adm upgrade.
    const polled = await cincyAsync(['agent', '--once', '--kubeconfig', api.kubeconfig]);
    expect(polled.code, polled.stderr).toBe(0);
    expect(await k('get', 'clusterversion', 'version', '-o', 'jsonpath={.status.availableUpdates[*].version}')).toMatch(
      /4\.16\.5/,
    );
    const report = await cincyAsync(['adm', 'upgrade', '--kubeconfig', api.kubeconfig]);
    expect(report.stdout).toMatch(/^Cluster version is 4\.15\.9\n/);
    expect(report.stdout).toMatch(/Recommended updates:[\s\S]*4\.16\.5/);

    // An update starts there: accepted, the payload Job run by the simulated cluster, manifests applied.
    const agent = await startCincy(
      ['agent', '--kubeconfig', api.kubeconfig, '--interval', '1', '--payload-store', payloads, '--follow-mock-clock'],
      /poll/,
      cleanup,
    );
    const asked = await cincyAsync(['adm', 'upgrade', '--kubeconfig', api.kubeconfig, '--to', '4.16.5', '--force']);
    expect(asked.stdout, asked.stderr).toBe('Requested update to 4.16.5\n');
    await until('the update under way', async () =>
      /Working towards 4\.16\.5: [1-9]\d* of \d+ done/.test(
        await k(
          'get',
          'clusterversion',
          'version',
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Progressing")].message}',
        ),
      ),
    );
    expect(
      await k('get', 'jobs', '-n', 'openshift-cluster-version', '-o', 'jsonpath={.items[*].status.succeeded}'),
    ).toBe('1');
    agent.child.kill('SIGKILL');

    // Killed and started again, it finds the cluster it made and goes on with it: nothing made twice.
    mock.child.kill('SIGKILL');
    mock = await startCincy(mockArgs, /simulating on \S+ \(the cluster found there\)/, cleanup);
    expect(await k('get', 'clusterversion', 'version', '-o', 'jsonpath={.spec.desiredUpdate.version}')).toBe('4.16.5');
    expect((await k('get', 'nodes', '-o', 'name')).trim().split('\n')).toHaveLength(6);
    expect(mock.output()).not.toMatch(/refused|invalid/i);
  }, 300_000);
});
