// The mock cluster's simulation of the cluster operators (simulator/src/controllers/operators.ts), driven by
// explicit simulated times: their durations, progress, the scenario's Degraded or unavailable, and their
// Deployments' rollout. The Machine Config Operator, Jobs and scenario files are beside it (mco, jobs,
// scenario).
import { describe, expect, it } from 'vitest';
import { kubeTime } from 'cincy/clock';
import { seedInventory } from '@cincy/simulator/controllers/inventory';
import { defaultOperatorDuration } from '@cincy/simulator/controllers/operators';
import { reconcile } from '@cincy/simulator/controllers/simulation';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { T0, MIN, OLD, NEW, IMAGE, K, runRelease, setScenario, co, cond } from '../../support/simulation.js';

describe('the cluster operator simulation', () => {
  const cluster = (): ClusterState => {
    const s = new ClusterState();
    seedInventory(s, { version: OLD, image: IMAGE, arch: 'amd64' });
    reconcile(s, T0 - MIN);
    return s;
  };

  it('gives each operator a deterministic duration: 1–4 minutes, 8–10 for etcd and kube-apiserver', () => {
    const within = (names: string[], low: number, high: number): boolean =>
      names.every((n) => defaultOperatorDuration(n) >= low && defaultOperatorDuration(n) < high);
    expect(within(['dns', 'ingress', 'console', 'network'], MIN, 4 * MIN)).toBe(true);
    expect(within(['etcd', 'kube-apiserver'], 8 * MIN, 10 * MIN)).toBe(true);
    expect(defaultOperatorDuration('dns')).toBe(defaultOperatorDuration('dns'));
  });

  it('progresses when its Deployment runs a new release, and reports every version after its duration', () => {
    const s = cluster();
    expect(co(s, 'etcd').versions.map((v) => v.name)).toEqual(['operator', 'raw-internal', 'etcd']);
    runRelease(s, 'etcd', NEW);
    reconcile(s, T0);
    expect(cond(s, 'etcd', 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Upgrading',
      message: `Working towards ${NEW}`,
      lastTransitionTime: kubeTime(T0),
    });
    expect(co(s, 'etcd').versions.every((v) => v.version === OLD)).toBe(true);
    const done = T0 + defaultOperatorDuration('etcd');
    reconcile(s, done - 1000);
    expect(co(s, 'etcd').versions[0]!.version).toBe(OLD);
    reconcile(s, done + 20_000);
    expect(co(s, 'etcd').versions).toEqual(
      ['operator', 'raw-internal', 'etcd'].map((name) => ({ name, version: NEW })),
    );
    expect(cond(s, 'etcd', 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'AsExpected',
      lastTransitionTime: kubeTime(done),
    });
    expect(cond(s, 'etcd', 'Available')).toMatchObject({ status: 'True', reason: 'AsExpected' });
    expect(cond(s, 'etcd', 'Available').lastTransitionTime).toBe('2026-03-02T11:10:00Z'); // it never flipped
    expect(s.get(K.co, undefined, 'etcd').metadata.annotations ?? {}).toEqual({});
    expect(co(s, 'dns').versions[0]!.version).toBe(OLD); // the others did not move
  });

  it('turns Degraded or unavailable as the scenario says, without reporting the new version', () => {
    const s = cluster();
    setScenario(s, {
      operators: {
        dns: { behavior: 'degraded', duration: '2m' },
        ingress: { behavior: 'unavailable', duration: '3m' },
      },
    });
    runRelease(s, 'dns', NEW);
    runRelease(s, 'ingress', NEW);
    reconcile(s, T0);
    reconcile(s, T0 + 10 * MIN);
    expect(cond(s, 'dns', 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'SimulatedFailure',
      lastTransitionTime: kubeTime(T0 + 2 * MIN),
    });
    expect(cond(s, 'dns', 'Degraded').message).toMatch(/^Simulated failure/);
    expect(cond(s, 'ingress', 'Available')).toMatchObject({
      status: 'False',
      reason: 'SimulatedFailure',
      lastTransitionTime: kubeTime(T0 + 3 * MIN),
    });
    expect([co(s, 'dns').versions[0]!.version, co(s, 'ingress').versions[0]!.version]).toEqual([OLD, OLD]);
    expect(cond(s, 'dns', 'Progressing').status).toBe('True');
    // The scenario is read on every pass: fixed, the operator completes.
    setScenario(s, { operators: {} });
    reconcile(s, T0 + 11 * MIN);
    expect(cond(s, 'dns', 'Degraded').status).toBe('False');
    expect(co(s, 'dns').versions[0]!.version).toBe(NEW);
  });

  it('gives deployments a rolled-out status, once per generation', () => {
    const s = cluster();
    const d = s.list(K.deploy)[0]!;
    expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 1, availableReplicas: 1 });
  });
});
