// The agent as one process: the poll loop that keeps the update lists current and, unless told not to,
// the update executor acting on spec.desiredUpdate, both until the signal aborts. The command line only
// turns flags into these options.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { PayloadStore } from '../payload/store.js';
import type { TrustStore } from '../signatures/verify.js';
import { followMockClock } from './mockClock.js';
import { UpdatesPoller, type PollerOptions, type PollResult } from './poll.js';
import { runPollLoop } from './pollLoop.js';
import { ClusterVersionOperator } from './update/operator.js';
import { runUpdateLoop } from './update/loop.js';
import { ReleaseVerifier } from './update/verify.js';
import { ClusterVersionWatch } from './watch.js';

export interface UpdateOptions {
  payloads: PayloadStore;
  trust: TrustStore;
  /** Signature store base URLs (http, https or file), after spec.signatureStores. */
  signatureStores: string[];
  workers: number;
}

export interface AgentOptions {
  kc: k8s.KubeConfig;
  log: Logger;
  signal: AbortSignal;
  poller: Omit<PollerOptions, 'kc'>;
  intervalMs: number;
  /** Execute updates; undefined (--no-update) keeps the update lists only. */
  update?: UpdateOptions;
  /** Follow the simulated clock a mock cluster declares (the mock cluster and the demo only). */
  followMockClock?: boolean;
  report?: (r: PollResult) => void;
}

export async function runAgent(o: AgentOptions): Promise<void> {
  if (o.signal.aborted) return;
  const watch = new ClusterVersionWatch(o.kc).start();
  o.signal.addEventListener('abort', () => watch.stop(), { once: true });
  const poller = new UpdatesPoller({ kc: o.kc, ...o.poller });
  const updates = o.update ? executeUpdates(o, o.update, watch) : Promise.resolve();
  await runPollLoop(poller, { intervalMs: o.intervalMs, log: o.log, signal: o.signal, watch, report: o.report });
  await updates;
}

async function executeUpdates(o: AgentOptions, u: UpdateOptions, watch: ClusterVersionWatch): Promise<void> {
  let clock: Clock = systemClock;
  let beforeSync: (() => Promise<void>) | undefined;
  if (o.followMockClock) {
    const followed = followMockClock(o.kc, o.log);
    clock = followed.clock;
    beforeSync = followed.refresh;
  }
  // Signatures are checked against real time: key expiry and revocation are facts of the world.
  const verifier = new ReleaseVerifier(u.trust, o.kc.makeApiClient(k8s.CoreV1Api), u.signatureStores);
  const make = (): ClusterVersionOperator =>
    new ClusterVersionOperator({
      kc: o.kc,
      clock,
      payloads: u.payloads,
      verifier,
      workers: u.workers,
      log: o.log,
      signal: o.signal,
    });
  await runUpdateLoop(make, { clock, log: o.log, signal: o.signal, beforeSync, changed: () => watch.next() });
}
