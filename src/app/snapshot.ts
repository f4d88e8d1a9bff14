// The served graph: an immutable snapshot of one build, replaced by a single reference swap. Each
// (channel, arch) view is filtered, serialized and compressed once per snapshot, then served as bytes.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { buildGraph } from '../graph/build.js';
import type { FullGraph, GraphInput } from '../graph/model.js';
import { channelView } from '../graph/view.js';
import type { Membership } from '../graph/explain.js';
import { catalogOf, type Catalog } from '../graph/catalog.js';

export type { Membership };

export type Encoding = 'identity' | 'gzip' | 'br';

export class GraphView {
  readonly identity: Buffer;
  /** A hash of the identity bytes; representations add their own suffix. */
  readonly hash: string;
  readonly nodes: number;
  private readonly encoded = new Map<Encoding, Buffer>();

  constructor(body: string, nodes: number) {
    this.identity = Buffer.from(body);
    this.hash = createHash('sha256').update(this.identity).digest('base64url').slice(0, 22);
    this.nodes = nodes;
    this.encoded.set('identity', this.identity);
  }

  bytes(encoding: Encoding): Buffer {
    let b = this.encoded.get(encoding);
    if (!b) {
      // Brotli at quality 5: near-11 size for a JSON graph at a fraction of the time.
      b =
        encoding === 'gzip'
          ? gzipSync(this.identity, { level: 6 })
          : brotliCompressSync(this.identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } });
      this.encoded.set(encoding, b);
    }
    return b;
  }
}

export class GraphSnapshot {
  private readonly views = new Map<string, GraphView>();
  private readonly empty = new GraphView(JSON.stringify({ version: 1, nodes: [], edges: [], conditionalEdges: [] }), 0);
  readonly channels: ReadonlySet<string>;
  readonly arches: ReadonlySet<string>;

  constructor(
    readonly graph: FullGraph,
    readonly builtAt: Date,
    channels: Iterable<string>,
    readonly buildSeconds: number,
    /** The input the graph was built from (signature policy applied): explain reads why an edge is or is not there. */
    readonly input: GraphInput = { releases: [], channels: [], blockedEdges: [], rawMetadata: {} },
    readonly membership: Membership = new Map(),
  ) {
    this.channels = new Set(channels);
    this.arches = new Set(graph.nodes.map((n) => n.arch));
  }

  static build(input: GraphInput, builtAt: Date, membership?: Membership): GraphSnapshot {
    const started = process.hrtime.bigint();
    const graph = buildGraph(input);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return new GraphSnapshot(
      graph,
      builtAt,
      input.channels.filter((c) => !c.internal).map((c) => c.name),
      seconds,
      input,
      membership,
    );
  }

  private catalogCache: Catalog | undefined;

  /** The arches and each public channel's release counts, computed once per snapshot. */
  get catalog(): Catalog {
    return (this.catalogCache ??= catalogOf(this.graph, this.channels));
  }

  /** Unknown channels and arches share one empty view, so odd requests cannot grow the cache. */
  view(channel: string, arch: string): GraphView {
    if (!this.channels.has(channel) || !this.arches.has(arch)) return this.empty;
    const key = `${channel}\u0000${arch}`;
    let view = this.views.get(key);
    if (!view) {
      const doc = channelView(this.graph, channel, arch);
      view = new GraphView(JSON.stringify(doc), doc.nodes.length);
      this.views.set(key, view);
    }
    return view;
  }
}
