// Steps 7 to 10 of an update: the runlevels not yet done, each applied (components in parallel, each
// component's files in order) and then gated on its ClusterOperators; progress kept in the cluster after
// every runlevel; a hand-over when the CVO's own Deployment changed; the history entry completed at the end.
import { documentCount, type Payload } from '../../payload/load.js';
import { runStage, taskGraph, type Stage } from '../../payload/taskGraph.js';
import { setCondition, type ClusterRelease } from '../clusterVersion.js';
import { applyWithRetry } from './apply.js';
import { NOT_FAILING, ProgressReporter, withProgress, working } from './progressing.js';
import type { ApiObject, OperatorContext } from './context.js';
import { expectedOperators, gateOperators, type GateVerdict } from './gate.js';
import { retrievePayload } from './retrieval.js';
import type { Progress, ProgressStore } from './progress.js';
import {
  applicationsPending,
  endMaintenance,
  failedLocks,
  logFailed,
  poolsUpdating,
  readLocks,
  requestMaintenance,
} from './maintenance.js';
import { TIMING } from './timing.js';

/** How applying a release ended: to be tried again, a new operator to take over, done, or a new request first. */
export type RunResult = 'waiting' | 'handover' | 'completed' | 'superseded';

export interface RunlevelOptions {
  progress: ProgressStore;
  /** Whether spec.desiredUpdate now asks for another release than the one under way. */
  superseded: () => Promise<boolean>;
}

export async function applyRelease(
  ctx: OperatorContext,
  o: RunlevelOptions,
  desired: ClusterRelease,
  loaded?: Payload,
): Promise<RunResult> {
  let payload = loaded;
  if (!payload) {
    // The shared volume lost it (a new pod): retrieve it again.
    if (!ctx.payloads.has(desired.image)) {
      const error = await retrievePayload(ctx, desired);
      if (error)
        return failing(
          ctx,
          'RetrievePayload',
          `Unable to download and prepare the update: ${String(error)}`,
          desired.version,
        );
    }
    payload = ctx.payloads.load(desired.image);
  }
  const stages = taskGraph(payload.manifests);
  const total = documentCount(payload.manifests);
  const saved = await o.progress.read();
  const fresh: Progress = { version: desired.version, image: desired.image, stagesDone: 0, done: 0 };
  const progress = saved && saved.version === desired.version && saved.image === desired.image ? saved : fresh;
  if (progress.stagesDone > 0) {
    const { stagesDone, done } = progress;
    ctx.log.info(
      { version: desired.version, stagesDone, stages: stages.length, done },
      'resuming the update where it was',
    );
  }
  let done = progress.done;
  // Workload locks (maintenance.ts): the applications are updated first. With every runlevel done the update
  // is in phase 5 (an executor stopped after removing the request, before completing): no new maintenance.
  const coordinated = (await readLocks(ctx)) !== undefined;
  if (coordinated && progress.stagesDone < stages.length) {
    const applications = await awaitLocks(ctx, o, desired, { done, total }, 'applications');
    if (applications !== 'ok') return applications;
  }
  for (let i = progress.stagesDone; i < stages.length; i++) {
    if (ctx.stopped) return 'waiting';
    if (await o.superseded()) return 'superseded';
    // A failed lock stops the flow where it is: no further runlevel until it recovers.
    const held = coordinated ? await awaitLocks(ctx, o, desired, { done, total }, 'failed') : 'ok';
    if (held !== 'ok') return held;
    const stage = stages[i]!;
    const doneBefore = done;
    let handover = false;
    const reporter = new ProgressReporter(
      (n) => ctx.cv.writeStatus((s) => withProgress(s, ctx.at(), progressing(desired, n, total))),
      ctx.log,
    );
    try {
      await runStage(stage, ctx.workers, async (task) => {
        for (const m of task.manifests) {
          for (const doc of m.docs as ApiObject[]) {
            if ((await applyWithRetry(ctx, doc, m, done + 1, total)).handover) handover = true;
            done += 1;
          }
        }
        reporter.report(done);
      });
    } catch (err) {
      await reporter.flush();
      const errors: Error[] = err instanceof AggregateError ? err.errors : [err as Error];
      if (errors.length === 1) return failing(ctx, 'UpdatePayloadFailed', errors[0]!.message, desired.version);
      const list = errors.map((e) => `* ${e.message}`).join('\n');
      return failing(ctx, 'MultipleErrors', `Multiple errors are preventing progress:\n${list}`, desired.version);
    }
    await reporter.flush();
    // The runlevel applied: a failure reported by an earlier try is over.
    await ctx.cv.writeStatus((s) => withProgress(s, ctx.at(), progressing(desired, done, total), NOT_FAILING));
    const resumedWait = i === progress.stagesDone ? progress.waitingSince : undefined;
    const waitingSince = resumedWait ?? ctx.clock.now();
    await o.progress.write({
      version: desired.version,
      image: desired.image,
      stagesDone: i,
      done: doneBefore,
      waitingSince,
    });
    const gate = await awaitOperators(ctx, o, stage, desired, { done, total, waitingSince });
    if (gate !== 'ok') return gate;
    await o.progress.write({ version: desired.version, image: desired.image, stagesDone: i + 1, done });
    ctx.log.info({ runlevel: stage.runlevel, stage: i + 1, stages: stages.length, done, total }, 'runlevel done');
    if (handover && i + 1 < stages.length) {
      ctx.log.info(
        { stagesDone: i + 1 },
        'the cluster-version-operator Deployment changed: handing over to the new operator',
      );
      return 'handover';
    }
  }
  if (coordinated) {
    // Phase 5: the maintenance ends only with no lock failed.
    const held = await awaitLocks(ctx, o, desired, { done, total }, 'failed');
    if (held !== 'ok') return held;
    await endMaintenance(ctx);
  }
  await complete(ctx, desired.version, total);
  return 'completed';
}

