// The ClusterVersion conditions the update executor owns while it works: Progressing and Failing, each
// keeping its lastTransitionTime while its status holds, and Progressing's "N of M done" as the
// manifests are applied.
import type { Logger } from 'pino';
import { setCondition, type ClusterVersionStatus } from '../clusterVersion.js';

export interface ConditionState {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export const NOT_FAILING: ConditionState = { status: 'False', reason: '', message: '' };

/** Status with Progressing and (when given) Failing set. */
export function withProgress(
  s: ClusterVersionStatus,
  at: string,
  progressing: ConditionState,
  failing?: ConditionState,
): ClusterVersionStatus {
  let conditions = setCondition(s.conditions, { type: 'Progressing', lastTransitionTime: at, ...progressing });
  if (failing) conditions = setCondition(conditions, { type: 'Failing', lastTransitionTime: at, ...failing });
  return { ...s, conditions };
}

/** The Progressing message while the CVO works through the manifests. */
export const working = (version: string, done: number, total: number): string =>
  `Working towards ${version}: ${done} of ${total} done (${total ? Math.floor((done * 100) / total) : 0}% complete)`;

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
