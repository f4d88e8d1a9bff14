// The lifecycle agent's loop: a pass, then a wait for as long as the pass asks (simulated time when the agent
// follows a mock cluster's clock), or a short poll when it has nothing to wait for. A failed pass (a conflict,
// the API unreachable) is said and made again after a short wait: nothing is lost, the cluster holds it all.
import type { Logger } from 'pino';
import type { Clock } from 'cincy/clock';
import type { ImageBasedUpgradeReconciler } from './reconciler.js';

export interface LifecycleLoopOptions {
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
  /** Runs before each pass (the agent following a mock cluster's clock reads it here). */
  beforePass?: () => Promise<void>;
}

/** How often an agent with nothing under way looks again (simulated ms), and the least real time between passes. */
const IDLE_POLL_MS = 10_000;
const RETRY_MS = 10_000;
const MIN_REAL_MS = 200;

export async function runLifecycleLoop(r: ImageBasedUpgradeReconciler, o: LifecycleLoopOptions): Promise<void> {
  while (!o.signal.aborted) {
    let wait: number;
    try {
      await o.beforePass?.();
      wait = (await r.pass()) ?? IDLE_POLL_MS;
    } catch (err) {
      o.log.error({ err: (err as Error).message }, 'image-based upgrade pass failed; will try again');
      wait = RETRY_MS;
    }
    await o.clock.sleep(Math.min(Math.max(wait, 1_000), 60_000), o.signal, MIN_REAL_MS);
  }
}
