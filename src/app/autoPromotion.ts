// --auto-promote: applies every feeder, then again each time the interval has passed on the clock
// (the admin services' clock, so a test moves both by hand). Of replicas sharing a database, only the
// one that leads promotes; the others ask for the lead each interval, and one has it within an
// interval of the leader's death.
import type { Clock } from '../clock.js';
import type { Log } from '../log.js';
import type { Leadership } from '../store/leadership.js';
import type { FeederPass } from './admin/feederPass.js';

export function startAutoPromotion(
  feeders: FeederPass,
  intervalMs: number,
  log: Pick<Log, 'info' | 'error'>,
  clock: Clock,
  leadership: Leadership,
): { stop(): void } {
  const tick = async (): Promise<void> => {
    if (!(await leadership.holds())) return;
    try {
      const promoted = await feeders.autoPromote();
      if (promoted.length) log.info({ promoted }, `feeders promoted ${promoted.length} version(s)`);
    } catch (err) {
      log.error({ err }, 'automatic promotion failed; will try again');
    }
  };
  const stopped = new AbortController();
  void (async () => {
    await tick();
    for (;;) {
      await clock.sleep(intervalMs, stopped.signal);
      if (stopped.signal.aborted) return;
      await tick();
    }
  })();
  return { stop: () => stopped.abort() };
}
