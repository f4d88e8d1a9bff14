// The agent as one process: the poll loop that keeps the update lists current and, unless told not to,
// the update executor acting on spec.desiredUpdate, both until the signal aborts. The command line only
// turns flags into these options.
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { ClusterApi } from '../cluster/api.js';
import type { ClusterVersion } from './clusterVersion.js';
import type { PayloadStore } from '../payload/store.js';
import type { TrustStore } from '../signatures/verify.js';
import { awaitClusterVersion } from './awaitClusterVersion.js';
import { UpdatesPoller, type PollerOptions, type PollResult } from './poll.js';
import { runPollLoop } from './pollLoop.js';
import { ClusterVersionOperator } from './update/operator.js';
import type { PayloadRetrieval } from './update/context.js';
import { runUpdateLoop } from './update/loop.js';
import { ReleaseVerifier } from './update/verify.js';
import { clusterVersionWatch, upgradeableInputWatches, type ObjectWatch } from './watch.js';

export interface UpdateOptions {
  payloads: PayloadStore;
  /** How a payload reaches the store: the cluster's Job (the agent in the cluster), or pulled by the agent. */
  retrieval: PayloadRetrieval;
  trust: TrustStore;
  /** Signature store base URLs (http, https or file), after spec.signatureStores. */
  signatureStores: string[];
  workers: number;
}

/** The time the update executor keeps: real time, or one a tool running a simulated cluster gives. */
export interface ExecutorClock {
  clock: Clock;
  /** Runs before each pass of the executor (a clock that follows another reads it again here). */
  beforeSync?: () => Promise<void>;
}

export interface AgentOptions {
  api: ClusterApi;
  log: Logger;
  signal: AbortSignal;
  poller: Omit<PollerOptions, 'api'>;
  intervalMs: number;
  /** Execute updates; undefined (--no-update) keeps the update lists only. */
  update?: UpdateOptions;
  /** Real time unless given. */
  executorClock?: ExecutorClock;
  report?: (r: PollResult) => void;
}

export async function runAgent(o: AgentOptions): Promise<void> {
  // Nothing is read or written before the cluster has a ClusterVersion with its status (awaitClusterVersion.ts).
  const ready = await awaitClusterVersion({ api: o.api, log: o.log, clock: systemClock, signal: o.signal });
  if (!ready || o.signal.aborted) return;
  // Either loop failing for good (each retries what fails within a pass) stops the other, so the agent
  // exits with the error instead of running half.
  const stop = new AbortController();
  o.signal.addEventListener('abort', () => stop.abort(), { once: true });
  const watch = clusterVersionWatch(o.api, o.log).start();
  stop.signal.addEventListener('abort', () => watch.stop(), { once: true });
  const poller = new UpdatesPoller({ api: o.api, ...o.poller });
  const loops = [
    runPollLoop(poller, { intervalMs: o.intervalMs, log: o.log, signal: stop.signal, watch, report: o.report }),
    o.update ? executeUpdates({ ...o, signal: stop.signal }, o.update, watch) : Promise.resolve(),
  ];
  const failed = (err: unknown): never => {
    stop.abort();
    throw err;
  };
  await Promise.all(loops.map((loop) => loop.catch(failed)));
}

async function executeUpdates(o: AgentOptions, u: UpdateOptions, watch: ObjectWatch<ClusterVersion>): Promise<void> {
  const { clock, beforeSync } = o.executorClock ?? { clock: systemClock };
  // Signatures are checked against real time: key expiry and revocation are facts of the world.
  const verifier = new ReleaseVerifier(u.trust, o.api, u.signatureStores);
  const make = (): ClusterVersionOperator =>
    new ClusterVersionOperator({
      api: o.api,
      clock,
      payloads: u.payloads,
      retrieval: u.retrieval,
      verifier,
      workers: u.workers,
      log: o.log,
      signal: o.signal,
      acceptRisks: o.poller.acceptRisks,
    });
  // A pass also makes the Upgradeable condition: a change of the ConfigMaps it reads wakes the executor too.
  const inputs = upgradeableInputWatches(o.api, o.log).map((w) => w.start());
  o.signal.addEventListener('abort', () => inputs.forEach((w) => w.stop()), { once: true });
  const watches = [watch, ...inputs];
  const changes = {
    // Only the ConfigMaps, which the agent never writes: a pass's own writes of the ClusterVersion must not
    // bring another pass at once.
    count: () => inputs.reduce((n, w) => n + w.changes, 0),
    next: (signal: AbortSignal) => Promise.race(watches.map((w) => w.next(signal))),
  };
  await runUpdateLoop(make, { clock, log: o.log, signal: o.signal, beforeSync, changes });
}
