// Change notices for one object, from a watch, so that a loop waiting on one wakes as soon as the object
// changes instead of at its next timer: the ClusterVersion, and the ConfigMaps the Upgradeable condition is
// made from (the CVO re-assesses Upgradeable when admin-gates or admin-acks is added, changed or deleted:
// addFunc, updateFunc and deleteFunc in pkg/cvo/upgradeable.go).
import type { Logger } from 'pino';
import type { ClusterApi, KubeObject, Resource } from '../cluster/api.js';
import { apiMessage, apiStatus } from '../cluster/apiError.js';
import { RESOURCES } from '../cluster/resources.js';
import { CLUSTER_VERSION_KEY, type ClusterVersion } from './clusterVersion.js';
import { ADMIN_ACKS, ADMIN_GATES } from './update/adminAcks.js';

/** What a change is told by: an object's resourceVersion. */
type Versioned = { metadata?: { resourceVersion?: string } };

/** The pause before a watch that ended or failed is started again. */
const RESTART_MS = 5_000;

export interface ChangeWatchOptions<T> {
  /** Whether an event's object is whole enough to hand on (otherwise the waiters get undefined). */
  usable?: (o: T) => boolean;
  /** Told once when the server refuses the watch (401, 403): the loops then have only their own timers. */
  log?: Logger;
}

/**
 * A change is an added, modified or deleted object with a resourceVersion not seen before: a watch started
 * again lists the object as ADDED once more, and bookmarks and errors say nothing of the object, so none of
 * them is one. The watch restarts when the server ends it; while it is down, `next()` simply never resolves
 * and the loops fall back to their own timers.
 */
export class ObjectWatch<T extends Versioned = KubeObject> {
  private waiters = new Set<(o: T | undefined) => void>();
  private readonly stopped = new AbortController();
  private seen: string | undefined;
  private refusalSaid = false;
  /** How many changes have been seen: a loop compares it before and after a pass to miss none. */
  changes = 0;

  constructor(
    private readonly api: ClusterApi,
    private readonly resource: Resource,
    private readonly key: { namespace?: string; name: string },
    private readonly o: ChangeWatchOptions<T> = {},
  ) {}

  start(): this {
    void this.run();
    return this;
  }

  /**
   * Resolves at the next change, with the object as it now is (undefined when the watch stops, or `signal`
   * ends the wait: the waiter is then dropped).
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

  private changed(type: string, o: T | undefined): void {
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
    const version = o?.metadata?.resourceVersion;
    if (version !== undefined && version === this.seen) return;
    this.seen = version;
    this.changes += 1;
    this.notify(o && (this.o.usable?.(o) ?? true) ? o : undefined);
  }

  private async run(): Promise<void> {
    const { signal } = this.stopped;
    while (!signal.aborted) {
      try {
        await this.api.watch<T>(
          this.resource,
          { namespace: this.key.namespace, fieldSelector: `metadata.name=${this.key.name}` },
          (e) => this.changed(e.type, e.object),
          signal,
        );
      } catch (err) {
        // Whatever kept the watch from starting or ended it (the API unreachable, say), it is tried again;
        // the loops have their own timers meanwhile. Refused credentials are worth saying, once.
        const status = apiStatus(err);
        if ((status === 401 || status === 403) && !this.refusalSaid) {
          this.refusalSaid = true;
          this.o.log?.warn(
            { err: apiMessage(err) },
            `cannot watch ${this.resource.resource} ${this.key.name}: its changes are noticed at the agent's own intervals only`,
          );
        }
      }
      await new Promise<void>((resolve) => {
        const woken = (): void => (clearTimeout(timer), resolve());
        const timer = setTimeout(() => (signal.removeEventListener('abort', woken), resolve()), RESTART_MS);
        timer.unref();
        signal.addEventListener('abort', woken, { once: true });
      });
    }
  }
}

/** The ClusterVersion's changes; an object without a spec is not handed on. */
export const clusterVersionWatch = (api: ClusterApi, log?: Logger): ObjectWatch<ClusterVersion> =>
  new ObjectWatch<ClusterVersion>(api, RESOURCES.clusterVersions, CLUSTER_VERSION_KEY, {
    usable: (cv) => !!cv.spec,
    log,
  });

/** The changes of the ConfigMaps the Upgradeable condition reads (admin-gates, admin-acks). */
export const upgradeableInputWatches = (api: ClusterApi, log?: Logger): ObjectWatch[] =>
  [ADMIN_GATES, ADMIN_ACKS].map((key) => new ObjectWatch(api, RESOURCES.configMaps, key, { log }));
