// The agent's poll in this process, as the agent tests set it up: the update service and the mock
// cluster's API server in this process, and optionally a real Prometheus (a process) scraping the mock
// cluster's metrics. For test/service/agent/poll.test.ts and test/e2e/agent-prometheus.test.ts.
import { join } from 'node:path';
import { kindNamed } from '@cincy/simulator/apiserver/kinds';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { writeAgentTree, type Status } from './agentFixtures.js';
import type { PollerOptions, PollResult } from '../../src/agent/poll.js';
import { poller } from './inProcessAgent.js';
import { startPrometheus } from './prometheus.js';
import { startServer } from './server.js';

export interface Rig {
  cluster: InProcessCluster;
  graphUrl: string;
  prometheus: string | undefined;
  status(): Status;
  setSpec(spec: Record<string, unknown>): void;
  /** One poll with a fresh evaluator (no cached PromQL results), against `prometheus` by default. */
  poll(prometheusUrl?: string, options?: Partial<PollerOptions>): Promise<PollResult>;
}

export async function rig(
  cleanup: { add(f: () => unknown): void; dir(): string },
  o: {
    version?: string;
    channel?: string;
    graphData?: string;
    prometheus?: boolean;
    /** A Prometheus rule file (YAML) the Prometheus evaluates: alerting rules for the alert risk source. */
    rules?: string;
    /** The cluster's feature set: TechPreviewNoUpgrade turns the accept-risks API on. */
    featureSet?: string;
  } = {},
): Promise<Rig> {
  const server = await startServer({ graphData: o.graphData ?? writeAgentTree(join(cleanup.dir(), 'tree')) });
  cleanup.add(() => server.close());
  const version = o.version ?? '4.16.3';
  const cluster = await InProcessCluster.start({
    version,
    image: `quay.io/openshift-release-dev/ocp-release@sha256:${'0'.repeat(64)}`,
    channel: o.channel ?? 'stable-4.16',
    upstream: `${server.url}/api/upgrades_info/v1/graph`,
    platform: 'AWS',
    payloadStore: cleanup.dir(),
    featureSet: o.featureSet,
  });
  cleanup.add(() => cluster.close());
  const prometheus = o.prometheus
    ? await startPrometheus(new URL(cluster.url).host, cluster.token(), cleanup.dir(), cleanup, undefined, o.rules)
    : undefined;
  const cv = kindNamed('ClusterVersion');
  return {
    cluster,
    graphUrl: server.url,
    prometheus,
    status: () => cluster.cv().status,
    setSpec: (spec) => void cluster.state.patch(cv, undefined, 'version', { spec }),
    poll: (url = prometheus, options) => poller(cluster, url, options).poll(),
  };
}
