// Where an update is, kept in the cluster and never only in memory, so that a new operator (after the CVO
// Deployment is replaced, or after a kill) resumes at the first runlevel not yet done: the ConfigMap
// openshift-cluster-version/cincy-update-progress. And the Progressing message's "N of M", written from
// parallel tasks without ever going backwards.
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isNotFound } from '../../cluster/apiError.js';

export const PROGRESS = { namespace: 'openshift-cluster-version', name: 'cincy-update-progress' };

export interface Progress {
  version: string;
  image: string;
  /** Runlevels (stages) applied and gated. */
  stagesDone: number;
  /** Manifest documents applied before the first stage not done. */
  done: number;
  /** When the wait on the ClusterOperators of stage `stagesDone` began: the 40 minutes survive a restart. */
  waitingSince?: number;
}

export class ProgressStore {
  constructor(private readonly core: k8s.CoreV1Api) {}

  /** The progress recorded, or undefined when there is none. Any other failure is thrown: guessing "none" would start over. */
  async read(): Promise<Progress | undefined> {
    let cm: k8s.V1ConfigMap;
    try {
      cm = await this.core.readNamespacedConfigMap({ ...PROGRESS });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const d = cm.data ?? {};
    const since = Number(d.waitingSince);
    return {
      version: d.version ?? '',
      image: d.image ?? '',
      stagesDone: Number(d.stagesDone ?? 0),
      done: Number(d.done ?? 0),
      ...(d.waitingSince && Number.isFinite(since) ? { waitingSince: since } : {}),
    };
  }

  async write(p: Progress): Promise<void> {
    const data = { version: p.version, image: p.image, stagesDone: String(p.stagesDone), done: String(p.done) };
    const body = {
      metadata: { ...PROGRESS },
      data: p.waitingSince === undefined ? data : { ...data, waitingSince: String(p.waitingSince) },
    };
    try {
      await this.core.replaceNamespacedConfigMap({ ...PROGRESS, body });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.core.createNamespacedConfigMap({ namespace: PROGRESS.namespace, body });
    }
  }

  /** Forgets the progress of a finished update; true when there was something to forget. */
  async clear(): Promise<boolean> {
    try {
      await this.core.deleteNamespacedConfigMap({ ...PROGRESS });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }
}

/**
 * Progress writes from parallel tasks, one at a time and always the latest count, so "N of M" never
 * goes backwards and a status write that fails never fails a task.
 */
export class ProgressReporter {
  private latest: number | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly write: (done: number) => Promise<unknown>,
    private readonly log: Logger,
  ) {}

  report(done: number): void {
    this.latest = Math.max(done, this.latest ?? 0);
    this.running ??= this.drain();
  }

  async flush(): Promise<void> {
    await this.running;
  }

  private async drain(): Promise<void> {
    while (this.latest !== undefined) {
      const n = this.latest;
      this.latest = undefined;
      try {
        await this.write(n);
      } catch (err) {
        this.log.warn({ err }, 'progress not written');
      }
    }
    this.running = undefined;
  }
}
