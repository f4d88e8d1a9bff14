// The agent as one process: the poll loop that keeps the update lists current and, unless told not to,
// the update executor acting on spec.desiredUpdate, both until the signal aborts. The command line only
// turns flags into these options.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { PayloadStore } from '../payload/store.js';
import type { TrustStore } from '../signatures/verify.js';
import { runImageBasedUpgrades } from './ibu/run.js';
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
  // Either loop failing for good (each retries what fails within a pass) stops the other, so the agent
  // exits with the error instead of running half.
  const stop = new AbortController();
  o.signal.addEventListener('abort', () => stop.abort(), { once: true });
  const watch = new ClusterVersionWatch(o.kc).start();
  stop.signal.addEventListener('abort', () => watch.stop(), { once: true });
  const inner = { ...o, signal: stop.signal };
  const poller = new UpdatesPoller({ kc: o.kc, ...o.poller });
  const loops = [
    runPollLoop(poller, { intervalMs: o.intervalMs, log: o.log, signal: stop.signal, watch, report: o.report }),
    o.update ? executeUpdates(inner, o.update, watch) : Promise.resolve(),
    // Image-based upgrades of a single-node cluster, when it has the Lifecycle Agent's API.
    runImageBasedUpgrades(inner),
  ];
  const failed = (err: unknown): never => {
    stop.abort();
    throw err;
  };
  await Promise.all(loops.map((loop) => loop.catch(failed)));
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
