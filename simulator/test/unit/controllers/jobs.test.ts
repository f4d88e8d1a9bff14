// The mock cluster's simulation of Jobs (simulator/src/controllers/jobs.ts), driven by explicit simulated
// times: the payload Job completes when the store has the payload. The other controllers and scenario files
// are beside it (mco, operators, scenario).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeTime } from 'cincy/clock';
import { reconcile } from '@cincy/simulator/controllers/simulation';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { useCleanup } from '../../../../test/support/cleanup.js';
import { T0, K } from '../../support/simulation.js';

const cleanup = useCleanup();

describe('the Job simulation', () => {
  it('completes the payload Job when the store has the payload and fails it when not; other Jobs complete', () => {
    const store = cleanup.dir();
    const hex = 'b'.repeat(64);
    mkdirSync(join(store, 'sha256', hex, 'release-manifests'), { recursive: true });
    writeFileSync(join(store, 'sha256', hex, 'release-manifests', 'release-metadata'), '{}');
    const s = new ClusterState();
    const job = (ns: string, name: string, image: string): void =>
      void s.create(K.job, ns, {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: { template: { spec: { containers: [{ name: 'payload', image }] } } },
      });
    job('openshift-cluster-version', 'version-4.16.5-abcde', `quay.io/ocp/release@sha256:${hex}`);
    job('openshift-cluster-version', 'version-4.16.6-fghij', `quay.io/ocp/release@sha256:${'c'.repeat(64)}`);
    job('openshift-monitoring', 'migration', 'quay.io/ocp/tool:1');
    const status = (ns: string, name: string): Record<string, unknown> =>
      s.get(K.job, ns, name).status as Record<string, unknown>;
    reconcile(s, T0, { payloadStore: store });
    expect(status('openshift-cluster-version', 'version-4.16.5-abcde')).toEqual({
      startTime: kubeTime(T0),
      active: 1,
      ready: 0,
    });
    reconcile(s, T0 + 20_000, { payloadStore: store });
    expect(status('openshift-cluster-version', 'version-4.16.5-abcde')).toMatchObject({
      succeeded: 1,
      active: 0,
      completionTime: kubeTime(T0 + 20_000),
      conditions: [{ type: 'Complete', status: 'True' }],
    });
    const failed = status('openshift-cluster-version', 'version-4.16.6-fghij');
    expect(failed).toMatchObject({
      failed: 1,
      conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
    });
    expect((failed.conditions as Array<{ message: string }>)[0]!.message).toContain(
      `quay.io/ocp/release@sha256:${'c'.repeat(64)}`,
    );
    expect(status('openshift-monitoring', 'migration').succeeded).toBeUndefined();
    reconcile(s, T0 + 30_000, { payloadStore: store });
    expect(status('openshift-monitoring', 'migration')).toMatchObject({
      succeeded: 1,
      conditions: [{ type: 'Complete', status: 'True' }],
    });
  });
});