const progressing = (desired: ClusterRelease, done: number, total: number) =>
  ({ status: 'True', reason: '', message: working(desired.version, done, total) }) as const;

/** Step 9: waits until every ClusterOperator of the stage is Available, not Degraded and at the target versions. */
async function awaitOperators(
  ctx: OperatorContext,
  o: RunlevelOptions,
  stage: Stage,
  desired: ClusterRelease,
  at: { done: number; total: number; waitingSince: number },
): Promise<'ok' | 'superseded' | 'waiting'> {
  const expected = expectedOperators(stage, desired.version);
  if (expected.length === 0) return 'ok';
  for (;;) {
    const waited = ctx.clock.now() - at.waitingSince;
    const verdict = await withLocks(
      ctx,
      expected.some((e) => e.name === 'machine-config'),
      gateOperators(expected, await ctx.operators(), waited, desired.version, at.done, at.total),
      working(desired.version, at.done, at.total),
    );
    await ctx.cv.writeStatus((s) => withProgress(s, ctx.at(), verdict.progressing, verdict.failing));
    if (verdict.done) return 'ok';
    if (ctx.stopped) return 'waiting'; // not done: the next operator gates this runlevel again
    await ctx.pause(TIMING.gatePoll);
    if (await o.superseded()) return 'superseded';
  }
}

/**
 * Waits on the workload locks of a cluster that has them. 'applications' (phases 1 and 2): the
 * ClusterMaintenanceRequest, then until every ClusterWorkloadLock is inactive. 'failed' (before each runlevel
 * and before the request is removed): while a lock is failed, which is reported as Failing; nothing is written
 * when no lock has failed at the first look.
 */
async function awaitLocks(
  ctx: OperatorContext,
  o: RunlevelOptions,
  desired: ClusterRelease,
  at: { done: number; total: number },
  until: 'applications' | 'failed',
): Promise<'ok' | 'superseded' | 'waiting'> {
  if (until === 'applications') await requestMaintenance(ctx, desired.version);
  for (let first = true; ; first = false) {
    const locks = await readLocks(ctx);
    const pending = locks && until === 'applications' ? applicationsPending(locks) : undefined;
    const failed = locks && failedLocks(locks);
    logFailed(ctx, failed);
    if (!pending && !failed && first && until === 'failed') return 'ok';
    const progressing = {
      status: 'True' as const,
      reason: failed ? failed.reason : '',
      message: `${working(desired.version, at.done, at.total)}${pending ? `, ${pending}` : ''}`,
    };
    await ctx.cv.writeStatus((s) =>
      withProgress(s, ctx.at(), progressing, failed ? { status: 'True', ...failed } : NOT_FAILING),
    );
    if (!pending && !failed) return 'ok';
    if (ctx.stopped) return 'waiting';
    await ctx.pause(TIMING.gatePoll);
    if (await o.superseded()) return 'superseded';
  }
}

/**
 * A runlevel's verdict on a cluster with workload locks: a failed lock fails it (the flow stops there until
 * it recovers), and the machine-config runlevel is done only once every pool's nodes are (phases 3 and 4).
 */
async function withLocks(
  ctx: OperatorContext,
  nodesToo: boolean,
  verdict: GateVerdict,
  working: string,
): Promise<GateVerdict> {
  const locks = await readLocks(ctx);
  if (!locks) return verdict;
  const failed = failedLocks(locks);
  logFailed(ctx, failed);
  const pools = nodesToo && verdict.done ? await poolsUpdating(ctx) : [];
  if (!failed && pools.length === 0) return verdict;
  const message = pools.length
    ? `${working}, waiting on node maintenance in pools ${pools.join(', ')}`
    : verdict.progressing.message;
  return {
    done: verdict.done && pools.length === 0 && !failed,
    progressing: { status: 'True', reason: failed?.reason ?? verdict.progressing.reason, message },
    failing: failed ? { status: 'True', ...failed } : verdict.failing,
  };
}

/** Reports an update that cannot go on for now, then waits before the next try. */
async function failing(ctx: OperatorContext, reason: string, message: string, version: string): Promise<RunResult> {
  ctx.log.error({ reason, message }, 'update failing');
  const progressing = { status: 'True' as const, reason, message: `Unable to apply ${version}: ${message}` };
  await ctx.cv.writeStatus((s) => withProgress(s, ctx.at(), progressing, { status: 'True', reason, message }));
  await ctx.pause(TIMING.retry);
  return 'waiting';
}

/** Step 10: the control plane is done; the nodes may still be updating. */
async function complete(ctx: OperatorContext, version: string, total: number): Promise<void> {
  const at = ctx.at();
  await ctx.cv.writeStatus((s) => {
    const next = withProgress(
      s,
      at,
      { status: 'False', reason: '', message: `Cluster version is ${version}` },
      NOT_FAILING,
    );
    next.conditions = setCondition(next.conditions, {
      type: 'Available',
      status: 'True',
      lastTransitionTime: at,
      reason: '',
      message: `Done applying ${version}`,
    });
    next.history = (s.history ?? []).map((h, i) =>
      i === 0 && h.version === version ? { ...h, state: 'Completed' as const, completionTime: at } : h,
    );
    return next;
  });
  ctx.log.info({ version, manifests: total }, 'update completed');
}
