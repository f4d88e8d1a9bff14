// Change notices for the ClusterVersion, from a watch, so that a loop waiting on one wakes as soon as the
// object changes instead of at its next timer.
import * as k8s from '@kubernetes/client-node';
import { CV, type ClusterVersion } from './clusterVersion.js';

/**
 * The watch restarts when the server ends it; while it is down, `next()` simply never resolves and the
 * loops fall back to their own timers.
 */
export class ClusterVersionWatch {
  private waiters: Array<(cv: ClusterVersion | undefined) => void> = [];
  private controller: AbortController | undefined;
  private closed = false;

  constructor(private readonly kc: k8s.KubeConfig) {}

  start(): this {
    void this.connect();
    return this;
  }

  /** Resolves at the next change, with the object as it now is (undefined when the watch stops or reports an error). */
  next(): Promise<ClusterVersion | undefined> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.closed = true;
    this.controller?.abort();
    this.notify(undefined);
  }

  private notify(cv: ClusterVersion | undefined): void {
    const waiting = this.waiters;
    this.waiters = [];
    waiting.forEach((w) => w(cv));
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const again = (): void => void setTimeout(() => void this.connect(), 5_000).unref();
    try {
      this.controller = await new k8s.Watch(this.kc).watch(
        `/apis/${CV.group}/${CV.version}/${CV.plural}`,
        { fieldSelector: `metadata.name=${CV.name}` },
        // An ERROR event carries a Status, not the object: say only that something happened.
        (phase: string, object: ClusterVersion) => this.notify(phase !== 'ERROR' && object?.spec ? object : undefined),
        () => again(),
      );
    } catch (err) {
      // Whatever kept the watch from starting (the API unreachable, say), it is tried again; the loops
      // have their own timers meanwhile.
      void err;
      again();
    }
  }
}
