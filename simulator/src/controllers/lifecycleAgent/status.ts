// The ImageBasedUpgrade's status as the Lifecycle Agent keeps it: conditions per stage (an in-progress and a
// completed one), the stages spec.stage may move to next, and the history of stage runs and their phases.
// Everything the agent knows of an upgrade is here or on the host, so a restarted agent resumes from it.
import { kubeTime } from 'cincy/clock';

export type IbuStage = 'Idle' | 'Prep' | 'Upgrade' | 'Rollback';

export interface IbuCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

export interface Phase {
  phase: string;
  startTime?: string;
  completionTime?: string;
}

export interface StageRun {
  stage: IbuStage;
  startTime?: string;
  completionTime?: string;
  phases?: Phase[];
}

export interface ConfigMapRef {
  name: string;
  namespace: string;
}

export interface ImageBasedUpgrade {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    resourceVersion?: string;
    generation?: number;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  spec?: {
    stage?: IbuStage;
    seedImageRef?: { version?: string; image?: string; pullSecretRef?: { name: string } };
    oadpContent?: ConfigMapRef[];
    extraManifests?: ConfigMapRef[];
    autoRollbackOnFailure?: { initMonitorTimeoutSeconds?: number };
  };
  status?: {
    observedGeneration?: number;
    conditions?: IbuCondition[];
    validNextStages?: IbuStage[];
    history?: StageRun[];
    rollbackAvailabilityExpiration?: string;
  };
}

/** Condition messages of the Lifecycle Agent (controllers/utils/conditions.go). */
export const MSG = {
  inProgress: 'In progress',
  finalizing: 'Finalizing',
  aborting: 'Aborting',
  prepCompleted: 'Prep completed',
  prepFailed: 'Prep failed',
  upgradeCompleted: 'Upgrade completed',
  upgradeFailed: 'Upgrade failed',
  rollbackCompleted: 'Rollback completed',
  rollbackFailed: 'Rollback failed',
  rollbackRequested: 'Rollback requested',
} as const;

const IN_PROGRESS: Record<IbuStage, string> = {
  Idle: 'Idle',
  Prep: 'PrepInProgress',
  Upgrade: 'UpgradeInProgress',
  Rollback: 'RollbackInProgress',
};
const COMPLETED: Record<IbuStage, string> = {
  Idle: 'Idle',
  Prep: 'PrepCompleted',
  Upgrade: 'UpgradeCompleted',
  Rollback: 'RollbackCompleted',
};
const STAGES: IbuStage[] = ['Idle', 'Prep', 'Upgrade', 'Rollback'];

/** The condition of `type`, if any. */
export const ibuCondition = (ibu: ImageBasedUpgrade, type: string): IbuCondition | undefined =>
  ibu.status?.conditions?.find((c) => c.type === type);

/**
 * Sets a condition the way the Lifecycle Agent does: one whose status flips (and Idle always) moves to the end
 * of the list unless it is there already, so that the last condition is the latest news (the State and Details
 * columns show it). lastTransitionTime moves when the status flips.
 */
export function setIbuCondition(
  ibu: ImageBasedUpgrade,
  type: string,
  reason: string,
  status: 'True' | 'False',
  message: string,
  now: number,
): void {
  const s = (ibu.status ??= {});
  const list = (s.conditions ??= []);
  const old = list.find((c) => c.type === type);
  const next: IbuCondition = {
    type,
    status,
    reason,
    message,
    observedGeneration: ibu.metadata.generation,
    lastTransitionTime: old && old.status === status ? old.lastTransitionTime : kubeTime(now),
  };
  if (!old) list.push(next);
  else if ((old.status !== status || type === 'Idle') && list[list.length - 1]!.type !== type) {
    list.splice(list.indexOf(old), 1);
    list.push(next);
  } else list.splice(list.indexOf(old), 1, next);
}

export const removeIbuCondition = (ibu: ImageBasedUpgrade, type: string): void => {
  if (ibu.status?.conditions) ibu.status.conditions = ibu.status.conditions.filter((c) => c.type !== type);
};

