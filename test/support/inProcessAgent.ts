// The agent's two parts running in the test's process against an InProcessCluster: the update executor
// (its loop, with a log kept in memory) and the poller, each with a client identity of its own, both on the
// cluster's in-memory API.
import pino from 'pino';
import { UpdatesPoller, type PollerOptions } from '../../src/agent/poll.js';
import { RiskEvaluator } from '../../src/agent/risks.js';
import { ClusterVersionOperator } from '../../src/agent/update/operator.js';
import { runUpdateLoop } from '../../src/agent/update/loop.js';
import { ReleaseVerifier } from '../../src/agent/update/verify.js';
import { PayloadStore } from '../../src/payload/store.js';
import type { TrustStore } from '../../src/signatures/verify.js';
import type { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';

export interface LogLine {
  msg: string;
  level: number;
  [key: string]: unknown;
}

export interface RunningOperator {
  lines: LogLine[];
  /** Ends it as a kill does: its identity is revoked at once (every later request fails), then its loop stops. */
  kill(): Promise<void>;
  /** Ends it as SIGTERM does. */
  stop(): Promise<void>;
}

export function startOperator(
  cluster: InProcessCluster,
  o: { trust: TrustStore; payloads: string; signatureStores: string[]; workers?: number },
): RunningOperator {
  const client = cluster.client();
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const abort = new AbortController();
  const verifier = new ReleaseVerifier(o.trust, client.api, o.signatureStores);
  const payloads = new PayloadStore(o.payloads);
  const make = (): ClusterVersionOperator =>
    new ClusterVersionOperator({
      api: client.api,
      clock: cluster.clock,
      payloads,
      retrieval: { kind: 'job' },
      verifier,
      workers: o.workers ?? 16,
      log,
      signal: abort.signal,
    });
  const loop = runUpdateLoop(make, { clock: cluster.clock, log, signal: abort.signal });
  return {
    lines,
    kill: async () => {
      cluster.revoke(client);
      abort.abort();
      await loop;
    },
    stop: async () => {
      abort.abort();
      await loop;
    },
  };
}

/**
 * Polls of the update lists, as the agent's poll loop makes them. The risk evaluator's pause of a second
 * between PromQL queries is left out (its rules are tested on their own), so a poll takes milliseconds.
 */
export function poller(
  cluster: InProcessCluster,
  prometheusUrl?: string,
  options: Partial<PollerOptions> = {},
): UpdatesPoller {
  const evaluator = new RiskEvaluator({ url: prometheusUrl }, Date.now, { minIntervalMs: 0 });
  return new UpdatesPoller({ api: cluster.client().api, evaluator, clock: cluster.clock, ...options });
}
