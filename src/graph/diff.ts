// What a channel's served graph gains from one graph to the next, per architecture: the edges and
// the conditional edges (with the names of their risks) that the second has and the first has not.
import type { EdgeChange } from '../schemas/admin.js';
import type { FullGraph } from './model.js';
import { channelView } from './view.js';
import { splitArch } from './version.js';

export function edgesGained(
  before: FullGraph,
  after: FullGraph,
  channel: string,
): { edges: EdgeChange[]; conditionalEdges: EdgeChange[] } {
  const edges: EdgeChange[] = [];
  const conditionalEdges: EdgeChange[] = [];
  for (const arch of [...new Set(after.nodes.map((n) => n.arch))].sort()) {
    const [v0, v1] = [channelView(before, channel, arch), channelView(after, channel, arch)];
    const had = new Set(v0.edges.map(([a, b]) => `${v0.nodes[a]!.version}>${v0.nodes[b]!.version}`));
    for (const [a, b] of v1.edges) {
      const e = { arch, from: v1.nodes[a]!.version, to: v1.nodes[b]!.version };
      if (!had.has(`${e.from}>${e.to}`)) edges.push(e);
    }
    const hadConditional = new Set(v0.conditionalEdges.flatMap((c) => c.edges.map((e) => `${e.from}>${e.to}`)));
    for (const c of v1.conditionalEdges) {
      for (const e of c.edges)
        if (!hadConditional.has(`${e.from}>${e.to}`))
          conditionalEdges.push({ arch, ...e, risks: c.risks.map((r) => r.name) });
    }
  }
  return { edges, conditionalEdges };
}

/**
 * The graph with `version` (all its arches, or the one a `+arch` suffix names) added to `channel`.
 * Edges do not depend on channels, so this is the graph a build would give after the promotion.
 */
export function withVersionIn(graph: FullGraph, channel: string, version: string): FullGraph {
  const ref = splitArch(version);
  const joins = (n: FullGraph['nodes'][number]): boolean =>
    n.version === ref.version && (ref.arch === undefined || n.arch === ref.arch) && !n.channels.includes(channel);
  return { ...graph, nodes: graph.nodes.map((n) => (joins(n) ? { ...n, channels: [...n.channels, channel] } : n)) };
}
