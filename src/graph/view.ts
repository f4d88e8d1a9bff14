// The graph one client sees: the full graph filtered to one channel and one architecture, in the
// Cincinnati wire format clusters read (openshift/cincinnati, docs/design/cincinnati.md): the keys
// version, nodes, edges and conditionalEdges, in that order.
import type { FullGraph, Risk } from './model.js';
import { INTERNAL_LABELS, LABEL } from './model.js';

export interface WireNode {
  version: string;
  payload: string;
  metadata: Record<string, string>;
}
export interface ConditionalEdges {
  edges: Array<{ from: string; to: string }>;
  risks: Risk[];
}
export interface GraphDocument {
  version: 1;
  nodes: WireNode[];
  edges: Array<[number, number]>;
  conditionalEdges: ConditionalEdges[];
}

/**
 * What phased rollouts change in a view (app/rollouts/variants.ts decides it per cluster): edges left
 * out, and edges served conditional on one more risk. Node indices are the full graph's.
 */
export interface EdgeCut {
  withheld(from: number, to: number): boolean;
  /** The extra risk of an edge, with a key naming it among the view's risk sets; undefined: none. */
  extraRisk(from: number, to: number): { key: string; risk: Risk } | undefined;
}

export function channelView(graph: FullGraph, channel: string, arch: string, cut?: EdgeCut): GraphDocument {
  const kept = new Map<number, number>();
  const nodes: WireNode[] = [];
  graph.nodes.forEach((n, i) => {
    if (n.arch !== arch || !n.channels.includes(channel)) return;
    kept.set(i, nodes.length);
    nodes.push({ version: n.version, payload: n.payload, metadata: servedMetadata(n.metadata) });
  });

  // Only the kept nodes' own edges are visited; sources ascend, so the output stays sorted.
  const edges: Array<[number, number]> = [];
  const groups = new Map<string, ConditionalEdges>();
  const addConditional = (key: string, risks: Risk[], from: number, to: number): void => {
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { edges: [], risks }));
    group.edges.push({ from: graph.nodes[from]!.version, to: graph.nodes[to]!.version });
  };
  for (const [from, f] of kept) {
    for (let e = graph.edgeOffsets[from]!; e < graph.edgeOffsets[from + 1]!; e++) {
      const to = graph.edgeTargets[e]!;
      const t = kept.get(to);
      if (t === undefined) continue;
      const extra = cut && (cut.withheld(from, to) ? null : cut.extraRisk(from, to));
      if (extra === null) continue;
      if (extra) addConditional(`+${extra.key}`, [extra.risk], from, to);
      else edges.push([f, t]);
    }
    // Pairs are sorted, so entries come out ordered by their first pair.
    for (let c = graph.conditionalOffsets[from]!; c < graph.conditionalOffsets[from + 1]!; c++) {
      const pair = graph.conditional[c]!;
      if (!kept.has(pair.to)) continue;
      const extra = cut && (cut.withheld(from, pair.to) ? null : cut.extraRisk(from, pair.to));
      if (extra === null) continue;
      if (extra) addConditional(`${pair.riskKey}+${extra.key}`, [...pair.risks, extra.risk], from, pair.to);
      else addConditional(pair.riskKey, pair.risks, from, pair.to);
    }
  }
  return { version: 1, nodes, edges, conditionalEdges: [...groups.values()] };
}

function servedMetadata(md: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!md) return out;
  for (const [k, v] of Object.entries(md)) {
    if (INTERNAL_LABELS.has(k)) continue;
    // A cluster fails the whole fetch on any architecture value other than `multi`.
    if (k === LABEL.architecture && v !== 'multi') continue;
    out[k] = v;
  }
  return out;
}
