// The views of a snapshot as phased rollouts cut them per cluster. A channel with rollouts is served in
// a few variants, one per set of rollouts whose edges a cluster is not offered yet: each made once,
// like a plain view, and picked per request by where the cluster's turn falls (graph/rollouts.ts). A
// halted rollout's edges are conditional on its risk in every variant; a cancelled one's are in none.
import type { FullGraph, Risk } from '../../graph/model.js';
import { governs, HALTED_RISK, haltMessage, offers, type Rollout } from '../../graph/rollouts.js';
import { channelView, type EdgeCut } from '../../graph/view.js';
import { EncodedView } from '../encodedView.js';

/** Variants kept per snapshot, the least recently asked for dropped first. */
const VARIANTS_KEPT = 64;

/** The rollouts of one channel that matter to its views: the newest of each target. */
interface ChannelRollouts {
  /** Active ones, by bit in a variant's key: bit i set withholds rollouts[i]'s edges. */
  active: Rollout[];
  /** Halted: their edges carry their risk. */
  halted: Rollout[];
  /** Cancelled: their edges are served to no one. */
  cancelled: Rollout[];
}

export class RolloutVariants {
  private readonly byChannel = new Map<string, ChannelRollouts>();
  private readonly variants = new Map<string, EncodedView>();

  constructor(
    private readonly graph: FullGraph,
    rollouts: readonly Rollout[],
  ) {
    // The newest rollout of a channel and target governs its edges; older ones are history.
    const newest = new Map<string, Rollout>();
    for (const r of rollouts) {
      const key = `${r.channel}\n${r.to}`;
      const seen = newest.get(key);
      if (!seen || seen.createdAt < r.createdAt || (seen.createdAt === r.createdAt && seen.id < r.id))
        newest.set(key, r);
    }
    for (const r of [...newest.values()].sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1))) {
      let c = this.byChannel.get(r.channel);
      if (!c) this.byChannel.set(r.channel, (c = { active: [], halted: [], cancelled: [] }));
      (r.state === 'active' ? c.active : r.state === 'halted' ? c.halted : c.cancelled).push(r);
    }
  }

  /** Whether any rollout changes the views of `channel`. */
  has(channel: string): boolean {
    return this.byChannel.has(channel);
  }

  /**
   * The view `id` is served at `now`, or undefined when it is the plain one (`plain` is asked only for
   * its identity). `id` undefined: a request without one, offered a rollout's edges at its window's end.
   */
  viewFor(channel: string, arch: string, id: string | undefined, now: number): EncodedView | undefined {
    const c = this.byChannel.get(channel);
    if (!c) return undefined;
    let withheld = 0;
    for (let i = 0; i < c.active.length; i++) if (!offers(c.active[i]!, id, now)) withheld |= 1 << i;
    if (withheld === 0 && c.halted.length === 0 && c.cancelled.length === 0) return undefined;
    const key = `${channel}\n${arch}\n${withheld}`;
    let view = this.variants.get(key);
    if (view) {
      // Kept as the most recently asked for.
      this.variants.delete(key);
    } else {
      view = this.render(channel, arch, c, withheld);
      if (this.variants.size >= VARIANTS_KEPT) this.variants.delete(this.variants.keys().next().value!);
    }
    this.variants.set(key, view);
    return view;
  }

  private render(channel: string, arch: string, c: ChannelRollouts, withheld: number): EncodedView {
    const nodes = this.graph.nodes;
    const out = [...c.cancelled, ...c.active.filter((_, i) => withheld & (1 << i))];
    const halted = c.halted.map((r) => ({ r, extra: { key: `rollout:${r.id}`, risk: haltedRisk(r) } }));
    const cut: EdgeCut = {
      withheld: (from, to) => out.some((r) => governs(r, nodes[from]!.version, nodes[to]!.version)),
      extraRisk: (from, to) => halted.find(({ r }) => governs(r, nodes[from]!.version, nodes[to]!.version))?.extra,
    };
    const doc = channelView(this.graph, channel, arch, cut);
    return new EncodedView(JSON.stringify(doc), doc.nodes.length);
  }
}

/** The risk a halted rollout's edges are served with: always applies, so no cluster takes them unasked. */
export function haltedRisk(r: Rollout): Risk {
  return { url: r.url, name: HALTED_RISK, message: haltMessage(r), matchingRules: [{ type: 'Always' }] };
}
