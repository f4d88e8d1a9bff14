// Change notices for the ClusterVersion, from a watch, so that a loop waiting on one wakes as soon as the
// object changes instead of at its next timer.
import type { ClusterApi } from '../cluster/api.js';
import { RESOURCES } from '../cluster/resources.js';
import { CLUSTER_VERSION_KEY, type ClusterVersion } from './clusterVersion.js';

/** The pause before a watch that ended or failed is started again. */
const RESTART_MS = 5_000;

/**
 * The watch restarts when the server ends it; while it is down, `next()` simply never resolves and the
 * loops fall back to their own timers.
 */
export class ClusterVersionWatch {
  private waiters: Array<(cv: ClusterVersion | undefined) => void> = [];
  private readonly stopped = new AbortController();

  constructor(private readonly api: ClusterApi) {}

  start(): this {
    void this.run();
    return this;
  }

  /** Resolves at the next change, with the object as it now is (undefined when the watch stops or reports an error). */
  next(): Promise<ClusterVersion | undefined> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.stopped.abort();
    this.notify(undefined);
  }

  private notify(cv: ClusterVersion | undefined): void {
    const waiting = this.waiters;
    this.waiters = [];
    waiting.forEach((w) => w(cv));
  }

  private async run(): Promise<void> {
    const { signal } = this.stopped;
    while (!signal.aborted) {
      try {
        await this.api.watch<ClusterVersion>(
          RESOURCES.clusterVersions,
          { fieldSelector: `metadata.name=${CLUSTER_VERSION_KEY.name}` },
          // An ERROR event carries a Status, not the object: say only that something happened.
          (e) => this.notify(e.type !== 'ERROR' && e.type !== 'BOOKMARK' && e.object?.spec ? e.object : undefined),
          signal,
        );
      } catch {
        // Whatever kept the watch from starting or ended it (the API unreachable, say), it is tried again;
        // the loops have their own timers meanwhile.
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, RESTART_MS);
        timer.unref();
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }
}
