// Phased rollouts declared, halted, resumed and cancelled: through the admin API (an administrator) and
// by the rollout monitor (the service, when the clusters that took a rollout's edges fail). Each write is
// one transaction with its audit entry and its change (graph history and the webhook outbox), then a
// rebuild, so every replica serves it from the store.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.js';
import type { Change, ChangeKind } from '../../history/change.js';
import {
  declaredRollout,
  DEFAULT_HALT_AFTER,
  HALTED_RISK,
  haltMessage,
  phaseOf,
  type Rollout,
  type RolloutCounts,
  type RolloutState,
} from '../../graph/rollouts.js';
import { parseIsoDuration } from '../../duration.js';
import { GRAPH_DATA_PREFIX } from '../../graph/phasing.js';
import { isReleaseVersion } from '../../graph/version.js';
import { patternError } from '../../graph/pattern.js';
import type { ChangeSink } from '../../store/changeSink.js';
import type { StoreTx } from '../../store/store.js';
import type { RolloutBody } from '../../schemas/rollouts.js';
import { MAX_CANARIES, MAX_START_SKEW_MS, MAX_UNFINISHED_PER_CHANNEL } from '../../schemas/rollouts.js';
import { isStartTime, MAX_PHASING_MS } from '../../validation/channels.js';
import type { Problem } from '../../validation/problems.js';
import { invalidRequest, type Actor, type AuditedWrites } from '../admin/writes.js';

/** Who halts a rollout on its own. */
const SERVICE_ACTOR: Actor = { subject: 'cincy' };

export class RolloutWrites {
  constructor(
    private readonly writes: AuditedWrites,
    /** Where the changes go besides graph history (the webhook outbox), in the write's transaction. */
    private readonly sinks: readonly ChangeSink[],
    /** The base of a rollout's default URL (its risk's, while halted): this service's address as clusters reach it. */
    private readonly publicUrl: string,
  ) {}

  /** Declares a rollout; 400 naming every bad field, 409 while another of the same channel and target is unfinished. */
  declare(body: RolloutBody, actor: Actor): Promise<Rollout> {
    const now = this.writes.now().getTime();
    const problems: Problem[] = [];
    const bad = (field: string, message: string): void => void problems.push({ file: 'body', field, message });
    if (!isReleaseVersion(body.to)) bad('to', `'${body.to}' is not a release version (semver, no build metadata)`);
    const patternProblem = body.from === undefined ? undefined : patternError(body.from);
    if (patternProblem) bad('from', `not a regular expression: ${patternProblem}`);
    const start = Date.parse(body.start);
    if (!isStartTime(body.start))
      bad('start', `'${body.start}' is not an RFC 3339 date-time with its offset, such as 2026-06-01T00:00:00Z`);
    else if (Math.abs(start - now) > MAX_START_SKEW_MS)
      bad('start', `'${body.start}' is more than a year away from now`);
    const given = parseIsoDuration(body.duration);
    const durationMs = given === undefined ? undefined : Math.round(given);
    if (durationMs === undefined) bad('duration', `'${body.duration}' is not an ISO 8601 duration (e.g. PT6H, P2D)`);
    else if (durationMs > MAX_PHASING_MS) bad('duration', `'${body.duration}' is longer than 90 days`);
    // Cluster ids are UUIDs, kept in lower case as the fleet keeps them.
    const canaries = [...new Set((body.canaries ?? []).map((c) => c.toLowerCase()))];
    if (canaries.length > MAX_CANARIES) bad('canaries', `at most ${MAX_CANARIES} cluster ids`);
    const haltAfter = { ...DEFAULT_HALT_AFTER, ...body.haltAfter };
    if (haltAfter.failures === null && haltAfter.fraction === null)
      bad('haltAfter', 'both bounds are off: the rollout could never halt itself; give failures or fraction');
    if (problems.length) throw invalidRequest(problems);
    const id = `r-${randomUUID().slice(0, 8)}`;
    const rollout = declaredRollout({
      ...{ id, channel: body.channel, to: body.to, from: body.from ?? null, start, canaries, haltAfter },
      ...{ duration: body.duration, durationMs: durationMs!, reason: body.reason ?? null },
      ...{ url: body.url ?? `${this.publicUrl}/api/v1/rollouts/${id}`, createdAt: now, createdBy: actor.subject },
    });
    return this.writes.run(async (tx, at) => {
      if (!(await tx.channels.get('public', body.channel)))
        throw new ApiError('invalid_request', `body.channel: no public channel '${body.channel}'`);
      const newest = await tx.rollouts.newestOf(body.channel, body.to);
      if (newest && unfinished(newest, now))
        throw new ApiError(
          'conflict',
          `rollout ${newest.id} of ${body.to} in ${body.channel} is ${phaseOf(newest, now)}; cancel it first`,
        );
      if ((await tx.rollouts.unfinishedIn(body.channel, now)) >= MAX_UNFINISHED_PER_CHANNEL)
        throw new ApiError(
          'conflict',
          `${MAX_UNFINISHED_PER_CHANNEL} rollouts of ${body.channel} are unfinished; let one end or cancel one first`,
        );
      await tx.rollouts.insert(rollout);
      await this.writes.record(tx, at, actor, 'rollout.declare', id, null, rollout, body.reason ?? null);
      await this.changed(tx, 'rollout-declared', rollout, at, actor);
      return { result: rollout, changed: true };
    });
  }

