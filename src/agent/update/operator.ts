// The update executor: what the cluster-version-operator does once spec.desiredUpdate asks for a release.
// One sync pass resolves the request (resolve.ts), takes a new release through acceptance (accept.ts),
// carries the release under way through its runlevels (runlevels.ts), and, once the cluster is at its
// release, keeps that release's objects in place (reconcile.ts). Everything it knows is in the cluster:
// a new operator, after a hand-over or a kill, resumes from there. The steps are numbered as
// docs/user/agent.md's "Executing an update" numbers them.
import { canonicalJson } from '../../canonicalJson.js';
import { apiMessage, apiStatus } from '../../cluster/apiError.js';
import { DroppedFieldsError } from '../../cluster/dropped.js';
import { setCondition, removeCondition, type ClusterRelease, type ClusterVersion } from '../clusterVersion.js';
import { notReady } from '../awaitClusterVersion.js';
import { acceptedCurrent, acceptRelease } from './accept.js';
import { OperatorContext, type OperatorOptions } from './context.js';
import { NOT_FAILING } from './progressing.js';
import { upgradeableFrom } from './preconditions.js';
import { ProgressStore } from './progress.js';
import { reconcileRelease } from './reconcile.js';
import { resolveDesired } from './resolve.js';
import { applyRelease, type RunResult } from './runlevels.js';
import type { Payload } from '../../payload/load.js';
import { TIMING } from './timing.js';

export type { OperatorOptions };

/** How a pass ended: nothing to do, to be tried again, a new operator to take over, done, or a new request first. */
export type SyncResult = 'idle' | RunResult;

export class ClusterVersionOperator {
  private readonly ctx: OperatorContext;
  private readonly progress: ProgressStore;
  /**
   * The request (spec.desiredUpdate) whose acceptance was refused last, and until when it is not tried
   * again. Any change of the request — another target, force, accepted risks — is a new request, acted on
   * at once.
   */
  private refused: { request: string; until: number } | undefined;
  private nextReconcile = 0;
  /** The finished update whose progress record this operator has removed. */
  private cleanedUp: string | undefined;

  constructor(o: OperatorOptions) {
    this.ctx = new OperatorContext(o);
    this.progress = new ProgressStore(this.ctx.api);
  }

  /**
   * One pass: accept a new desired update, or go on with the one under way. A target that is refused
   * or invalid does not stop the update under way, as the CVO keeps applying its current release.
   */
  async sync(): Promise<SyncResult> {
    const { ctx } = this;
    const cv = await ctx.cv.get();
    // A ClusterVersion made again (deleted, or being written by the cluster) is not written to until whole.
    const incomplete = notReady(cv);
    if (incomplete) {
      ctx.log.debug(incomplete);
      return 'waiting';
    }
    const upgradeable = upgradeableFrom(await ctx.operators(), ctx.at(), await ctx.adminAck(cv));
    const resolution = resolveDesired(cv);
    // Nothing new asked (a request cleared, or one for the current release): a condition left about a target
    // no longer asked for gives way to the current release.
    const reset = resolution.kind === 'none' ? await acceptedCurrent(ctx, cv) : undefined;
    const invalid = resolution.kind === 'invalid' && {
      type: 'Invalid',
      status: 'True' as const,
      lastTransitionTime: ctx.at(),
      reason: 'InvalidClusterVersion',
      message: `The cluster version is invalid: ${resolution.message}`,
    };
    await ctx.cv.writeStatus((s) => {
      // A pass got this far: a failure an earlier pass reported is over.
      const failing = s.conditions?.find((c) => c.type === 'Failing');
      const over = failing?.status === 'True' && failing.message.startsWith(CANNOT_GO_ON);
      const conditions = setCondition(
        over
          ? setCondition(s.conditions, { type: 'Failing', lastTransitionTime: ctx.at(), ...NOT_FAILING })
          : s.conditions,
        upgradeable,
      );
      const valid = invalid ? setCondition(conditions, invalid) : removeCondition(conditions, 'Invalid');
      return { ...s, conditions: reset ? setCondition(valid, reset) : valid };
    });

    if (resolution.kind === 'target' && !this.recentlyRefused(cv)) {
      const acceptance = await acceptRelease(ctx, this.progress, cv, resolution.target);
      if (acceptance.kind === 'superseded') return 'superseded';
      if (acceptance.kind === 'accepted') {
        this.refused = undefined;
        return this.applyRelease(acceptance.desired, acceptance.payload);
      }
      this.refused = { request: requestOf(cv), until: ctx.clock.now() + TIMING.retry };
    }
    const h = cv.status.history?.[0];
    const desired = cv.status.desired;
    const current = !!desired && h?.version === desired.version && h.image === desired.image;
    if (current && h.state === 'Partial') return this.applyRelease(desired);
    if (current && h.state === 'Completed') await this.settled(desired, resolution.kind === 'none');
    return resolution.kind === 'none' ? 'idle' : 'waiting';
  }

