// The workload-lock kinds (lcm.mirantis.com/v1alpha1) of `cincy mock-cluster --workload-locks` through
// kubectl, the real client: served only on a cluster that has them, their printer columns, the simulated
// controllers answering maintenance requests made with kubectl, a lock failed with `kubectl patch
// --subresource=status` and recovered as docs/user/workload-locks.md says, and `cincy get maintenance` reading it all.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cincy, cincyAsync, useCleanup } from '../../../test/support/cli.js';
import { kubectl, kubectlAvailable, type KubectlResult } from '../../../test/support/kubectl.js';
import { serveMock, type Mock } from '../../../test/support/mock.js';
import { until } from '../../../test/support/processes.js';

const cleanup = useCleanup();

async function start(args: string[] = []): Promise<Mock> {
  const dir = cleanup.dir();
  return serveMock(['--state', join(dir, 'state.json'), ...args], dir, cleanup);
}

const ok = (r: KubectlResult): KubectlResult => {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r;
};

const eventually = (what: string, check: () => Promise<boolean>, ms = 30_000): Promise<true> =>
  until(what, async () => (await check()) || undefined, ms);

describe('mock-cluster --workload-locks', () => {
  it('refuses a controller it does not simulate, naming the flag', () => {
    const r = cincy(['mock-cluster', '--port', '0', '--workload-locks', 'openstack,nova']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "--workload-locks: 'nova' is not a controller the mock simulates (one of openstack, ceph)",
    );
  });
});

