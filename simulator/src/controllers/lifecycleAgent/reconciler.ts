// One pass of the lifecycle agent over the ImageBasedUpgrade `upgrade`, as the Lifecycle Agent reconciles it:
// the stages spec.stage may move to are recomputed; a stage asked for is started (or refused with an
// InvalidTransition condition); the stage in progress makes its next step; the status is written once. All it
// knows comes from the cluster (the object, the host data), so any pass may be the first of a new process.
import type { Logger } from 'pino';
import type { Clock } from 'cincy/clock';
import { apiMessage } from 'cincy/cluster/apiError';
import { IbuCluster } from './cluster.js';
import { afterPivot, WAIT, type StageContext, type StageResult } from './context.js';
import { handleIdle } from './idle.js';
import { handlePrep } from './prep.js';
import { handleRollback } from './rollback.js';
import {
  inProgressStage,
  isCompleted,
  startTransition,
  transitionRequested,
  validNextStages,
  type ImageBasedUpgrade,
  type IbuStage,
} from './status.js';
import { handleUpgrade } from './upgrade.js';

const HANDLERS: Record<IbuStage, (c: StageContext) => Promise<StageResult>> = {
  Idle: handleIdle,
  Prep: handlePrep,
  Upgrade: handleUpgrade,
  Rollback: handleRollback,
};

export class ImageBasedUpgradeReconciler {
  readonly cluster: IbuCluster;

  constructor(private readonly o: { cluster: IbuCluster; clock: Clock; log: Logger }) {
    this.cluster = o.cluster;
  }

  /** One pass; the wait (simulated ms) before the next, or undefined when only a change brings more work. */
  async pass(): Promise<StageResult> {
    const ibu = await this.cluster.ibu();
    if (!ibu) {
      this.o.log.info('no ImageBasedUpgrade: creating upgrade at Idle');
      await this.cluster.createIbu();
      return 0;
    }
    const read = await this.cluster.host();
    // While the node reboots, the agent (a pod on it) does not run.
    if (read.host.reboot) return WAIT.short;
    let resourceVersion = read.resourceVersion;
    const host = read.host;
    const before = JSON.stringify(ibu.status ?? null);
    const now = this.o.clock.now();
    const c: StageContext = {
      ibu,
      host,
      cluster: this.cluster,
      now,
      log: this.o.log,
      saveHost: async () => {
        resourceVersion = await this.cluster.writeHost(host, resourceVersion);
      },
    };
    const pivoted = afterPivot(ibu, host);
    setValidNextStages(ibu, pivoted);
    if (transitionRequested(ibu) && startTransition(ibu, pivoted, now)) {
      this.o.log.info({ stage: ibu.spec?.stage }, 'stage transition started');
      setValidNextStages(ibu, pivoted);
    }
    const stage = inProgressStage(ibu);
    let result: StageResult;
    if (stage) result = await HANDLERS[stage](c);
    if ((ibu.spec?.stage ?? 'Idle') === 'Idle' && isCompleted(ibu, 'Idle') && ibu.status!.history?.length)
      ibu.status!.history = [];
    setValidNextStages(ibu, afterPivot(ibu, host));
    ibu.status!.observedGeneration = ibu.metadata.generation;
    if (JSON.stringify(ibu.status) !== before) {
      try {
        await this.cluster.writeStatus(ibu);
      } catch (err) {
        throw new Error(`cannot write the status of ImageBasedUpgrade upgrade: ${apiMessage(err)}`);
      }
    }
    return result;
  }
}

/** status.validNextStages, left out when empty (as the Go API omits it): no transition is allowed then. */
function setValidNextStages(ibu: ImageBasedUpgrade, pivoted: boolean): void {
  const s = (ibu.status ??= {});
  const next = validNextStages(ibu, pivoted);
  if (next.length) s.validNextStages = next;
  else delete s.validNextStages;
}
