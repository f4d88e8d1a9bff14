// A compact state of each (channel, arch) view of a served snapshot: the releases it lists, its
// edges (each with the names of the risks it is conditional on, none for an unconditional edge) and
// the risks it declares. Graph history compares two such states (viewDiff.ts); the last recorded one
// is stored, so the comparison survives restarts and is shared by replicas.
import { createHash } from 'node:crypto';
import type { FullGraph, MatchingRule } from '../../graph/model.js';

export interface RiskState {
  message: string;
  url: string;
  matchingRules: MatchingRule[];
}

export interface ViewState {
  /** Versions listed, sorted. */
  releases: string[];
  /** `from to` → the names of the risks the edge is conditional on (sorted; empty: unconditional). */
  edges: Record<string, string[]>;
  /** Risk name → what the view serves of it. */
  risks: Record<string, RiskState>;
}

/**
 * Every view of a graph, keyed `channel/arch`; only public channels (`channels`) are kept. Besides
 * them, the key of ALL_RELEASES and an arch lists every release of the arch in the graph, channel or not: a
 * release that enters a channel is told from one new to the graph by it.
 */
export type GraphState = Map<string, ViewState>;

/** The channel part of the key of the releases of an arch (no channel name holds '*'). */
export const ALL_RELEASES = '*';

export const viewKey = (channel: string, arch: string): string => `${channel}/${arch}`;

/** Splits a key made by viewKey (a channel name holds no '/', an arch may not either). */
export function splitViewKey(key: string): { channel: string; arch: string } {
  const i = key.lastIndexOf('/');
  return { channel: key.slice(0, i), arch: key.slice(i + 1) };
}

/** The state of every (public channel, arch) view of `graph`, in one pass over its nodes and edges. */
export function graphState(graph: FullGraph, channels: ReadonlySet<string>): GraphState {
  const state: GraphState = new Map();
  // By channel then arch, so the edge loops below build no key string to find a view.
  const byChannel = new Map<string, Map<string, ViewState>>();
  const viewOf = (channel: string, arch: string): ViewState => {
    let byArch = byChannel.get(channel);
    if (!byArch) byChannel.set(channel, (byArch = new Map()));
    let v = byArch.get(arch);
    if (!v) {
      byArch.set(arch, (v = { releases: [], edges: {}, risks: {} }));
      state.set(viewKey(channel, arch), v);
    }
    return v;
  };
  // Each node's served channels, once: the edge loops below ask for them again and again.
  const served = graph.nodes.map((n) => n.channels.filter((c) => channels.has(c)));
  const servedSet = served.map((list) => new Set(list));
  graph.nodes.forEach((n, i) => {
    viewOf(ALL_RELEASES, n.arch).releases.push(n.version);
    for (const c of served[i]!) viewOf(c, n.arch).releases.push(n.version);
  });
  /** The views an edge is in: the channels serving both of its ends, when they are of one arch. */
  const both = (from: number, to: number): string[] => {
    if (graph.nodes[from]!.arch !== graph.nodes[to]!.arch) return [];
    const target = servedSet[to]!;
    return served[from]!.filter((c) => target.has(c));
  };
  for (let from = 0; from < graph.nodes.length; from++) {
    const f = graph.nodes[from]!;
    if (served[from]!.length === 0) continue;
    for (let e = graph.edgeOffsets[from]!; e < graph.edgeOffsets[from + 1]!; e++) {
      const to = graph.edgeTargets[e]!;
      const shared = both(from, to);
      if (shared.length === 0) continue;
      const key = `${f.version} ${graph.nodes[to]!.version}`;
      for (const c of shared) viewOf(c, f.arch).edges[key] = [];
    }
    for (let p = graph.conditionalOffsets[from]!; p < graph.conditionalOffsets[from + 1]!; p++) {
      const pair = graph.conditional[p]!;
      const shared = both(pair.from, pair.to);
      if (shared.length === 0) continue;
      const key = `${f.version} ${graph.nodes[pair.to]!.version}`;
      const names = pair.risks.map((r) => r.name).sort();
      for (const c of shared) {
        const view = viewOf(c, f.arch);
        view.edges[key] = names;
        for (const r of pair.risks)
          view.risks[r.name] = { message: r.message, url: r.url, matchingRules: r.matchingRules };
      }
    }
  }
  for (const v of state.values()) v.releases.sort();
  return state;
}

/** One view's state as stored: keys in a fixed order, so equal states are equal strings. */
export function serializeView(view: ViewState): string {
  const sorted = <T>(o: Record<string, T>): Record<string, T> =>
    Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]!]),
    );
  return JSON.stringify({ releases: view.releases, edges: sorted(view.edges), risks: sorted(view.risks) });
}

/** The hash of one view's serialized state. */
export function viewHash(serialized: string): string {
  return createHash('sha256').update(serialized).digest('base64url');
}

/** A hash of the whole state from its views' hashes (by key): equal states, equal hashes. */
export function stateHash(viewHashes: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const key of [...viewHashes.keys()].sort()) hash.update(`${key}\n${viewHashes.get(key)}\n`);
  return hash.digest('base64url');
}
