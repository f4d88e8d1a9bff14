// What the served graph tells about a cluster on a channel, arch and version: whether its version is
// in its channel (else it is stranded: the cluster-version-operator reports VersionNotFound), and the
// recommended and conditional updates it is shown right now. Made per snapshot, one channel and arch
// at a time, from the very view clusters are served, so a risk written through the admin API moves
// every fleet number as soon as its graph is served.
import { channelView } from '../../graph/view.js';
import type { GraphSnapshot } from '../snapshot.js';

/** An update a cluster is shown with risks: the target and the names of the risks it crosses. */
export interface RiskyUpdate {
  version: string;
  risks: string[];
}

/** What a cluster at one version of a channel and arch is shown. */
export interface Standing {
  /** Why the cluster is stranded: no such channel, no release of its arch in it, its version not in it. */
  stranded: 'unknown-channel' | 'unknown-arch' | 'version-not-in-channel' | undefined;
  recommended: string[];
  conditional: RiskyUpdate[];
}

/** One channel and arch of a snapshot: its versions and each one's updates. */
interface ChannelIndex {
  known: 'yes' | 'unknown-channel' | 'unknown-arch';
  updates: Map<string, { recommended: string[]; conditional: RiskyUpdate[] }>;
}

const NO_VERSION: Standing = { stranded: undefined, recommended: [], conditional: [] };

export class FleetIndex {
  private readonly channels = new Map<string, ChannelIndex>();

  constructor(readonly snapshot: GraphSnapshot) {}

  /** The standing of a cluster; a cluster whose polls named no version is not counted stranded. */
  standing(channel: string, arch: string, version: string | null): Standing {
    const index = this.channel(channel, arch);
    if (index.known !== 'yes') return { stranded: index.known, recommended: [], conditional: [] };
    if (version === null) return NO_VERSION;
    const updates = index.updates.get(version);
    if (!updates) return { stranded: 'version-not-in-channel', recommended: [], conditional: [] };
    return { stranded: undefined, ...updates };
  }

  private channel(channel: string, arch: string): ChannelIndex {
    const key = `${channel} ${arch}`;
    let index = this.channels.get(key);
    if (!index) {
      index = indexOf(this.snapshot, channel, arch);
      this.channels.set(key, index);
    }
    return index;
  }
}

function indexOf(snapshot: GraphSnapshot, channel: string, arch: string): ChannelIndex {
  const updates: ChannelIndex['updates'] = new Map();
  if (!snapshot.channels.has(channel)) return { known: 'unknown-channel', updates };
  const doc = channelView(snapshot.graph, channel, arch);
  if (doc.nodes.length === 0) return { known: snapshot.arches.has(arch) ? 'yes' : 'unknown-arch', updates };
  for (const n of doc.nodes) updates.set(n.version, { recommended: [], conditional: [] });
  for (const [from, to] of doc.edges) updates.get(doc.nodes[from]!.version)!.recommended.push(doc.nodes[to]!.version);
  for (const group of doc.conditionalEdges) {
    const risks = group.risks.map((r) => r.name);
    for (const e of group.edges) {
      const conditional = updates.get(e.from)?.conditional;
      if (!conditional) continue;
      const existing = conditional.find((c) => c.version === e.to);
      if (existing) existing.risks.push(...risks.filter((r) => !existing.risks.includes(r)));
      else conditional.push({ version: e.to, risks: [...risks] });
    }
  }
  return { known: 'yes', updates };
}

/** One index per snapshot, made when first asked for. */
const indexes = new WeakMap<GraphSnapshot, FleetIndex>();
export function fleetIndexOf(snapshot: GraphSnapshot): FleetIndex {
  let index = indexes.get(snapshot);
  if (!index) indexes.set(snapshot, (index = new FleetIndex(snapshot)));
  return index;
}
