// The update executor's loop. A hand-over (the CVO's Deployment replaced) starts a new operator that knows
// nothing but what the cluster holds, as a new pod would.
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { ClusterVersionOperator, SyncResult } from './operator.js';
import { TIMING } from './timing.js';

export interface UpdateLoopOptions {
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
  /** Runs before each pass (a clock that follows another reads it again here). */
  beforeSync?: () => Promise<void>;
  /**
   * Resolves when something a pass reads changes (the ClusterVersion, the admin-gates and admin-acks
   * ConfigMaps): an idle executor looks again at once. `signal` ends the wait, leaving nothing behind.
   */
  changed?: (signal: AbortSignal) => Promise<unknown>;
}

/** The least real time between two passes, so that a fast simulated clock cannot make the loop spin. */
const MIN_REAL_MS = 200;

export async function runUpdateLoop(make: () => ClusterVersionOperator, o: UpdateLoopOptions): Promise<void> {
  let cvo = make();
  while (!o.signal.aborted) {
    let result: SyncResult;
    try {
      await o.beforeSync?.();
      result = await cvo.sync();
    } catch (err) {
      o.log.error({ err }, 'update sync failed; will try again');
      await cvo.reportFailure(err);
      result = 'waiting';
    }
    if (result === 'handover') cvo = make();
    else if (result === 'waiting') await untilChanged(o, TIMING.gatePoll);
    else if (result === 'idle') await untilChanged(o, TIMING.idle);
  }
}

/**
 * Until what a pass reads changes (a new desired update, say), or `ms` at the latest: a request made
 * while the executor waits — after a refusal, say — is acted on at once.
 */
async function untilChanged(o: UpdateLoopOptions, ms: number): Promise<void> {
  if (o.signal.aborted) return;
  const wake = new AbortController();
  const stop = (): void => wake.abort();
  o.signal.addEventListener('abort', stop, { once: true });
  o.changed?.(wake.signal).then(stop, stop);
  await o.clock.sleep(ms, wake.signal, MIN_REAL_MS);
  o.signal.removeEventListener('abort', stop);
  stop(); // a wait the timer ended leaves no waiter behind on the watches
}