  private async applyRelease(desired: ClusterRelease, payload?: Payload): Promise<SyncResult> {
    const superseded = (): Promise<boolean> => this.superseded(desired);
    const result = await applyRelease(this.ctx, { progress: this.progress, superseded }, desired, payload);
    if (result === 'completed') {
      this.nextReconcile = this.ctx.clock.now() + TIMING.reconcile; // everything was just applied
      await this.forgetFinished(desired);
    }
    return result;
  }

  /** The cluster is at its release: forget the finished update's progress, and reconcile when it is time. */
  private async settled(desired: ClusterRelease, nothingAsked: boolean): Promise<void> {
    // Completion removes the record; this catches a removal that failed then, and a restarted operator.
    if (this.cleanedUp !== desired.image) await this.forgetFinished(desired);
    if (!nothingAsked || this.ctx.clock.now() < this.nextReconcile) return;
    this.nextReconcile = this.ctx.clock.now() + TIMING.reconcile;
    const pass = await reconcileRelease(this.ctx, desired, () => this.superseded(desired));
    if (pass === 'interrupted') this.nextReconcile = 0;
  }

  /** Removes the progress record of a finished update; when that fails, a later pass tries again. */
  private async forgetFinished(desired: ClusterRelease): Promise<void> {
    try {
      await this.progress.clear();
      this.cleanedUp = desired.image;
    } catch (err) {
      this.ctx.log.warn({ err: apiMessage(err) }, 'the record of the finished update was not removed; will try again');
    }
  }

  /**
   * A pass that failed outside the steps that report their own failures (a missing namespace, a refused or
   * pruned write, an API server that does not answer) is reported on the ClusterVersion too, as Failing with
   * the reason and the API's message, so it shows where an administrator looks and not only in the log.
   * When even that write fails, the log is all there is.
   */
  async reportFailure(err: unknown): Promise<void> {
    const failing = {
      type: 'Failing',
      status: 'True' as const,
      lastTransitionTime: this.ctx.at(),
      reason: failureReason(err),
      message: `${CANNOT_GO_ON}${apiMessage(err)}`,
    };
    try {
      await this.ctx.cv.writeStatus((s) => ({ ...s, conditions: setCondition(s.conditions, failing) }));
    } catch (writeErr) {
      this.ctx.log.error({ err: apiMessage(writeErr) }, 'the failure could not be reported on the ClusterVersion');
    }
  }

  private recentlyRefused(cv: ClusterVersion): boolean {
    return this.refused?.request === requestOf(cv) && this.ctx.clock.now() < this.refused.until;
  }

  /** Whether spec.desiredUpdate now asks for something other than the release under way. */
  private async superseded(desired: ClusterRelease): Promise<boolean> {
    const cv = await this.ctx.cv.get();
    const r = resolveDesired(cv);
    return r.kind === 'target' && r.target.release.image !== desired.image && !this.recentlyRefused(cv);
  }
}

const CANNOT_GO_ON = 'The update executor cannot go on: ';

/** A failed pass's reason, by what failed: a missing resource, a refused request, a pruned write, or other. */
function failureReason(err: unknown): string {
  if (err instanceof DroppedFieldsError) return 'WritePruned';
  const status = apiStatus(err);
  if (status === 404) return 'ResourceNotFound';
  if (status === 401 || status === 403) return 'Forbidden';
  if (status !== undefined) return 'APIRequestFailed';
  return 'SyncFailed';
}

/** What spec.desiredUpdate asks, as one string: equal strings are the same request. */
const requestOf = (cv: ClusterVersion): string => canonicalJson(cv.spec.desiredUpdate ?? null);
