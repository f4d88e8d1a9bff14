// The promotion rules of a target channel, applied with what the store holds: the channel its feeder
// names, when each version entered that channel, the releases of a version (raw metadata merged, as
// the build merges it, since an errata url may come from there), and the time on the clock.
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { Channel, Release } from '../../graph/model.js';
import { splitArch } from '../../graph/version.js';
import { promotionVerdict, type PromotionFacts, type PromotionVerdict } from '../../promotion/verdict.js';
import type { ChannelKind, Refusal } from '../../schemas/admin.js';
import type { Feeder, RawMetadata } from '../../schemas/graphData.js';
import type { Store } from '../../store/store.js';

/** When each version entered a channel. */
export type MembersSince = (kind: ChannelKind, name: string) => Map<string, Date>;

export class FeederRules {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Where a feeder's name points: an internal channel of that name, else a public one. */
  feederSource(feeder: Feeder | undefined): { kind: ChannelKind; channel: Channel } | undefined {
    if (!feeder) return undefined;
    for (const kind of ['internal', 'public'] as const) {
      const channel = this.store.channels.get(kind, feeder.name);
      if (channel) return { kind, channel };
    }
    return undefined;
  }

  readonly membersSince: MembersSince = (kind, name) =>
    new Map(this.store.channels.members(kind, name).map((m) => [m.version, new Date(m.addedAt)]));

  /** Why a version may not enter a channel now, or undefined when it may. */
  refusal(kind: ChannelKind, name: string, version: string): Refusal | undefined {
    return this.verdict(kind, name, version).refusal;
  }

  /** What the promotion engine says of a version entering a channel now, with the feeder facts it weighed. */
  verdict(kind: ChannelKind, name: string, version: string): PromotionVerdict {
    const target = this.store.channels.get(kind, name);
    if (!target) throw new ApiError('does_not_exist', `no ${kind} channel ${name}`);
    return this.forTarget(target)(version);
  }

  /** The verdicts of one target channel, with the target and its feeder's members read once. */
  forTarget(
    target: Channel,
    sourceSince: MembersSince = this.membersSince,
    raw: RawMetadata = this.store.rawMetadata(),
  ): (version: string) => PromotionVerdict {
    const source = this.feederSource(target.feeder);
    const since = source ? sourceSince(source.kind, source.channel.name) : new Map<string, Date>();
    const facts: PromotionFacts = {
      feederSource: () => source?.channel,
      isMember: (_, version) => since.has(version),
      addedAt: (_, version) => since.get(version),
      releasesOf: (version) => this.releasesOf(version, raw),
      now: new Date(this.clock.now()),
    };
    return (version) => promotionVerdict(target, version, facts);
  }

  private releasesOf(version: string, rawMetadata: RawMetadata): Release[] {
    const ref = splitArch(version);
    const raw = rawMetadata[ref.version];
    return this.store.releases
      .byVersion(ref.version)
      .filter((r) => ref.arch === undefined || r.arch === ref.arch)
      .map((r) => (raw ? { ...r, metadata: { ...raw, ...r.metadata } } : r));
  }
}
