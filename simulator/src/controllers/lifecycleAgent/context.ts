// What a stage handler of the lifecycle agent works with in one pass: the ImageBasedUpgrade as read (its
// status changed in place, written once at the end of the pass), the host data with the resourceVersion it
// was read at, the cluster, and the time. A handler returns how long to wait (simulated ms) before the next
// pass, or undefined when it is done and only a change of the object brings more work.
import type { Logger } from 'pino';
import type { HostData } from '../singleNodeHost.js';
import { staterootFor } from '../singleNodeHost.js';
import type { IbuCluster } from './cluster.js';
import { setIbuCondition, type ImageBasedUpgrade, type IbuStage } from './status.js';

export interface StageContext {
  ibu: ImageBasedUpgrade;
  host: HostData;
  cluster: IbuCluster;
  now: number;
  log: Logger;
  /** Writes `host` (a conflict fails the pass, which is then made again on fresh data). */
  saveHost(): Promise<void>;
}

export type StageResult = number | undefined;

/** Simulated waits, as the Lifecycle Agent requeues. */
export const WAIT = {
  healthCheck: 20_000,
  short: 30_000,
  medium: 60_000,
  /** Writing the new stateroot from the seed image, and precaching the images it lists. */
  staterootSetup: 3 * 60_000,
  precache: 5 * 60_000,
} as const;

/** The stateroot the seed of spec.seedImageRef is (or will be) written to; undefined without a version. */
export function desiredStateroot(ibu: ImageBasedUpgrade): string | undefined {
  const v = ibu.spec?.seedImageRef?.version;
  return v ? staterootFor(v) : undefined;
}

/** True when the node runs the seed's stateroot: the upgrade pivoted. */
export const afterPivot = (ibu: ImageBasedUpgrade, host: HostData): boolean =>
  desiredStateroot(ibu) !== undefined && host.booted === desiredStateroot(ibu);

export function setInProgress(c: StageContext, stage: Exclude<IbuStage, 'Idle'>, message: string): void {
  setIbuCondition(c.ibu, `${stage}InProgress`, 'InProgress', 'True', message, c.now);
}

/** The stage failed: its completed condition says so in a word, its in-progress one says why. */
export function setFailed(c: StageContext, stage: Exclude<IbuStage, 'Idle'>, summary: string, why: string): void {
  setIbuCondition(c.ibu, `${stage}Completed`, 'Failed', 'False', summary, c.now);
  setIbuCondition(c.ibu, `${stage}InProgress`, 'Failed', 'False', why, c.now);
}

export function setCompleted(c: StageContext, stage: Exclude<IbuStage, 'Idle'>, summary: string, detail: string): void {
  setIbuCondition(c.ibu, `${stage}InProgress`, 'Completed', 'False', summary, c.now);
  setIbuCondition(c.ibu, `${stage}Completed`, 'Completed', 'True', detail, c.now);
}

/** Waits for the cluster to be healthy: the wait, with the in-progress message saying what it waits for; undefined when healthy. */
export async function waitForHealth(
  c: StageContext,
  say: (problems: string) => void,
): Promise<StageResult | 'healthy'> {
  const problems = await c.cluster.unhealthy(c.host.node);
  if (problems.length === 0) return 'healthy';
  say(problems.join('; '));
  return WAIT.healthCheck;
}

/** Says a reboot is coming: in the log, and as a Normal Event "Reboot" about the ImageBasedUpgrade. */
export async function recordReboot(c: StageContext, message: string): Promise<void> {
  c.log.info({ to: c.host.defaultDeployment }, message);
  try {
    await c.cluster.event(c.ibu, 'Reboot', message, c.now);
  } catch (err) {
    c.log.warn({ err: (err as Error).message }, 'cannot record the Reboot event');
  }
}