  /** An administrator halts a rollout: its edges are served to every cluster conditional on its risk. */
  halt(id: string, actor: Actor, reason: string | null): Promise<Rollout> {
    return this.move(id, 'active', 'halted', actor, reason, null);
  }

  /** Runs it again as declared: the risk goes, each cluster is offered its edges at its turn. */
  resume(id: string, actor: Actor, reason: string | null): Promise<Rollout> {
    return this.move(id, 'halted', 'active', actor, reason, null);
  }

  /** Withdraws its edges from every cluster, until another rollout of its channel and target is declared. */
  cancel(id: string, actor: Actor, reason: string | null): Promise<Rollout> {
    return this.move(id, ['active', 'halted'], 'cancelled', actor, reason, null);
  }

  /**
   * The service halts a rollout whose clusters failed; false when it was no longer active (a replica or
   * an administrator got there first).
   */
  async haltOnFailures(id: string, counts: RolloutCounts): Promise<boolean> {
    try {
      await this.move(id, 'active', 'halted', SERVICE_ACTOR, 'the clusters that took it failed', counts);
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.kind === 'conflict' || err.kind === 'does_not_exist')) return false;
      throw err;
    }
  }

  private move(
    id: string,
    from: RolloutState | RolloutState[],
    to: RolloutState,
    actor: Actor,
    reason: string | null,
    haltCounts: RolloutCounts | null,
  ): Promise<Rollout> {
    const allowed = Array.isArray(from) ? from : [from];
    return this.writes.run(async (tx, at) => {
      const now = Date.parse(at);
      // A graph-data rollout is stored the first time it is acted on, as graph-data declares it now.
      const declared = this.writes.graph.current?.rollouts.find(
        (r) => r.id === id && r.id.startsWith(GRAPH_DATA_PREFIX),
      );
      let before = await tx.rollouts.get(id);
      if (!before && declared) {
        before = { ...declared, url: declared.url || `${this.publicUrl}/api/v1/rollouts/${id}` };
        await tx.rollouts.insert(before);
      } else if (before && declared) before = { ...declared, state: before.state, url: before.url };
      if (!before) throw new ApiError('does_not_exist', `no rollout with id '${id}'`);
      if (id.startsWith(GRAPH_DATA_PREFIX) && !declared)
        throw new ApiError('conflict', `graph-data no longer declares rollout ${id} (or an API rollout overrides it)`);
      const newest = id.startsWith(GRAPH_DATA_PREFIX)
        ? undefined
        : await tx.rollouts.newestOf(before.channel, before.to);
      if (newest && newest.id !== id)
        throw new ApiError('conflict', `rollout ${id} was superseded by ${newest.id} of the same channel and target`);
      if (
        !allowed.includes(before.state) ||
        !(await tx.rollouts.setState(id, before.state, to, { reason, at: now, haltCounts }))
      )
        throw new ApiError('conflict', `rollout ${id} is ${phaseOf(before, now)}; it cannot be made ${to}`);
      const after: Rollout = { ...before, state: to, reason, stateAt: now, haltCounts };
      const action = to === 'halted' ? 'halt' : to === 'active' ? 'resume' : 'cancel';
      await this.writes.record(tx, at, actor, `rollout.${action}`, id, before, after, reason);
      const kind: ChangeKind =
        to === 'halted' ? 'rollout-halted' : to === 'active' ? 'rollout-resumed' : 'rollout-cancelled';
      await this.changed(tx, kind, after, at, actor);
      return { result: after, changed: true };
    });
  }

  /** The change a write made, to graph history and the sinks, in its transaction. */
  private async changed(tx: StoreTx, kind: ChangeKind, r: Rollout, at: string, actor: Actor): Promise<void> {
    const change: Change = {
      kind,
      at,
      channel: r.channel,
      to: r.to,
      cause: `rollout ${r.id}`,
      actor: actor.subject,
      detail: {
        rollout: r.id,
        ...(r.from !== null && { from: r.from }),
        start: new Date(r.start).toISOString(),
        duration: r.duration,
        ...(r.reason !== null && { reason: r.reason }),
        ...(r.haltCounts && { counts: r.haltCounts }),
        url: r.url,
      },
    };
    if (kind === 'rollout-halted')
      Object.assign(change, { risk: HALTED_RISK, detail: { ...change.detail, message: haltMessage(r) } });
    await tx.history.add([change]);
    for (const sink of this.sinks) await sink(tx, [change]);
  }
}

/** Whether a rollout still stands in the way of a new one of its channel and target. */
function unfinished(r: Rollout, now: number): boolean {
  const phase = phaseOf(r, now);
  return phase === 'scheduled' || phase === 'rolling' || phase === 'halted';
}
