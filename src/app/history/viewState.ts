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
 * The channel part of the key of the releases of an arch (no channel name holds '*'): besides the views
 * of public channels, keyed `channel/arch`, this view lists every release of the arch in the graph,
 * channel or not, so that a release that enters a channel is told from one new to the graph.
 */
export const ALL_RELEASES = '*';

export const viewKey = (channel: string, arch: string): string => `${channel}/${arch}`;

/** Splits a key made by viewKey (a channel name holds no '/', an arch may not either). */
export function splitViewKey(key: string): { channel: string; arch: string } {
  const i = key.lastIndexOf('/');
  return { channel: key.slice(0, i), arch: key.slice(i + 1) };
}

/** Nodes viewStates goes through between two pauses. */
const NODES_PER_STEP = 500;

/**
 * The views of `graph` one channel at a time, so that only one channel's views are held at once: the
 * releases of each arch first (ALL_RELEASES), then each public channel's views, by arch. It yields
 * `undefined` after every NODES_PER_STEP nodes, a pause a caller on the serving thread lets requests
 * in at (a full-size graph takes seconds in all). Each edge is visited once per channel serving both
 * of its ends, as a single pass over the graph would.
 */
export function* viewStates(
  graph: FullGraph,
  channels: ReadonlySet<string>,
): Generator<[string, ViewState] | undefined, void> {
  const empty = (): ViewState => ({ releases: [], edges: {}, risks: {} });
  // Each node's served channels, and each channel's nodes, once.
  const served = graph.nodes.map((n) => n.channels.filter((c) => channels.has(c)));
  const servedSet = served.map((list) => new Set(list));
  const members = new Map<string, number[]>();
  const all = new Map<string, ViewState>();
  graph.nodes.forEach((n, i) => {
    let v = all.get(n.arch);
    if (!v) all.set(n.arch, (v = empty()));
    v.releases.push(n.version);
    for (const c of served[i]!) {
      let list = members.get(c);
      if (!list) members.set(c, (list = []));
      list.push(i);
    }
  });
  for (const [arch, v] of all) {
    v.releases.sort();
    yield [viewKey(ALL_RELEASES, arch), v];
  }
  let visited = 0;
  for (const [channel, nodes] of members) {
    const byArch = new Map<string, ViewState>();
    const viewOf = (arch: string): ViewState => {
      let v = byArch.get(arch);
      if (!v) byArch.set(arch, (v = empty()));
      return v;
    };
    /** An edge is in the channel's view when the channel serves both ends and they are of one arch. */
    const inView = (from: number, to: number): boolean =>
      graph.nodes[from]!.arch === graph.nodes[to]!.arch && servedSet[to]!.has(channel);
    for (const from of nodes) {
      if (++visited % NODES_PER_STEP === 0) yield;
      const f = graph.nodes[from]!;
      const view = viewOf(f.arch);
      view.releases.push(f.version);
      for (let e = graph.edgeOffsets[from]!; e < graph.edgeOffsets[from + 1]!; e++) {
        const to = graph.edgeTargets[e]!;
        if (inView(from, to)) view.edges[`${f.version} ${graph.nodes[to]!.version}`] = [];
      }
      for (let p = graph.conditionalOffsets[from]!; p < graph.conditionalOffsets[from + 1]!; p++) {
        const pair = graph.conditional[p]!;
        if (!inView(pair.from, pair.to)) continue;
        view.edges[`${f.version} ${graph.nodes[pair.to]!.version}`] = pair.risks.map((r) => r.name).sort();
        for (const r of pair.risks)
          view.risks[r.name] = { message: r.message, url: r.url, matchingRules: r.matchingRules };
      }
    }
    for (const [arch, v] of byArch) {
      v.releases.sort();
      yield [viewKey(channel, arch), v];
    }
  }
}

/** One view's state as stored: keys in a fixed order, so equal states are equal strings. */
export function serializeView(view: ViewState): string {
  return `{"releases":${JSON.stringify(view.releases)},"edges":${sortedJson(view.edges)},"risks":${sortedJson(view.risks)}}`;
}

const isArrayIndex = (key: string): boolean => /^(0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * `o` as JSON.stringify writes an object made with o's keys inserted sorted: the keys that are array indices
 * first, in ascending order (as JavaScript orders every object's), then the others sorted. Written directly:
 * making that object costs more than the JSON (a full-size graph's views hold tens of thousands of edges).
 */
function sortedJson(o: Record<string, unknown>): string {
  const keys = Object.keys(o);
  let indices = 0;
  while (indices < keys.length && isArrayIndex(keys[indices]!)) indices++;
  const ordered = [...keys.slice(0, indices), ...keys.slice(indices).sort()];
  // A key whose value JSON has no text for (undefined) is left out, as JSON.stringify leaves it out.
  const members = ordered.flatMap((k) => {
    const value = JSON.stringify(o[k]);
    return value === undefined ? [] : [`${JSON.stringify(k)}:${value}`];
  });
  return `{${members.join(',')}}`;
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
