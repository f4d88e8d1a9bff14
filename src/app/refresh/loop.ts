// Reads every source again each interval (the graph-data image first, so new channels meet new releases),
// and rebuilds the served graph when one of them changed the store. Of replicas sharing a database, only
// the one that leads reads them; the others take up what it stored (and rebuild when they are told of it).
import type { Clock } from '../../clock.js';
import type { Leadership } from '../../store/leadership.js';
import type { GraphService } from '../graphService.js';
import type { Source } from './source.js';

/** Reads each source once, in order; true when any changed the store. */
export async function refreshAll(sources: readonly Source[]): Promise<boolean> {
  let changed = false;
  for (const s of sources) if (await s.refresh()) changed = true;
  return changed;
}

/** Takes up, for each source, what an earlier read (of this process or another) stored. */
export async function recallAll(sources: readonly Source[]): Promise<void> {
  for (const s of sources) await s.recall().catch(() => {}); // unreadable now: the next interval asks again
}

export function startSourceRefresh(
  sources: readonly Source[],
  service: GraphService,
  intervalMs: number,
  clock: Clock,
  leadership: Leadership,
): { stop(): void } {
  const stopped = new AbortController();
  void (async () => {
    for (;;) {
      await clock.sleep(intervalMs, stopped.signal);
      if (stopped.signal.aborted) return;
      if (!(await leadership.holds())) await recallAll(sources);
      else if (await refreshAll(sources)) await service.refresh();
    }
  })();
  return { stop: () => stopped.abort() };
}
