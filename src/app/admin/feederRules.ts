// The promotion rules of a target channel, applied with what the store holds: the channel its feeder
// names, when each version entered that channel, the releases of a version (raw metadata merged, as
// the build merges it, since an errata url may come from there), and the time on the clock. Each
// question is answered inside the caller's transaction.
import { noChannel } from './noChannel.js';
import type { Clock } from '../../clock.js';
import type { Channel, Release } from '../../graph/model.js';
import { splitArch } from '../../graph/version.js';
import { promotionVerdict, type PromotionFacts, type PromotionVerdict } from '../../promotion/verdict.js';
import type { ChannelKind } from '../../schemas/admin.js';
import type { Feeder, RawMetadata } from '../../schemas/graphData.js';
import type { StoreTx } from '../../store/store.js';

/** When each version entered a channel. */
export type MembersSince = (kind: ChannelKind, name: string) => Promise<Map<string, Date>>;

export class FeederRules {
  constructor(private readonly clock: Clock) {}

  /** Where a feeder's name points: an internal channel of that name, else a public one. */
  async feederSource(
    tx: StoreTx,
    feeder: Feeder | undefined,
  ): Promise<{ kind: ChannelKind; channel: Channel } | undefined> {
    if (!feeder) return undefined;
    for (const kind of ['internal', 'public'] as const) {
      const channel = await tx.channels.get(kind, feeder.name);
      if (channel) return { kind, channel };
    }
    return undefined;
  }

  /** When each version entered a channel, read in `tx`. */
  membersSince(tx: StoreTx): MembersSince {
    return async (kind, name) =>
      new Map((await tx.channels.members(kind, name)).map((m) => [m.version, new Date(m.addedAt)]));
  }

  /** What the promotion engine says of a version entering a channel now, with the feeder facts it weighed. */
  async verdict(tx: StoreTx, kind: ChannelKind, name: string, version: string): Promise<PromotionVerdict> {
    const target = await tx.channels.get(kind, name);
    if (!target) throw await noChannel(tx, kind, name);
    const verdictOf = await this.forTarget(tx, target, { versions: [version] });
    return verdictOf(version);
  }

  /**
   * The verdicts of one target channel, everything they weigh read first. What the caller read
   * already is passed in: `since` (the feeder channels' members), `raw` metadata, and `releases`
   * (every release); otherwise the releases of `versions`, the versions to be asked, are read.
   */
  async forTarget(
    tx: StoreTx,
    target: Channel,
    read: { since?: MembersSince; raw?: RawMetadata; releases?: Release[]; versions?: string[] } = {},
  ): Promise<(version: string) => PromotionVerdict> {
    const source = await this.feederSource(tx, target.feeder);
    const sourceSince = read.since ?? this.membersSince(tx);
    const since = source ? await sourceSince(source.kind, source.channel.name) : new Map<string, Date>();
    const rawMetadata = read.raw ?? (await tx.rawMetadata.all());
    const all = read.releases ?? (await this.releasesNamed(tx, read.versions ?? []));
    const byVersion = new Map<string, Release[]>();
    for (const r of all) {
      const list = byVersion.get(r.version);
      if (list) list.push(r);
      else byVersion.set(r.version, [r]);
    }
    const facts: PromotionFacts = {
      feederSource: () => source?.channel,
      isMember: (_, version) => since.has(version),
      addedAt: (_, version) => since.get(version),
      releasesOf: (version) => releasesOf(byVersion, version, rawMetadata),
      now: new Date(this.clock.now()),
    };
    return (version) => promotionVerdict(target, version, facts);
  }

  /** The releases of the versions named (a name may carry +arch). */
  private async releasesNamed(tx: StoreTx, names: string[]): Promise<Release[]> {
    const versions = new Set(names.map((n) => splitArch(n).version));
    const out: Release[] = [];
    for (const v of versions) out.push(...(await tx.releases.byVersion(v)));
    return out;
  }
}

function releasesOf(byVersion: Map<string, Release[]>, version: string, rawMetadata: RawMetadata): Release[] {
  const ref = splitArch(version);
  const raw = rawMetadata[ref.version];
  return (byVersion.get(ref.version) ?? [])
    .filter((r) => ref.arch === undefined || r.arch === ref.arch)
    .map((r) => (raw ? { ...r, metadata: { ...raw, ...r.metadata } } : r));
}
