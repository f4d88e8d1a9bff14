// Where an update is, kept in the cluster and never only in memory, so that a new operator (after the CVO
// Deployment is replaced, or after a kill) resumes at the first runlevel not yet done: the ConfigMap
// openshift-cluster-version/cincy-update-progress.
import type { ClusterApi } from '../../cluster/api.js';
import { unlessNotFound } from '../../cluster/apiError.js';
import { RESOURCES, type ConfigMap } from '../../cluster/resources.js';

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
  constructor(private readonly api: ClusterApi) {}

  /**
   * The progress recorded, or undefined when there is none. A failure to read is thrown: guessing "none"
   * would start over. A record that does not hold whole numbers counts as none (the update starts over,
   * applying everything again), never as "everything done".
   */
  async read(): Promise<Progress | undefined> {
    const cm = await unlessNotFound(this.api.get<ConfigMap>(RESOURCES.configMaps, PROGRESS));
    if (!cm) return undefined;
    const d = cm.data ?? {};
    const stagesDone = Number(d.stagesDone ?? 0);
    const done = Number(d.done ?? 0);
    if (![stagesDone, done].every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
    const since = Number(d.waitingSince);
    return {
      version: d.version ?? '',
      image: d.image ?? '',
      stagesDone,
      done,
      ...(d.waitingSince && Number.isFinite(since) ? { waitingSince: since } : {}),
    };
  }

  async write(p: Progress): Promise<void> {
    const data = { version: p.version, image: p.image, stagesDone: String(p.stagesDone), done: String(p.done) };
    const body = {
      metadata: { ...PROGRESS },
      data: p.waitingSince === undefined ? data : { ...data, waitingSince: String(p.waitingSince) },
    };
    const replaced = await unlessNotFound(this.api.replace(RESOURCES.configMaps, body));
    if (!replaced) await this.api.create(RESOURCES.configMaps, body);
  }

  /** Forgets the progress of a finished update (already gone is as good). */
  async clear(): Promise<void> {
    await unlessNotFound(this.api.delete(RESOURCES.configMaps, PROGRESS));
  }
}
