// The typed values the pure graph core works on: what goes into a build and what comes out.
import type { Feeder, MatchingRule, PhasedRolloutRule, Risk } from '../schemas/graphData.js';

export type { Risk, MatchingRule, PhasedRolloutRule };

/** A channel's phased rollouts, as graph-data 2.x declares them (graph/phasing.ts reads them). */
export interface ChannelPhasing {
  rules: PhasedRolloutRule[];
  /** Version entry as written → when its rollout starts (RFC 3339); the release is in the channel from then. */
  starts: Record<string, string>;
}

/** One release of one architecture, as a release record describes it. */
export interface Release {
  version: string; // semver without build metadata
  arch: string;
  payload: string;
  previous: string[];
  next: string[];
  metadata: Record<string, string>;
}

/** The digest (`sha256:<hex>`) of a pull spec by digest. */
export const payloadDigest = (payload: string): string => payload.slice(payload.indexOf('@') + 1);

export interface Channel {
  name: string;
  /** Internal channels (the promotion ladder) are never served and never appear in node metadata. */
  internal: boolean;
  versions: string[]; // as written, a `+arch` suffix restricts an entry to that architecture
  feeder?: Feeder;
  tombstones: string[];
  /** Graph-data 2.x only. */
  phasing?: ChannelPhasing;
}

/** A blocked-edges file: a conditional risk when `risk` is set, a hard block otherwise. */
export interface BlockedEdge {
  id: string; // the file name without `.yaml`; also the order in which files apply
  to: string;
  from: string;
  risk?: Risk;
  fixedIn?: string;
  autoExtend?: unknown;
}

export interface GraphInput {
  releases: Release[];
  channels: Channel[];
  blockedEdges: BlockedEdge[];
  rawMetadata: Record<string, Record<string, string>>;
}

/** When each version entered each channel, keyed `public/<name>` or `internal/<name>` (the store records it). */
export type Membership = ReadonlyMap<string, ReadonlyMap<string, Date>>;

export interface GraphNode {
  version: string; // without `+arch`
  arch: string;
  payload: string;
  /** Served metadata (computed keys included), keys sorted. `undefined` only for raw nodes without a metadata member. */
  metadata: Record<string, string> | undefined;
  /** Public channels listing this release, in served order. */
  channels: string[];
}

export interface ConditionalPair {
  from: number;
  to: number;
  risks: Risk[]; // in the order the reference reads their files (referenceReadOrder.ts), names unique
  /** Identifies the risk set by content: pairs with equal keys are grouped in one served entry. */
  riskKey: string;
}

/** The whole graph over every architecture: nodes sorted by semver (then arch), edges and pairs sorted. */
export interface FullGraph {
  nodes: GraphNode[];
  /** Unconditional edges in compressed rows: node i leads to edgeTargets[edgeOffsets[i] .. edgeOffsets[i+1]), ascending. */
  edgeTargets: Int32Array;
  edgeOffsets: Int32Array;
  conditional: ConditionalPair[];
  /** Likewise for conditional pairs. */
  conditionalOffsets: Int32Array;
  warnings: string[];
}

export const LABEL = {
  channels: 'io.openshift.upgrades.graph.release.channels',
  manifestref: 'io.openshift.upgrades.graph.release.manifestref',
  arch: 'io.openshift.upgrades.graph.release.arch',
  remove: 'io.openshift.upgrades.graph.release.remove',
  previousAdd: 'io.openshift.upgrades.graph.previous.add',
  previousRemove: 'io.openshift.upgrades.graph.previous.remove',
  previousRemoveRegex: 'io.openshift.upgrades.graph.previous.remove_regex',
  nextAdd: 'io.openshift.upgrades.graph.next.add',
  nextRemove: 'io.openshift.upgrades.graph.next.remove',
  architecture: 'release.openshift.io/architecture',
  /** The release's errata, as release records carry it. */
  url: 'url',
} as const;

/** Labels that hold comma lists whose items never repeat when metadata is merged. */
export const COMMA_LIST_LABELS: ReadonlySet<string> = new Set([
  LABEL.previousAdd,
  LABEL.nextAdd,
  LABEL.previousRemove,
  LABEL.nextRemove,
]);

/** Metadata used by the build and never served. */
export const INTERNAL_LABELS: ReadonlySet<string> = new Set([LABEL.arch]);
