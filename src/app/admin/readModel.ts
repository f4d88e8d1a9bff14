// What the admin API's reads answer from, made once per store generation: the releases in semver
// order with an index for each filter (arch, exact version, version prefix, channel), the channels of
// each kind by name with their members, each version's channels and risks, the risks by id, and the
// signatures by payload digest. It is read in one transaction, so one model holds one state of the
// store, and it never changes: an answer made from one model mixes no two generations.
import type { BlockedEdge, Channel, Release } from '../../graph/model.js';
import { payloadDigest } from '../../graph/model.js';
import { compareVersions, sortVersions } from '../../graph/version.js';
import type { ChannelKind, SignatureDoc } from '../../schemas/admin.js';
import { releaseRecord } from '../../sources/releaseRecord.js';
import { channelKind, type ChannelMember } from '../../store/channels.js';
import { releaseFromRow, type ReleaseRow } from '../../store/releases.js';
import type { StoredSignature } from '../../store/signatures.js';
import type { Store } from '../../store/store.js';
import type { SignaturePolicy } from '../signaturePolicy.js';
import { firstIndex } from './pagination.js';
import { signatureDoc } from './signatures.js';

/** A channel as the model keeps it, with its members in channel order. */
export interface ChannelEntry {
  /** The channel's place in the order of the store: internal channels first, each kind by name. */
  ordinal: number;
  kind: ChannelKind;
  name: string;
  channel: Channel;
  members: ChannelMember[];
}

/** The positions (in the model's release order) of the releases a filter keeps, ascending, and a test for one. */
export interface ReleaseIndex {
  positions: readonly number[];
  has(position: number): boolean;
}

/** How many version prefixes a model remembers the index of; more start the memory over. */
const PREFIX_MEMORY = 64;

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Release order: semver, then the version's text (for versions semver ranks equal), then arch. */
export function compareReleaseKeys(a: { version: string; arch: string }, b: { version: string; arch: string }): number {
  return compareVersions(a.version, b.version) || byText(a.version, b.version) || byText(a.arch, b.arch);
}

export class AdminReadModel {
  /** Every release in release order, as stored (parsed when a page or a detail shows it). */
  readonly releases: readonly ReleaseRow[];
  private readonly parsed: Array<Release | undefined>;
  /** Every position of `releases`: the index of no filter. */
  readonly allReleases: ReleaseIndex;
  private readonly releaseAt = new Map<string, number>();
  private readonly byArch = new Map<string, ReleaseIndex>();
  private readonly byVersion = new Map<string, number[]>();
  /** `version+arch`, the way a channel may name one arch's release. */
  private readonly byVersionArch = new Map<string, number>();
  /** Distinct versions in text order: the versions with a prefix are next to each other. */
  private readonly versionsByText: readonly string[];
  private readonly prefixes = new Map<string, ReleaseIndex>();
  private readonly channelReleases = new Map<ChannelEntry, ReleaseIndex>();

  /** The channels of each kind by name. */
  readonly channels: Readonly<Record<ChannelKind, readonly ChannelEntry[]>>;
  private readonly channelAt = new Map<string, ChannelEntry>();
  /** Member name (a version, or version+arch) → the channels that hold it, in the order of the store. */
  private readonly memberOf = new Map<string, Array<{ entry: ChannelEntry; addedAt: string }>>();

  /** Every blocked edge by id. */
  readonly risks: readonly BlockedEdge[];
  private readonly risksByTarget = new Map<string, BlockedEdge[]>();

  private readonly signatures = new Map<string, SignatureDoc[]>();
  /** Each item's JSON, made the first time a page shows it. */
  private readonly serialized = new WeakMap<object, string>();

