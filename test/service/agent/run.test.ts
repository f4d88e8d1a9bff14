// The agent as one process (src/agent/run.ts: the poll loop and the update executor) on the mock cluster's
// API server in this process, with the update service in this process too: it keeps real time unless it
// is given another clock. The executor's scenarios are in test/service/agent/update/operator.test.ts.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../../src/agent/clusterVersion.js';
import { RiskEvaluator } from '../../../src/agent/risks.js';
import { runAgent } from '../../../src/agent/run.js';
import { CLOCK_CONFIGMAP } from '@cincy/simulator/clock/declaredClock';
import { PayloadStore } from '../../../src/payload/store.js';
import { TrustStore } from '../../../src/signatures/verify.js';
import { useCleanup } from '../../support/cleanup.js';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { startServer } from '../../support/server.js';
import { image, useUpdateFixtures, type UpdateFixtures } from '../../support/updateFixtures.js';

const cleanup = useCleanup();
let fixtures: UpdateFixtures;
let trust: TrustStore;
useUpdateFixtures((made, key) => {
  fixtures = made;
  trust = key;
});

const condition = (cv: ClusterVersion, type: string) => cv.status.conditions?.find((c) => c.type === type);

describe('the agent on a real cluster', () => {
  it("never reads the mock cluster's clock: the agent keeps real time unless it is given another clock", async () => {
    const server = await startServer({ graphData: fixtures.tree, trust });
    cleanup.add(() => server.close());
    const run = async (): Promise<string[]> => {
      const cluster = await InProcessCluster.start({
        version: '4.15.9',
        image: image('4.15.9'),
        channel: 'stable-4.16',
        upstream: `${server.url}/graph`,
        payloadStore: fixtures.payloads,
      });
      cleanup.add(() => cluster.close());
      const stop = new AbortController();
      const agent = runAgent({
        api: cluster.client().api,
        log: pino({ level: 'silent' }),
        signal: stop.signal,
        poller: { evaluator: new RiskEvaluator({}) },
        intervalMs: 3600_000,
        update: {
          payloads: new PayloadStore(fixtures.payloads),
          retrieval: { kind: 'job' },
          trust,
          signatureStores: [],
          workers: 4,
        },
      });
      // Until both loops have looked at the cluster: the poll wrote its lists, the executor its Upgradeable.
      const cv = (): ClusterVersion => cluster.cv();
      const looked = (): boolean => !!(cv().status.availableUpdates && condition(cv(), 'Upgradeable'));
      for (let i = 0; i < 1000 && !looked(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      stop.abort();
      expect(looked(), 'both loops looked at the cluster within 10 s').toBe(true);
      await agent;
      return cluster.requests.map((q) => q.path);
    };
    const clockPath = `/api/v1/namespaces/${CLOCK_CONFIGMAP.namespace}/configmaps/${CLOCK_CONFIGMAP.name}`;
    const real = await run();
    expect(real.some((p) => p.includes('/clusterversions'))).toBe(true);
    expect(real).not.toContain(clockPath);
  });
});