/** Only the Idle condition, True: what finalizing or aborting leaves, and a new upgrade starts from. */
export function resetConditions(ibu: ImageBasedUpgrade, now: number): void {
  const s = (ibu.status ??= {});
  s.conditions = (s.conditions ?? []).filter((c) => c.type === 'Idle');
  setIbuCondition(ibu, 'Idle', 'Idle', 'True', 'Idle', now);
}

export const inProgressType = (stage: IbuStage): string => IN_PROGRESS[stage];
export const completedType = (stage: IbuStage): string => COMPLETED[stage];

export function isCompleted(ibu: ImageBasedUpgrade, stage: IbuStage): boolean {
  return ibuCondition(ibu, COMPLETED[stage])?.status === 'True';
}
export function isFailed(ibu: ImageBasedUpgrade, stage: IbuStage): boolean {
  return ibuCondition(ibu, COMPLETED[stage])?.status === 'False';
}
const completedOrFailed = (ibu: ImageBasedUpgrade, stage: IbuStage): boolean =>
  ibuCondition(ibu, COMPLETED[stage]) !== undefined;

/** Whether the agent works on `stage`: for Idle, aborting or finalizing (or their failures, waiting for a manual clean-up). */
export function isInProgress(ibu: ImageBasedUpgrade, stage: IbuStage): boolean {
  const c = ibuCondition(ibu, IN_PROGRESS[stage]);
  if (stage === 'Idle')
    return (
      c !== undefined &&
      c.status !== 'True' &&
      ['Aborting', 'AbortFailed', 'Finalizing', 'FinalizeFailed'].includes(c.reason)
    );
  return c?.status === 'True';
}

export const inProgressStage = (ibu: ImageBasedUpgrade): IbuStage | undefined =>
  STAGES.find((s) => isInProgress(ibu, s));

/** The stages spec.stage may move to now (the Lifecycle Agent's getValidNextStageList). */
export function validNextStages(ibu: ImageBasedUpgrade, afterPivot: boolean): IbuStage[] {
  const current = inProgressStage(ibu);
  if (current === 'Idle' || current === 'Rollback' || isFailed(ibu, 'Rollback')) return [];
  if (current === 'Prep' || isFailed(ibu, 'Prep')) return ['Idle'];
  if (current === 'Upgrade' || isFailed(ibu, 'Upgrade')) return afterPivot ? ['Rollback'] : ['Idle'];
  if (isCompleted(ibu, 'Rollback')) return ['Idle'];
  if (isCompleted(ibu, 'Upgrade')) return ['Idle', 'Rollback'];
  if (isCompleted(ibu, 'Prep')) return ['Idle', 'Upgrade'];
  if (isCompleted(ibu, 'Idle')) return ['Prep'];
  return ibuCondition(ibu, 'Idle') ? [] : ['Idle'];
}

/** Whether spec.stage asks for a stage the agent has not started (nor finished). */
export function transitionRequested(ibu: ImageBasedUpgrade): boolean {
  const stage = ibu.spec?.stage ?? 'Idle';
  if (stage === 'Idle') return !(isCompleted(ibu, 'Idle') || isInProgress(ibu, 'Idle'));
  return !(completedOrFailed(ibu, stage) || isInProgress(ibu, stage));
}

/** Whether moving to Idle now finalizes (after a completed upgrade or rollback) or aborts (before the pivot). */
function finalizeOrAbort(ibu: ImageBasedUpgrade, afterPivot: boolean): 'Finalizing' | 'Aborting' | undefined {
  if (isCompleted(ibu, 'Upgrade') || isCompleted(ibu, 'Rollback')) return 'Finalizing';
  const idle = ibuCondition(ibu, 'Idle');
  const rollback = ibuCondition(ibu, 'RollbackInProgress');
  if (idle?.status === 'False' && !afterPivot && (!rollback || rollback.reason === 'InvalidTransition'))
    return 'Aborting';
  return undefined;
}

/**
 * Starts the stage spec.stage asks for when it may be moved to (its in-progress conditions set), or says why
 * not with an InvalidTransition condition — the agent's own check behind the CRD's rule. True when it started.
 */
