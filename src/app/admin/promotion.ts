// Promotion into a channel, following its feeder's rules (forced past them with a reason), its dry
// run (the edges the served graph would gain), and withdrawal, which tombstones the version there.
import { noChannel } from './noChannel.js';
import { ApiError } from '../../errors.js';
import { edgesGained, withVersionIn } from '../../graph/diff.js';
import type { ChannelKind, PromoteBody, PromotionResult, Refusal, WithdrawalResult } from '../../schemas/admin.js';
import type { StoreTx } from '../../store/store.js';
import type { FeederRules } from './feederRules.js';
import type { Actor, AuditedWrites, WriteOutcome } from './writes.js';

export class Promotion {
  constructor(
    private readonly writes: AuditedWrites,
    readonly rules: FeederRules,
  ) {}

  async promote(
    kind: ChannelKind,
    name: string,
    req: PromoteBody,
    actor: Actor,
    dryRun = false,
  ): Promise<PromotionResult> {
    if (req.force && !req.reason?.trim())
      throw new ApiError('invalid_request', 'body.reason: a forced promotion needs a reason');
    if (dryRun)
      return (
        await this.writes.store.read((tx) =>
          this.promoteIn(tx, this.writes.now().toISOString(), kind, name, req, actor, true),
        )
      ).result;
    return this.writes.run((tx, at) => this.promoteIn(tx, at, kind, name, req, actor, false));
  }

  /** One promotion inside the caller's transaction. */
  private async promoteIn(
    tx: StoreTx,
    at: string,
    kind: ChannelKind,
    name: string,
    req: PromoteBody,
    actor: Actor,
    dryRun: boolean,
  ): Promise<WriteOutcome<PromotionResult>> {
    const base = { channel: name, kind, version: req.version, forced: false, dryRun };
    if (await tx.channels.memberSince(kind, name, req.version))
      return { result: { ...base, changed: false }, changed: false };
    const verdict = await this.rules.verdict(tx, kind, name, req.version);
    const refusal = verdict.refusal;
    // A dry run shows the feeder's rules one by one, as explain does: the same engine answers both.
    const feeder = dryRun && verdict.feeder ? { feeder: verdict.feeder } : {};
    if (refusal && (!req.force || refusal.rule === 'release')) {
      if (dryRun) return { result: { ...base, changed: false, refusal, ...feeder }, changed: false };
      throw new ApiError('promotion_refused', `${refusal.rule}: ${refusal.message}`);
    }
    const forced = refusal !== undefined;
    if (dryRun)
      return {
        result: { ...base, forced, changed: true, ...feeder, ...this.edgesGained(kind, name, req.version) },
        changed: false,
      };
    await this.add(tx, at, kind, name, req.version, actor, refusal, req.reason ?? null);
    return { result: { ...base, forced, changed: true }, changed: true, channels: [{ kind, name }] };
  }

  /**
   * Adds a version its checks let in (or that was forced past `bypassed`), with its audit entry, inside
   * the caller's transaction.
   */
  async add(
    tx: StoreTx,
    at: string,
    kind: ChannelKind,
    name: string,
    version: string,
    actor: Actor,
    bypassed?: Refusal,
    reason: string | null = null,
  ): Promise<void> {
    await tx.channels.addVersion(kind, name, version, at);
    const action = bypassed ? 'channel.promote.forced' : 'channel.promote';
    const after = { version, ...(bypassed && { bypassed }) };
    await this.writes.record(tx, at, actor, action, `${kind}/${name}`, null, after, reason);
  }

  withdraw(
    kind: ChannelKind,
    name: string,
    version: string,
    reason: string | null,
    actor: Actor,
  ): Promise<WithdrawalResult> {
    return this.writes.run(async (tx, at) => {
      const channel = await tx.channels.get(kind, name);
      if (!channel) throw await noChannel(tx, kind, name);
      const removed = await tx.channels.removeVersion(kind, name, version, at, true);
      if (!removed) throw new ApiError('does_not_exist', `${version} is not in ${kind} channel ${name}`);
      await this.writes.record(
        tx,
        at,
        actor,
        'channel.withdraw',
        `${kind}/${name}`,
        { version },
        { tombstoned: version },
        reason,
      );
      return { result: { changed: true }, changed: true, channels: [{ kind, name }] };
    });
  }

  /**
   * The edges the channel's served graph would gain with the version in it, read off the served
   * snapshot (a release the signature policy withholds is not in it, so it gains no edge).
   */
  private edgesGained(
    kind: ChannelKind,
    name: string,
    version: string,
  ): Pick<PromotionResult, 'edges' | 'conditionalEdges'> {
    if (kind === 'internal') return { edges: [], conditionalEdges: [] };
    const graph = this.writes.graph.served().graph;
    return edgesGained(graph, withVersionIn(graph, name, version), name);
  }
}