  private constructor(
    readonly generation: number,
    input: {
      releases: ReleaseRow[];
      channels: Channel[];
      members: ChannelMember[];
      risks: BlockedEdge[];
      signatures: Array<Omit<StoredSignature, 'bytes'>>;
    },
    /** Digests the trust keys vouch for, when the server requires signatures. */
    private readonly vouched: ReadonlySet<string> | undefined,
    private readonly policy: SignaturePolicy,
  ) {
    this.releases = sortReleases(input.releases);
    this.parsed = new Array<Release | undefined>(this.releases.length);
    this.allReleases = { positions: this.releases.map((_, i) => i), has: () => true };
    const archPositions = new Map<string, number[]>();
    this.releases.forEach((r, i) => {
      this.releaseAt.set(`${r.arch}/${r.version}`, i);
      this.byVersionArch.set(`${r.version}+${r.arch}`, i);
      push(archPositions, r.arch, i);
      push(this.byVersion, r.version, i);
    });
    for (const [arch, positions] of archPositions) this.byArch.set(arch, releaseIndex(positions));
    this.versionsByText = [...this.byVersion.keys()].sort(byText);

    const membersOf = new Map<string, ChannelMember[]>();
    for (const m of input.members) push(membersOf, `${m.kind}/${m.channel}`, m);
    const entries = input.channels
      .map((channel) => ({ kind: channelKind(channel), name: channel.name, channel }))
      .sort((a, b) => byText(a.kind, b.kind) || byText(a.name, b.name))
      .map((c, ordinal): ChannelEntry => ({ ...c, ordinal, members: membersOf.get(`${c.kind}/${c.name}`) ?? [] }));
    this.channels = {
      internal: entries.filter((e) => e.kind === 'internal'),
      public: entries.filter((e) => e.kind === 'public'),
    };
    for (const entry of entries) {
      this.channelAt.set(`${entry.kind}/${entry.name}`, entry);
      for (const m of entry.members) push(this.memberOf, m.version, { entry, addedAt: m.addedAt });
    }

    this.risks = [...input.risks].sort((a, b) => byText(a.id, b.id));
    for (const e of this.risks) push(this.risksByTarget, e.to, e);

    for (const s of input.signatures) push(this.signatures, s.digest, signatureDoc(s));
  }

  /** Reads the store in one transaction; `generation` is the store's generation before the read. */
  static async build(store: Store, policy: SignaturePolicy, generation: number): Promise<AdminReadModel> {
    const input = await store.read(async (tx) => ({
      releases: await tx.releases.allRows(),
      ...(await tx.channels.allWithMembers()),
      risks: await tx.blockedEdges.all(),
      signatures: await tx.signatures.summaries(),
    }));
    const vouched = policy.required ? policy.vouchedDigests(input.signatures) : undefined;
    return new AdminReadModel(generation, input, vouched, policy);
  }

  /** The position of one release, if the store holds it. */
  releasePosition(arch: string, version: string): number | undefined {
    return this.releaseAt.get(`${arch}/${version}`);
  }

  /** The release at a position. */
  release(position: number): Release {
    return (this.parsed[position] ??= releaseFromRow(this.releases[position]!));
  }

  /** The release record (as the API and the tree show it) at a position, serialized once. */
  releaseJson(position: number): string {
    return this.once(this.releases[position]!, () => releaseRecord(this.release(position)));
  }

  releasesOfArch(arch: string): ReleaseIndex {
    return this.byArch.get(arch) ?? EMPTY_INDEX;
  }

  releasesOfVersion(version: string): ReleaseIndex {
    return releaseIndex(this.byVersion.get(version) ?? []);
  }

  /** The releases whose version starts with `prefix`, remembered for the next page. */
  releasesWithPrefix(prefix: string): ReleaseIndex {
    let index = this.prefixes.get(prefix);
    if (!index) {
      const from = firstIndex(this.versionsByText, (v) => v >= prefix);
      const to = firstIndex(this.versionsByText, (v) => v >= prefix && !v.startsWith(prefix));
      const positions = Int32Array.from(this.versionsByText.slice(from, to).flatMap((v) => this.byVersion.get(v)!));
      index = releaseIndex(Array.from(positions.sort()));
      if (this.prefixes.size >= PREFIX_MEMORY) this.prefixes.clear();
      this.prefixes.set(prefix, index);
    }
    return index;
  }

