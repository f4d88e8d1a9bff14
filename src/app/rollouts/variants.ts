// The views of a snapshot as phased rollouts cut them per cluster. A channel with rollouts is served in
// a few variants, one per set of rollouts whose edges a cluster is not offered yet: each made once,
// like a plain view, and picked per request by where the cluster's turn falls (graph/rollouts.ts). A
// halted rollout's edges are conditional on its risk in every variant; a cancelled one's are in none.
//
// k rollouts deciding per cluster make up to 2^k variants of a (channel, arch), whatever ids clients
// send. So at most PHASING_PER_CHANNEL of a channel's rollouts decide per cluster at once (the first to
// start); one beyond them offers its edges to every cluster at its window's end, as to a request without
// an id. Each (channel, arch) keeps the 2^PHASING_PER_CHANNEL variants that can be asked for at once.
import type { FullGraph, Risk } from '../../graph/model.js';
import { governs, HALTED_RISK, haltMessage, offers, type Rollout } from '../../graph/rollouts.js';
import { channelView, type EdgeCut } from '../../graph/view.js';
import { EncodedView } from '../encodedView.js';

/** Rollouts of one channel that decide per cluster at once. */
export const PHASING_PER_CHANNEL = 4;
/** Variants kept per (channel, arch), the oldest made dropped first: every one of the 2^4 askable at once. */
const VARIANTS_KEPT = 2 ** PHASING_PER_CHANNEL;

/** The rollouts of one channel, as they govern its views (graph/phasing.ts: governingRollouts chose them). */
interface ChannelRollouts {
  /** Active ones whose window had not ended when these variants were made; a key lists those withheld. */
  active: Rollout[];
  /** Halted: their edges carry their risk. */
  halted: Rollout[];
  /** Cancelled: their edges are served to no one. */
  cancelled: Rollout[];
}

export class RolloutVariants {
  private readonly byChannel = new Map<string, ChannelRollouts>();
  /** By channel and arch, then by the rollouts withheld. */
  private readonly variants = new Map<string, Map<string, EncodedView>>();

  /** `now`: an active rollout whose window ended before it offers its edges to every cluster, for good. */
  constructor(
    private readonly graph: FullGraph,
    rollouts: readonly Rollout[],
    now: number,
  ) {
    for (const r of rollouts) {
      if (r.state === 'active' && r.start + r.durationMs <= now) continue;
      let c = this.byChannel.get(r.channel);
      if (!c) this.byChannel.set(r.channel, (c = { active: [], halted: [], cancelled: [] }));
      (r.state === 'active' ? c.active : r.state === 'halted' ? c.halted : c.cancelled).push(r);
    }
  }

  /** How many variants are held. */
  get size(): number {
    let n = 0;
    for (const kept of this.variants.values()) n += kept.size;
    return n;
  }

  /**
   * The view `id` is served at `now`, or undefined when it is the plain one (`plain` is asked only for
   * its identity). `id` undefined: a request without one, offered a rollout's edges at its window's end.
   */
  viewFor(channel: string, arch: string, id: string | undefined, now: number): EncodedView | undefined {
    const c = this.byChannel.get(channel);
    if (!c) return undefined;
    const withheld: number[] = [];
    let deciding = 0;
    for (let i = 0; i < c.active.length; i++) {
      const r = c.active[i]!;
      const inWindow = now >= r.start && now < r.start + r.durationMs;
      // Past the rollouts that decide per cluster, one is as for a request without an id.
      const offered = inWindow && deciding++ >= PHASING_PER_CHANNEL ? offers(r, undefined, now) : offers(r, id, now);
      if (!offered) withheld.push(i);
    }
    if (withheld.length === 0 && c.halted.length === 0 && c.cancelled.length === 0) return undefined;
    const where = `${channel}\n${arch}`;
    let kept = this.variants.get(where);
    if (!kept) this.variants.set(where, (kept = new Map()));
    const key = withheld.join(',');
    let view = kept.get(key);
    if (!view) {
      // Every variant askable at once fits: the oldest made goes only as windows move on.
      view = this.render(channel, arch, c, withheld);
      if (kept.size >= VARIANTS_KEPT) kept.delete(kept.keys().next().value!);
      kept.set(key, view);
    }
    return view;
  }

  private render(channel: string, arch: string, c: ChannelRollouts, withheld: readonly number[]): EncodedView {
    const nodes = this.graph.nodes;
    const out = [...c.cancelled, ...withheld.map((i) => c.active[i]!)];
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
