// --auto-promote: applies every feeder on a fixed interval. The clock the rules read is the admin
// service's, so tests drive promotion with an injected clock and a direct call instead of waiting.
import type { AdminService } from './admin/service.js';

export interface SchedulerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function startAutoPromotion(admin: AdminService, intervalMs: number, log: SchedulerLog): { stop(): void } {
  const tick = (): void => {
    try {
      const promoted = admin.autoPromote();
      if (promoted.length) log.info({ promoted }, `feeders promoted ${promoted.length} version(s)`);
    } catch (err) {
      log.error({ err }, 'automatic promotion failed; will try again');
    }
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