describe.runIf(kubectlAvailable())('workload locks through kubectl', () => {
  it('serves the lock kinds only on a cluster that has them', async () => {
    const m = await start();
    const r = await kubectl(m.kubeconfig, ['get', 'nodeworkloadlocks']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the server doesn\'t have a resource type "nodeworkloadlocks"');
    const report = await cincyAsync(['get', 'maintenance', '--kubeconfig', m.kubeconfig]);
    expect(report.code).not.toBe(0);
    expect(report.stderr).toContain('the cluster does not serve lcm.mirantis.com/v1alpha1');
  });

  it('lists the locks with their columns, answers maintenance requests made with kubectl, and shows a failed lock', async () => {
    const m = await start(['--workload-locks', 'openstack,ceph', '--time-scale', '600']);
    const k = (args: string[], input?: string): Promise<KubectlResult> => kubectl(m.kubeconfig, args, input);
    const nodeLocks = ok(await k(['get', 'nodeworkloadlocks']))
      .stdout.trim()
      .split('\n');
    expect(nodeLocks[0]!.split(/\s+/)).toEqual(['NAME', 'CONTROLLER', 'NODE', 'STATE', 'AGE']);
    expect(nodeLocks).toHaveLength(13);
    expect(nodeLocks[1]!.split(/\s+/).slice(0, 4)).toEqual(['ceph-master-0', 'ceph', 'master-0', 'active']);
    const wide = ok(await k(['get', 'clusterworkloadlocks', '-o', 'wide']))
      .stdout.trim()
      .split('\n');
    expect(wide[0]!.split(/\s+/)).toEqual(['NAME', 'CONTROLLER', 'STATE', 'RELEASE', 'ERROR', 'AGE']);
    expect(wide.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
      ['ceph', 'ceph', 'active', '4.16.3'],
      ['openstack', 'openstack', 'active', '4.16.3'],
    ]);

    /** Sets a node lock's status as its controller would, through the status subresource. */
    const patchStatus = async (lock: string, status: object): Promise<void> => {
      const patch = JSON.stringify({ status });
      ok(await k(['patch', 'nodeworkloadlock', lock, '--subresource=status', '--type=merge', '-p', patch]));
    };
    const state = async (kind: string, name: string): Promise<string> =>
      ok(await k(['get', kind, name, '-o', 'jsonpath={.status.state}'])).stdout;
    ok(
      await k(
        ['apply', '-f', '-'],
        'apiVersion: lcm.mirantis.com/v1alpha1\nkind: ClusterMaintenanceRequest\nmetadata: {name: by-hand}\nspec: {scope: os}\n',
      ),
    );
    // OpenStack (20 simulated minutes) first; Ceph starts only then (12 more). The order is read from when each
    // lock changed state (the controllers' annotation), not from a kubectl call racing the fast clock.
    await eventually(
      'both inactive',
      async () =>
        (await state('clusterworkloadlock', 'openstack')) === 'inactive' &&
        (await state('clusterworkloadlock', 'ceph')) === 'inactive',
    );
    const changed = async (name: string): Promise<number> =>
      Date.parse(
        ok(
          await k([
            'get',
            'clusterworkloadlock',
            name,
            '-o',
            'jsonpath={.metadata.annotations.cincy\\.mock/lock-state-changed}',
          ]),
        ).stdout,
      );
    const [openstackAt, cephAt] = [await changed('openstack'), await changed('ceph')];
    expect(cephAt - openstackAt).toBeGreaterThanOrEqual(12 * 60_000);

    ok(
      await k(
        ['apply', '-f', '-'],
        'apiVersion: lcm.mirantis.com/v1alpha1\nkind: NodeMaintenanceRequest\nmetadata: {name: worker-0}\nspec: {nodeName: worker-0, scope: os}\n',
      ),
    );
    await eventually(
      'both locks of worker-0 inactive',
      async () =>
        (await state('nodeworkloadlock', 'openstack-worker-0')) === 'inactive' &&
        (await state('nodeworkloadlock', 'ceph-worker-0')) === 'inactive',
    );
    await patchStatus('ceph-worker-1', { state: 'failed', errorMessage: 'OSD 4 does not come up' });
    const failed = ok(await k(['get', 'nodeworkloadlock', 'ceph-worker-1', '-o', 'wide'])).stdout;
    expect(failed).toMatch(/ceph-worker-1\s+ceph\s+worker-1\s+failed\s+4\.16\.3\s+OSD 4 does not come up/);

    const report = await cincyAsync(['get', 'maintenance', '--kubeconfig', m.kubeconfig]);
    expect(report.stderr).toBe('');
    const lines = report.stdout.split('\n');
    expect(lines[0]).toBe('Maintenance: ClusterMaintenanceRequest by-hand (scope os)');
    expect(lines[1]).toBe('Phase:       4 – worker nodes one by one: worker-0');
    expect(lines[2]).toBe(
      'Stopped:     NodeWorkloadLock ceph-worker-1 (controller ceph, node worker-1) failed: OSD 4 does not come up',
    );
    expect(lines.find((l) => l.startsWith('worker-0'))?.split(/\s+/)).toEqual([
      'worker-0',
      'os',
      'inactive',
      'inactive',
    ]);
    expect(lines.find((l) => l.startsWith('worker-1'))?.split(/\s+/)).toEqual(['worker-1', '-', 'failed', 'active']);

    // The maintenance over: the controllers make their locks active again (the failed one stays failed).
    ok(await k(['delete', 'nodemaintenancerequest', 'worker-0']));
    ok(await k(['delete', 'clustermaintenancerequest', 'by-hand']));
    await eventually(
      'locks active again',
      async () =>
        (await state('nodeworkloadlock', 'openstack-worker-0')) === 'active' &&
        (await state('clusterworkloadlock', 'ceph')) === 'active',
    );
    expect(await state('nodeworkloadlock', 'ceph-worker-1')).toBe('failed');

    // Recovered as docs/user/workload-locks.md says, setting the state alone: the controller drops the old errorMessage.
    await patchStatus('ceph-worker-1', { state: 'active' });
    const errorOf = async (): Promise<string> =>
      ok(await k(['get', 'nodeworkloadlock', 'ceph-worker-1', '-o', 'jsonpath={.status.errorMessage}'])).stdout;
    await eventually('the errorMessage of the recovered lock cleared', async () => (await errorOf()) === '');
    expect(await state('nodeworkloadlock', 'ceph-worker-1')).toBe('active');
  }, 120_000);
});
