// The update executor's loop. A hand-over (the CVO's Deployment replaced) starts a new operator that knows
// nothing but what the cluster holds, as a new pod would.
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { ClusterVersionOperator, SyncResult } from './operator.js';
import { TIMING } from './timing.js';
import { untilNotice } from '../untilNotice.js';

export interface UpdateLoopOptions {
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
  /** Runs before each pass (a clock that follows another reads it again here). */
  beforeSync?: () => Promise<void>;
  /** Changes of what a pass reads (the ClusterVersion, the admin-gates and admin-acks ConfigMaps). */
  changes?: ChangeNotices;
}

/**
 * Change notices: a waiting executor looks again at once when what a pass reads changes, and a change during
 * a pass (after the pass read it) makes the next pass come at once too.
 */
export interface ChangeNotices {
  /** How many changes have been seen so far, of what the executor itself never writes. */
  count(): number;
  /** Resolves at the next change; `signal` ends the wait, leaving nothing behind. */
  next(signal: AbortSignal): Promise<unknown>;
}

/** The least real time between two passes, so that a fast simulated clock cannot make the loop spin. */
const MIN_REAL_MS = 200;

export async function runUpdateLoop(make: () => ClusterVersionOperator, o: UpdateLoopOptions): Promise<void> {
  let cvo = make();
  while (!o.signal.aborted) {
    // 'failed': the pass threw; it is tried again at the timer or a notice, never at once.
    let result: SyncResult | 'failed';
    const seen = o.changes?.count();
    try {
      await o.beforeSync?.();
      result = await cvo.sync();
    } catch (err) {
      o.log.error({ err }, 'update sync failed; will try again');
      await cvo.reportFailure(err);
      result = 'failed';
    }
    if (result === 'handover') cvo = make();
    else if (result === 'failed') await untilChanged(o, TIMING.gatePoll, undefined);
    else if (result === 'waiting') await untilChanged(o, TIMING.gatePoll, seen);
    else if (result === 'idle') await untilChanged(o, TIMING.idle, seen);
  }
}

/**
 * Until what a pass reads changes (a new desired update, say), or `ms` at the latest: a request made
 * while the executor waits — after a refusal, say — is acted on at once.
 */
async function untilChanged(o: UpdateLoopOptions, ms: number, seen: number | undefined): Promise<void> {
  if (o.signal.aborted) return;
  // Something changed while the pass ran: the next pass comes at once (after the least real time).
  if (o.changes && seen !== undefined && o.changes.count() !== seen)
    return new Promise((resolve) => setTimeout(resolve, MIN_REAL_MS));
  await untilNotice(o.clock, ms, o.signal, o.changes && ((wait) => o.changes!.next(wait)), MIN_REAL_MS);
}
