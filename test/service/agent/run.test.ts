// The agent as one process (src/agent/run.ts: the poll loop and the update executor) on the mock cluster's
// API server in this process, with the update service in this process too: it keeps real time unless it
// is given another clock. The executor's scenarios are in test/service/agent/update/operator.test.ts.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../../src/agent/clusterVersion.js';
import { RiskEvaluator } from '../../../src/agent/risks.js';
import { runAgent, type ExecutorClock } from '../../../src/agent/run.js';
import type { ClusterApi } from '../../../src/cluster/api.js';
import { CLOCK_CONFIGMAP } from '@cincy/simulator/clock/declaredClock';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { ADMIN_GATES } from '../../../src/agent/update/adminAcks.js';
import { RESOURCES } from '../../../src/cluster/resources.js';
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

/** A cluster at 4.15.9 in stable-4.16, in this process, asking an update service of its own. */
async function cluster(): Promise<InProcessCluster> {
  const server = await startServer({ graphData: fixtures.tree, trust });
  cleanup.add(() => server.close());
  const made = await InProcessCluster.start({
    version: '4.15.9',
    image: image('4.15.9'),
    channel: 'stable-4.16',
    upstream: `${server.url}/graph`,
    payloadStore: fixtures.payloads,
  });
  cleanup.add(() => made.close());
  return made;
}

/** The agent on `api`, polling once an hour, until `stop` aborts; the executor on `executorClock` if given. */
const agent = (api: ClusterApi, stop: AbortSignal, executorClock?: ExecutorClock): Promise<void> =>
  runAgent({
    api,
    log: pino({ level: 'silent' }),
    signal: stop,
    poller: { evaluator: new RiskEvaluator({}) },
    intervalMs: 3600_000,
    update: {
      payloads: new PayloadStore(fixtures.payloads),
      retrieval: { kind: 'job' },
      trust,
      signatureStores: [],
      workers: 4,
    },
    executorClock,
  });

describe('the agent on a real cluster', () => {
  it("never reads the mock cluster's clock: the agent keeps real time unless it is given another clock", async () => {
    const run = async (): Promise<string[]> => {
      const made = await cluster();
      const stop = new AbortController();
      const running = agent(made.client().api, stop.signal);
      // Until both loops have looked at the cluster: the poll wrote its lists, the executor its Upgradeable.
      const cv = (): ClusterVersion => made.cv();
      const looked = (): boolean => !!(cv().status.availableUpdates && condition(cv(), 'Upgradeable'));
      for (let i = 0; i < 1000 && !looked(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      stop.abort();
      expect(looked(), 'both loops looked at the cluster within 10 s').toBe(true);
      await running;
      return made.requests.map((q) => q.path);
    };
    const clockPath = `/api/v1/namespaces/${CLOCK_CONFIGMAP.namespace}/configmaps/${CLOCK_CONFIGMAP.name}`;
    const real = await run();
    expect(real.some((p) => p.includes('/clusterversions'))).toBe(true);
    expect(real).not.toContain(clockPath);
  });

  it('re-assesses Upgradeable as soon as admin-gates changes, as the CVO does (addFunc, updateFunc, deleteFunc)', async () => {
    const made = await cluster();
    const { api } = made.client();
    const stop = new AbortController();
    // The executor's time never moves: no timer of its own ends a wait, only a change notice does.
    const running = agent(api, stop.signal, { clock: new ManualClock() });
    cleanup.add(() => (stop.abort(), running));
    const upgradeable = async (want: (c: ReturnType<typeof condition>) => boolean): Promise<unknown> => {
      for (let i = 0; i < 500; i++) {
        if (want(condition(made.cv(), 'Upgradeable'))) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return condition(made.cv(), 'Upgradeable');
    };
    expect(await upgradeable((c) => c?.status === 'True'), 'Upgradeable True at first').toBeUndefined();
    // Until the executor is idle (its first passes reconcile the release, writing the ClusterVersion as they
    // go, and each write wakes it again): no write for 300 ms.
    for (let i = 0, seen = ''; i < 100; i++) {
      const rv = made.cv().metadata.resourceVersion ?? '';
      if (rv === seen) break;
      seen = rv;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // A gate of the cluster's minor, not acknowledged: minor updates are held back.
    const gates = await api.get<{ data?: Record<string, string> }>(RESOURCES.configMaps, ADMIN_GATES);
    await api.replace(RESOURCES.configMaps, {
      ...(gates as object),
      data: { 'ack-4.15-kube-1.29-api-removals-in-4.16': 'Kubernetes 1.29 removed several APIs.' },
    } as never);
    expect(
      await upgradeable((c) => c?.status === 'False' && c.reason === 'AdminAckRequired'),
      'AdminAckRequired once the gate is added',
    ).toBeUndefined();
    await api.delete(RESOURCES.configMaps, ADMIN_GATES);
    expect(
      await upgradeable((c) => c?.reason === 'UnableToAccessAdminGatesConfigMap'),
      'the missing ConfigMap said once it is deleted',
    ).toBeUndefined();
  });
});
