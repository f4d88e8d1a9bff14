// Reads every source again each interval (the graph-data image first, so new channels meet new releases),
// and rebuilds the served graph when one of them changed the store.
import type { Clock } from '../../clock.js';
import type { GraphService } from '../graphService.js';
import type { Source } from './source.js';

/** Reads each source once, in order; true when any changed the store. */
export async function refreshAll(sources: readonly Source[]): Promise<boolean> {
  let changed = false;
  for (const s of sources) if (await s.refresh()) changed = true;
  return changed;
}

export function startSourceRefresh(
  sources: readonly Source[],
  service: GraphService,
  intervalMs: number,
  clock: Clock,
): { stop(): void } {
  const stopped = new AbortController();
  void (async () => {
    for (;;) {
      await clock.sleep(intervalMs, stopped.signal);
      if (stopped.signal.aborted) return;
      if (await refreshAll(sources)) await service.refresh();
    }
  })();
  return { stop: () => stopped.abort() };
}
