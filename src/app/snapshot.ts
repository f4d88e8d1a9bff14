// The served graph: an immutable snapshot of one build, replaced by a single reference swap. Each
// (channel, arch) view is filtered, serialized and compressed once per snapshot, then served as bytes.
import type { FullGraph, GraphInput, Membership } from '../graph/model.js';
import { channelView } from '../graph/view.js';
import { catalogOf, type Catalog } from '../graph/catalog.js';
import { EncodedView } from './encodedView.js';
import type { Rollout } from '../graph/rollouts.js';
import type { BuildParts } from './build/readAndBuild.js';
import { RolloutVariants } from './rollouts/variants.js';

export class GraphSnapshot {
  /**
   * The one cache of (channel, arch) views, by channel then arch, so a lookup builds no key string
   * (the graph fast path asks for every request). Only known channels and arches are kept.
   */
  private readonly views = new Map<string, Map<string, EncodedView>>();
  private readonly empty = new EncodedView(
    JSON.stringify({ version: 1, nodes: [], edges: [], conditionalEdges: [] }),
    0,
  );
  readonly channels: ReadonlySet<string>;
  readonly arches: ReadonlySet<string>;
  /** The id of the newest audit entry the build read saw: graph history takes the entries between two snapshots. */
  auditMark = 0;
  /** The store's generation the build read saw (PostgreSQL; 0 on SQLite). */
  storeMark = 0;
  /** The phased rollouts the build read saw (graph/rollouts.ts). */
  rollouts: readonly Rollout[] = [];
  /** When a timed version of graph-data 2.x enters its channel next (ms), if one is to come. */
  nextStart: number | undefined;
  private variantsCache: RolloutVariants | undefined;

  constructor(
    readonly graph: FullGraph,
    readonly builtAt: Date,
    channels: Iterable<string>,
    readonly buildSeconds: number,
    /** The input the graph was built from (signature policy applied): explain reads why an edge is or is not there. */
    readonly input: GraphInput = { releases: [], channels: [], blockedEdges: [], rawMetadata: {} },
    readonly membership: Membership = new Map(),
    /** How many stored releases the signature policy left out of the graph. */
    readonly withheld = 0,
  ) {
    this.channels = new Set(channels);
    this.arches = new Set(graph.nodes.map((n) => n.arch));
  }

  /**
   * `reuse`: the snapshot this one was derived from and the channels whose views changed; the views
   * it already made of every other channel are served as they are.
   */
  static fromParts(
    parts: BuildParts,
    builtAt: Date,
    reuse?: { from: GraphSnapshot; changed: ReadonlySet<string> },
  ): GraphSnapshot {
    const { graph, input, membership, buildSeconds, withheld } = parts;
    const publicChannels = input.channels.filter((c) => !c.internal).map((c) => c.name);
    const snapshot = new GraphSnapshot(graph, builtAt, publicChannels, buildSeconds, input, membership, withheld);
    snapshot.auditMark = parts.auditMark ?? 0;
    snapshot.storeMark = parts.storeMark ?? 0;
    snapshot.rollouts = parts.rollouts ?? [];
    snapshot.nextStart = parts.nextStart;
    if (reuse)
      for (const [channel, byArch] of reuse.from.views) {
        if (reuse.changed.has(channel) || !snapshot.channels.has(channel)) continue;
        const kept = [...byArch].filter(([arch]) => snapshot.arches.has(arch));
        if (kept.length > 0) snapshot.views.set(channel, new Map(kept));
      }
    return snapshot;
  }

  private catalogCache: Catalog | undefined;
  private releaseVersions: ReadonlySet<string> | undefined;

  /** Whether `version` is a release of the graph (of any arch and channel). */
  hasRelease(version: string): boolean {
    this.releaseVersions ??= new Set(this.graph.nodes.map((n) => n.version));
    return this.releaseVersions.has(version);
  }

  /** The arches and each public channel's release counts, computed once per snapshot. */
  get catalog(): Catalog {
    return (this.catalogCache ??= catalogOf(this.graph, this.channels));
  }

  /**
   * Makes ready, off the serving thread as far as it goes, the views `previous` served most (up to
   * `limit`) in the encodings they were asked in, so swapping this snapshot in leaves no request to
   * render and compress them. The views are filtered and serialized here; zlib runs on the pool.
   */
  async prepareFrom(previous: GraphSnapshot, limit = 16): Promise<void> {
    const busiest = [...previous.views]
      .flatMap(([channel, byArch]) => [...byArch].map(([arch, view]) => ({ channel, arch, view })))
      .filter(({ channel, arch, view }) => view.hits > 0 && !this.views.get(channel)?.has(arch))
      .sort((a, b) => b.view.hits - a.view.hits)
      .slice(0, limit);
    await Promise.all(busiest.map(({ channel, arch, view }) => this.view(channel, arch).prepare(view.encodings())));
  }

  /**
   * The view the cluster `id` is served at `now`: the plain view, or on a channel with phased rollouts
   * the variant without the edges not yet offered to it. `id` undefined: a request without one.
   */
  viewFor(channel: string, arch: string, id: string | undefined, now: number): EncodedView {
    if (this.rollouts.length === 0 || !this.channels.has(channel) || !this.arches.has(arch))
      return this.view(channel, arch);
    this.variantsCache ??= new RolloutVariants(this.graph, this.rollouts, now);
    return this.variantsCache.viewFor(channel, arch, id, now) ?? this.view(channel, arch);
  }

  /** The views held for phased rollouts, besides the plain ones (a metric: bounded however many ids ask). */
  get rolloutVariants(): number {
    return this.variantsCache?.size ?? 0;
  }

  /** Unknown channels and arches share one empty view, so odd requests cannot grow the cache. */
  view(channel: string, arch: string): EncodedView {
    let byArch = this.views.get(channel);
    const cached = byArch?.get(arch);
    if (cached) return cached;
    if (!this.channels.has(channel) || !this.arches.has(arch)) return this.empty;
    const doc = channelView(this.graph, channel, arch);
    const view = new EncodedView(JSON.stringify(doc), doc.nodes.length);
    if (!byArch) this.views.set(channel, (byArch = new Map()));
    byArch.set(arch, view);
    return view;
  }
}
