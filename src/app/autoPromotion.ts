// --auto-promote: applies every feeder, then again each time the interval has passed on the clock
// (the admin service's clock, so a test moves both by hand).
import type { Clock } from '../clock.js';
import type { AdminService } from './admin/service.js';

export interface SchedulerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function startAutoPromotion(admin: AdminService, intervalMs: number, log: SchedulerLog, clock: Clock): { stop(): void } {
  const tick = (): void => {
    try {
      const promoted = admin.autoPromote();
      if (promoted.length) log.info({ promoted }, `feeders promoted ${promoted.length} version(s)`);
    } catch (err) {
      log.error({ err }, 'automatic promotion failed; will try again');
    }
  };
  const stopped = new AbortController();
  void (async () => {
    tick();
    for (;;) {
      await clock.sleep(intervalMs, stopped.signal);
      if (stopped.signal.aborted) return;
      tick();
    }
  })();
  return { stop: () => stopped.abort() };
}
