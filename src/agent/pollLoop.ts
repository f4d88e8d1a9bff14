// The poll loop of the agent: the update lists fetched at a random time in [interval, 2 × interval), as the
// cluster-version-operator spreads its requests, and at once when the channel, upstream, architecture or
// version change (a watch wakes the loop; a check every 30 s covers a watch that is down), and a second
// later when risk evaluations wait for their turn under the PromQL rate limit.
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { ClusterVersion } from './clusterVersion.js';
import type { PollResult, UpdatesPoller } from './poll.js';
import { untilNotice } from './untilNotice.js';
import type { ObjectWatch } from './watch.js';

export interface PollLoopOptions {
  intervalMs: number;
  log: Logger;
  signal: AbortSignal;
  watch?: Pick<ObjectWatch<ClusterVersion>, 'next'>;
  /** Told of every poll that ran (the command line prints a line on a terminal). */
  report?: (r: PollResult) => void;
  clock?: Clock;
  random?: () => number;
}

const FALLBACK_CHECK_MS = 30_000;
/** How soon a poll comes back for queued risk evaluations. */
export const QUEUED_RETRY_MS = 1000;

/**
 * The fields of a ClusterVersion whose change makes the agent fetch the graph again at once. The object may
 * be one a cluster is still writing (made again without status, as a create on a real API server makes it).
 */
export const triggerOf = (cv: ClusterVersion): string =>
  JSON.stringify([
    cv.spec?.channel,
    cv.spec?.upstream,
    cv.spec?.desiredUpdate?.architecture ?? '',
    cv.status?.desired?.version,
    cv.status?.desired?.architecture ?? '',
  ]);

/** The log line of one poll. */
export function logPoll(log: Logger, r: PollResult): void {
  const { available, conditional, written, queuedEvaluations } = r;
  log.info(
    { retrieved: r.retrieved.status, reason: r.retrieved.reason, available, conditional, written, queuedEvaluations },
    'poll',
  );
  for (const problem of r.riskProblems) log.warn({ problem }, 'a risk source');
}

/** What the loop asks of the poller. */
export type Poller = Pick<UpdatesPoller, 'poll' | 'clusterVersion'>;

export async function runPollLoop(poller: Poller, o: PollLoopOptions): Promise<void> {
  const clock = o.clock ?? systemClock;
  const random = o.random ?? Math.random;
  while (!o.signal.aborted) {
    // Read before the poll, so that a change made while it runs triggers the next one.
    const before = await trigger(poller, o.log, '');
    let queued = false;
    try {
      const r = await poller.poll();
      logPoll(o.log, r);
      o.report?.(r);
      queued = r.queuedEvaluations > 0;
    } catch (err) {
      o.log.error({ err }, 'poll failed; will try again');
    }
    // Risk evaluations the rate limit queued: back in a second for them, as the CVO requeues its sync.
    const due = clock.now() + (queued ? QUEUED_RETRY_MS : o.intervalMs * (1 + random()));
    while (!o.signal.aborted && clock.now() < due) {
      // The ClusterVersion as the watch reports its next change, or undefined at the fallback check.
      const wait = Math.min(FALLBACK_CHECK_MS, due - clock.now());
      const changed = await untilNotice(clock, wait, o.signal, o.watch && ((s) => o.watch!.next(s)));
      // The watch brings the object itself; only the fallback check reads it.
      const now = changed ? triggerOf(changed) : await trigger(poller, o.log, before);
      if (now !== before) break;
    }
  }
}

/** The trigger fields as they are now; `fallback` when the ClusterVersion cannot be read (the poll then says why). */
async function trigger(poller: Poller, log: Logger, fallback: string): Promise<string> {
  try {
    return triggerOf(await poller.clusterVersion());
  } catch (err) {
    log.debug({ err }, 'ClusterVersion not readable for the change check');
    return fallback;
  }
}
