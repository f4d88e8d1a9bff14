// Notices writes another process made to the database file (`cincy import` next to a running
// server, a second server on the same file) and rebuilds, so every process serves what the file
// holds within one interval.
import type { Store } from '../store/store.js';
import type { GraphService } from './graphService.js';

/** How often the database's data version is read: a pragma on an open connection, no I/O. */
export const STORE_WATCH_INTERVAL_MS = 200;

export interface WatchLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function watchStore(
  store: Store,
  service: GraphService,
  log: WatchLog,
  intervalMs = STORE_WATCH_INTERVAL_MS,
): { stop(): void } {
  store.changedElsewhere(); // the baseline: what this process already built from
  const timer = setInterval(() => {
    try {
      if (!store.changedElsewhere()) return;
      log.info({ generation: store.generation }, 'the database was changed by another process; rebuilding');
      void service.refresh();
    } catch (err) {
      log.error({ err }, 'reading the database data version failed; will try again');
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