export function startTransition(ibu: ImageBasedUpgrade, afterPivot: boolean, now: number): boolean {
  const stage = ibu.spec?.stage ?? 'Idle';
  const gen = (type: string, reason: string, status: 'True' | 'False', message: string): void =>
    setIbuCondition(ibu, type, reason, status, message, now);
  if (validNextStages(ibu, afterPivot).includes(stage)) {
    clearInvalidTransitions(ibu, now);
    if (stage === 'Prep') {
      gen('Idle', 'InProgress', 'False', MSG.inProgress);
      gen('PrepInProgress', 'InProgress', 'True', MSG.inProgress);
    } else if (stage === 'Upgrade') gen('UpgradeInProgress', 'InProgress', 'True', MSG.inProgress);
    else if (stage === 'Rollback') {
      gen('UpgradeCompleted', 'Failed', 'False', MSG.rollbackRequested);
      gen('UpgradeInProgress', 'Failed', 'False', MSG.rollbackRequested);
      gen('RollbackInProgress', 'InProgress', 'True', MSG.inProgress);
    } else {
      const why = finalizeOrAbort(ibu, afterPivot);
      if (why === 'Finalizing') gen('Idle', 'Finalizing', 'False', MSG.finalizing);
      else if (why === 'Aborting') gen('Idle', 'Aborting', 'False', MSG.aborting);
      else if (!ibuCondition(ibu, 'Idle')) resetConditions(ibu, now);
    }
    return true;
  }
  let message: string;
  if (stage === 'Prep' || stage === 'Upgrade') message = 'Previous stage not succeeded';
  else if (stage === 'Rollback') message = 'Upgrade not started or already finalized';
  else if (isFailed(ibu, 'Rollback')) message = 'Transition to Idle not allowed - Rollback failed';
  else if (afterPivot)
    message = isInProgress(ibu, 'Rollback')
      ? 'Transition to Idle not allowed - Rollback is in progress'
      : 'Transition to Idle not allowed - Rollback first';
  else message = 'Abort or finalize not allowed';
  gen(IN_PROGRESS[stage], 'InvalidTransition', 'False', message);
  return false;
}

function clearInvalidTransitions(ibu: ImageBasedUpgrade, now: number): void {
  for (const c of [...(ibu.status?.conditions ?? [])]) {
    if (c.reason !== 'InvalidTransition') continue;
    if (c.type === 'Idle') setIbuCondition(ibu, 'Idle', 'InProgress', 'False', MSG.inProgress, now);
    else removeIbuCondition(ibu, c.type);
  }
}

/** The run of `stage` in status.history that is under way or last. */
export const runOf = (ibu: ImageBasedUpgrade, stage: IbuStage): StageRun | undefined =>
  [...(ibu.status?.history ?? [])].reverse().find((h) => h.stage === stage);

/** Records the start of the run of spec.stage, once. */
export function startRun(ibu: ImageBasedUpgrade, stage: IbuStage, now: number): StageRun {
  const s = (ibu.status ??= {});
  const found = (s.history ??= []).find((h) => h.stage === stage && h.startTime);
  if (found) return found;
  const run: StageRun = { stage, startTime: kubeTime(now), phases: [] };
  s.history.push(run);
  return run;
}

/** The phase of a stage run, started at `now` the first time it is asked for. */
export function startPhase(run: StageRun, phase: string, now: number): Phase {
  const list = (run.phases ??= []);
  const found = list.find((p) => p.phase === phase);
  if (found) return found;
  const p: Phase = { phase, startTime: kubeTime(now) };
  list.push(p);
  return p;
}

export function stopPhase(run: StageRun, phase: string, now: number): void {
  const p = run.phases?.find((x) => x.phase === phase);
  if (p && !p.completionTime) p.completionTime = kubeTime(now);
}

export const phaseDone = (run: StageRun | undefined, phase: string): boolean =>
  run?.phases?.some((p) => p.phase === phase && p.completionTime !== undefined) ?? false;