  /** A channel by name: the public one, else the internal one of that name. */
  channelNamed(name: string): ChannelEntry | undefined {
    return this.channelAt.get(`public/${name}`) ?? this.channelAt.get(`internal/${name}`);
  }

  /** The names of the channels of `kind`, or of every kind. */
  channelNames(kind?: ChannelKind): string[] {
    return [...this.channelAt.values()].filter((c) => !kind || c.kind === kind).map((c) => c.name);
  }

  channel(kind: ChannelKind, name: string): ChannelEntry | undefined {
    return this.channelAt.get(`${kind}/${name}`);
  }

  /** The releases a channel holds: those whose version, or version+arch, is a member. */
  releasesInChannel(entry: ChannelEntry): ReleaseIndex {
    let index = this.channelReleases.get(entry);
    if (!index) {
      const positions = new Set<number>();
      for (const m of entry.members) {
        for (const p of this.byVersion.get(m.version) ?? []) positions.add(p);
        const one = this.byVersionArch.get(m.version);
        if (one !== undefined) positions.add(one);
      }
      index = releaseIndex(Array.from(Int32Array.from(positions).sort()));
      this.channelReleases.set(entry, index);
    }
    return index;
  }

  /** A channel's document (its versions with the time each entered it), serialized once. */
  channelJson(entry: ChannelEntry): string {
    return this.once(entry, () => ({
      name: entry.name,
      kind: entry.kind,
      versions: entry.members.map((m) => ({ version: m.version, addedAt: m.addedAt })),
      ...(entry.channel.feeder && { feeder: entry.channel.feeder }),
      tombstones: entry.channel.tombstones,
    }));
  }

  /** The channels holding a release (by its version or version+arch), in the order of the store. */
  channelsOf(arch: string, version: string): Array<{ name: string; kind: ChannelKind; addedAt: string }> {
    const found = new Map<ChannelEntry, string>();
    // A channel naming the version itself and version+arch shows the time of the version itself.
    for (const name of [`${version}+${arch}`, version])
      for (const { entry, addedAt } of this.memberOf.get(name) ?? []) found.set(entry, addedAt);
    return [...found]
      .sort(([a], [b]) => a.ordinal - b.ordinal)
      .map(([entry, addedAt]) => ({ name: entry.name, kind: entry.kind, addedAt: new Date(addedAt).toISOString() }));
  }

  /** The blocked edges to a release (naming its version or version+arch), by id. */
  risksTo(arch: string, version: string): BlockedEdge[] {
    return [...(this.risksByTarget.get(version) ?? []), ...(this.risksByTarget.get(`${version}+${arch}`) ?? [])].sort(
      (a, b) => byText(a.id, b.id),
    );
  }

  riskJson(edge: BlockedEdge): string {
    return this.once(edge, () => edge);
  }

  signaturesOf(release: Release): SignatureDoc[] {
    return this.signatures.get(payloadDigest(release.payload)) ?? [];
  }

  /** Why the graph leaves a release out (--require-signatures), or undefined when it is served. */
  withheld(release: Release): string | undefined {
    return this.vouched && this.policy.withheld(release, this.vouched);
  }

  private once(item: object, doc: () => unknown): string {
    let json = this.serialized.get(item);
    if (json === undefined) {
      json = JSON.stringify(doc());
      this.serialized.set(item, json);
    }
    return json;
  }
}

const EMPTY_INDEX: ReleaseIndex = { positions: [], has: () => false };

function releaseIndex(positions: readonly number[]): ReleaseIndex {
  const set = new Set(positions);
  return { positions, has: (p) => set.has(p) };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Releases in release order, each distinct version parsed once. */
function sortReleases(releases: ReleaseRow[]): ReleaseRow[] {
  const rank = new Map(sortVersions(releases.map((r) => r.version)).map((v, i) => [v, i]));
  return [...releases].sort((a, b) => rank.get(a.version)! - rank.get(b.version)! || byText(a.arch, b.arch));
}
