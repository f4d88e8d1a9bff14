// The update executor in the test's process, as the cluster-version-operator's scenario tests run it: the
// operator's loop against the mock cluster's API server and simulated controllers in this process, on a
// clock moved by hand, and the update service in this process too, serving the releases of
// updateFixtures.ts (test/service/agent/update/operator.test.ts, test/service/cli/adm/status.test.ts).

import { requestUpdate, type UpgradeRequest } from '../../src/cli/adm/request.js';
import { TrustStore } from '../../src/signatures/verify.js';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { useCleanup } from './cleanup.js';
import { poller, startOperator, type RunningOperator } from './inProcessAgent.js';
import { startServer } from './server.js';
import { image, useUpdateFixtures, type UpdateFixtures } from './updateFixtures.js';

export interface UpdateRig {
  cluster: InProcessCluster;
  operator: RunningOperator;
  server: string;
  ask(r: UpgradeRequest): Promise<unknown>;
  poll(): Promise<unknown>;
  startOperator(): RunningOperator;
}

/**
 * Call once at the top of a test file: the fixtures are made before its tests and removed after them;
 * each rig (a server, a cluster at 4.15.9 in stable-4.16 that polled once, an executor running) is closed
 * after its test.
 */
export function useUpdateRig(): {
  rig(scenario?: Record<string, unknown>, featureSet?: string): Promise<UpdateRig>;
  fixtures(): UpdateFixtures;
} {
  const cleanup = useCleanup();
  let fixtures: UpdateFixtures;
  let trust: TrustStore;
  useUpdateFixtures((made, key) => {
    fixtures = made;
    trust = key;
  });

  async function rig(scenario?: Record<string, unknown>, featureSet?: string): Promise<UpdateRig> {
    const server = await startServer({ graphData: fixtures.tree, trust });
    cleanup.add(() => server.close());
    const cluster = await InProcessCluster.start({
      version: '4.15.9',
      image: image('4.15.9'),
      channel: 'stable-4.16',
      upstream: `${server.url}/api/upgrades_info/v1/graph`,
      payloadStore: fixtures.payloads,
      scenario,
      featureSet,
    });
    cleanup.add(() => cluster.close());
    const updates = poller(cluster);
    await updates.poll();
    const admin = cluster.client();
    const start = (): RunningOperator => {
      const op = startOperator(cluster, {
        trust,
        payloads: fixtures.payloads,
        signatureStores: [`${server.url}/signatures`],
      });
      cleanup.add(() => op.stop());
      return op;
    };
    return {
      cluster,
      server: server.url,
      operator: start(),
      ask: (r) => requestUpdate(admin, r),
      poll: () => updates.poll(),
      startOperator: start,
    };
  }

  return { rig, fixtures: () => fixtures };
}
