// ObjectWatch (src/agent/watch.ts) over a scripted watch: what counts as a change, waiters dropped by their
// signal, a refused watch said once, and restarts that leave nothing behind.
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { ClusterApi, WatchEvent } from '../../../src/cluster/api.js';
import { ClusterApiError } from '../../../src/cluster/api.js';
import { RESOURCES } from '../../../src/cluster/resources.js';
import { ObjectWatch } from '../../../src/agent/watch.js';

type Obj = { metadata: { name: string; resourceVersion?: string } };
const cm = (rv: string): Obj => ({ metadata: { name: 'admin-gates', resourceVersion: rv } });

/** A ClusterApi whose watch calls `each` with the event sink, once per start of the watch. */
function scripted(each: (emit: (e: WatchEvent<Obj>) => void, start: number) => Promise<void>): ClusterApi {
  let starts = 0;
  return {
    watch: (_r: unknown, _o: unknown, onEvent: (e: WatchEvent<Obj>) => void) => each(onEvent, starts++),
  } as unknown as ClusterApi;
}

describe('ObjectWatch', () => {
  it('counts added, modified and deleted objects of a new resourceVersion; bookmarks, errors and replays are not changes', async () => {
    let emit!: (e: WatchEvent<Obj>) => void;
    const w = new ObjectWatch<Obj>(
      scripted((e) => ((emit = e), new Promise(() => {}))),
      RESOURCES.configMaps,
      { namespace: 'openshift-config-managed', name: 'admin-gates' },
    ).start();
    await vi.waitFor(() => expect(emit).toBeDefined());
    const woken = w.next();
    emit({ type: 'BOOKMARK', object: cm('5') });
    emit({ type: 'ERROR', object: cm('6') });
    expect(w.changes).toBe(0);
    emit({ type: 'ADDED', object: cm('7') });
    await expect(woken).resolves.toEqual(cm('7'));
    emit({ type: 'ADDED', object: cm('7') }); // a restarted watch lists it again
    emit({ type: 'MODIFIED', object: cm('8') });
    emit({ type: 'DELETED', object: cm('9') });
    expect(w.changes).toBe(3);
    w.stop();
  });

  it('drops a waiter whose signal ends the wait, and hands undefined to it', async () => {
    let emit!: (e: WatchEvent<Obj>) => void;
    const w = new ObjectWatch<Obj>(
      scripted((e) => ((emit = e), new Promise(() => {}))),
      RESOURCES.configMaps,
      { name: 'admin-gates' },
    ).start();
    await vi.waitFor(() => expect(emit).toBeDefined());
    const wait = new AbortController();
    const dropped = w.next(wait.signal);
    wait.abort();
    await expect(dropped).resolves.toBeUndefined();
    expect((w as unknown as { waiters: Set<unknown> }).waiters.size).toBe(0);
    const kept = w.next(new AbortController().signal);
    emit({ type: 'MODIFIED', object: cm('2') });
    await expect(kept).resolves.toEqual(cm('2'));
    w.stop();
  });

  it('says a refused watch once, however often it is started again, and leaves no listener behind', async () => {
    vi.useFakeTimers();
    try {
      const warn = vi.fn();
      const w = new ObjectWatch<Obj>(
        scripted(() => Promise.reject(new ClusterApiError(403, 'Forbidden', 'configmaps is forbidden'))),
        RESOURCES.configMaps,
        { name: 'admin-gates' },
        { log: { warn } as never },
      ).start();
      for (let i = 0; i < 30; i++) await vi.advanceTimersByTimeAsync(5_000);
      expect(warn).toHaveBeenCalledTimes(1);
      const stopped = (w as unknown as { stopped: AbortController }).stopped.signal;
      // One listener at most: the pause under way (each ended pause took its own away).
      expect(getEventListeners(stopped, 'abort').length).toBeLessThanOrEqual(1);
      w.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
