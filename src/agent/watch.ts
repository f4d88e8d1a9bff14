// Change notices for one object, from a watch, so that a loop waiting on one wakes as soon as the object
// changes instead of at its next timer: the ClusterVersion, and the ConfigMaps the Upgradeable condition is
// made from (the CVO re-assesses Upgradeable when admin-gates or admin-acks is added, changed or deleted:
// addFunc, updateFunc and deleteFunc in pkg/cvo/upgradeable.go).
import type { ClusterApi, KubeObject, Resource } from '../cluster/api.js';
import { RESOURCES } from '../cluster/resources.js';
import { CLUSTER_VERSION_KEY, type ClusterVersion } from './clusterVersion.js';
import { ADMIN_ACKS, ADMIN_GATES } from './update/adminAcks.js';

/** The pause before a watch that ended or failed is started again. */
const RESTART_MS = 5_000;

/**
 * The watch restarts when the server ends it; while it is down, `next()` simply never resolves and the
 * loops fall back to their own timers.
 */
export class ObjectWatch<T extends object = KubeObject> {
  private waiters = new Set<(o: T | undefined) => void>();
  private readonly stopped = new AbortController();

  /** `usable`: whether an event's object is whole enough to hand on (otherwise the waiters get undefined). */
  constructor(
    private readonly api: ClusterApi,
    private readonly resource: Resource,
    private readonly key: { namespace?: string; name: string },
    private readonly usable: (o: T) => boolean = () => true,
  ) {}

  start(): this {
    void this.run();
    return this;
  }

  /**
   * Resolves at the next change, with the object as it now is (undefined when the watch stops, reports an
   * error, or `signal` ends the wait: the waiter is then dropped).
   */
  next(signal?: AbortSignal): Promise<T | undefined> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(undefined);
      const waiter = (o: T | undefined): void => {
        signal?.removeEventListener('abort', dropped);
        resolve(o);
      };
      const dropped = (): void => {
        this.waiters.delete(waiter);
        resolve(undefined);
      };
      signal?.addEventListener('abort', dropped, { once: true });
      this.waiters.add(waiter);
    });
  }

  stop(): void {
    this.stopped.abort();
    this.notify(undefined);
  }

  private notify(o: T | undefined): void {
    const waiting = [...this.waiters];
    this.waiters.clear();
    waiting.forEach((w) => w(o));
  }

  private async run(): Promise<void> {
    const { signal } = this.stopped;
    while (!signal.aborted) {
      try {
        await this.api.watch<T>(
          this.resource,
          { namespace: this.key.namespace, fieldSelector: `metadata.name=${this.key.name}` },
          // An ERROR event carries a Status, not the object: say only that something happened.
          (e) =>
            this.notify(
              e.type !== 'ERROR' && e.type !== 'BOOKMARK' && e.object && this.usable(e.object) ? e.object : undefined,
            ),
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

/** The ClusterVersion's changes; an object without a spec is not handed on. */
export const clusterVersionWatch = (api: ClusterApi): ObjectWatch<ClusterVersion> =>
  new ObjectWatch<ClusterVersion>(api, RESOURCES.clusterVersions, CLUSTER_VERSION_KEY, (cv) => !!cv.spec);

/** The changes of the ConfigMaps the Upgradeable condition reads (admin-gates, admin-acks). */
export const upgradeableInputWatches = (api: ClusterApi): ObjectWatch[] =>
  [ADMIN_GATES, ADMIN_ACKS].map((key) => new ObjectWatch(api, RESOURCES.configMaps, key));
