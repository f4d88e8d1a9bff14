// Update-path planning over the built graph: the versions of one architecture as a graphology
// directed graph whose edges are the recommended and conditional edges that exist in at least one
// public channel (or in the one channel asked for). Shortest paths come from graphology-shortest-path
// (BFS and Dijkstra) and alternatives from graphology-simple-path; ranking is by risks not accepted,
// then hops, then prerelease stops, then channel switches. EUS mode keeps intermediate stops on even
// minors where it can.
import { didYouMean } from './closestName.js';
import { DirectedGraph } from 'graphology';
import { bidirectional as weightedPath } from 'graphology-shortest-path/dijkstra.js';
import { bidirectional as hopPath, singleSourceLength } from 'graphology-shortest-path/unweighted.js';
import { allSimplePaths } from 'graphology-simple-path';
import semver from 'semver';
import type { FullGraph, Risk } from './model.js';

export type PathMode = 'fewest-hops' | 'eus';

export interface PathQuery {
  from: string;
  to: string;
  arch: string;
  channel?: string;
  acceptRisks?: string[];
  mode?: PathMode;
  limit?: number;
}

export interface Hop {
  from: string;
  to: string;
  /** The channels in which this edge exists (served order). */
  channels: string[];
  recommended: boolean;
  risks: Risk[];
  /** The channel the plan puts the cluster on for this hop. */
  channel: string;
}

export interface PlannedPath {
  hops: Hop[];
  /** The risks of the hops not accepted, each once, in the order the hops list them. */
  risksNotAccepted: string[];
  channelSwitches: number;
}

export type NoPathCode =
  | 'same-version'
  | 'source-not-a-release'
  | 'target-not-a-release'
  | 'source-not-in-channel'
  | 'target-not-in-channel'
  | 'unknown-channel'
  | 'no-path';

export interface PathAnswer {
  from: string;
  to: string;
  arch: string;
  mode: PathMode;
  paths: PlannedPath[];
  notes: string[];
  reason?: { code: NoPathCode; message: string };
}

export const DEFAULT_PATH_LIMIT = 3;
export const MAX_PATH_LIMIT = 10;

interface EdgeAttributes {
  /** The edge's target, for the weight functions (graphology passes them the edge and its attributes). */
  to: string;
  channels: string[];
  recommended: boolean;
  risks: Risk[];
}
type ArchGraph = DirectedGraph<Record<string, never>, EdgeAttributes>;

interface Planner {
  graph: ArchGraph;
  reverse: ArchGraph;
  /** Every release of the arch, in or out of a channel. */
  releases: Set<string>;
}

/** Planners per built graph, arch and channel: a snapshot never changes, so neither do they. */
const planners = new WeakMap<FullGraph, Map<string, Planner>>();

/** Above this many versions on near-shortest paths, alternatives come from Dijkstra deviations only. */
const SIMPLE_PATH_NODES = 24;
const SIMPLE_PATH_RESULTS = 200;
const RISK_WEIGHT = 1_000;
const ODD_STOP_WEIGHT = 1_000_000;
/** Far less than a hop over any path: it only orders paths of as many hops. */
const PRERELEASE_STOP_WEIGHT = 0.001;
const BLOCKED_WEIGHT = 1_000_000_000;

/** The (arch, channel) scopes a graph has, keyed as planners are: only these are cached, so odd queries cannot grow it. */
const scopes = new WeakMap<FullGraph, { keys: Set<string>; channels: Set<string> }>();
const scopeKey = (arch: string, channel?: string): string => `${arch}\u0000${channel ?? ''}`;

/** The (arch, channel) scopes of a graph, and the names of its channels (those with a release of any arch). */
function scopesOf(full: FullGraph): { keys: Set<string>; channels: Set<string> } {
  let known = scopes.get(full);
  if (!known) {
    known = { keys: new Set(), channels: new Set() };
    for (const n of full.nodes) {
      known.keys.add(scopeKey(n.arch));
      for (const c of n.channels) {
        known.keys.add(scopeKey(n.arch, c));
        known.channels.add(c);
      }
    }
    scopes.set(full, known);
  }
  return known;
}

export function planner(full: FullGraph, arch: string, channel?: string): Planner {
  const known = scopesOf(full).keys;
  const key = scopeKey(arch, channel);
  if (!known.has(key)) return buildPlanner(full, arch, channel); // empty graph: nothing worth keeping
  let byKey = planners.get(full);
  if (!byKey) planners.set(full, (byKey = new Map()));
  let p = byKey.get(key);
  if (!p) byKey.set(key, (p = buildPlanner(full, arch, channel)));
  return p;
}

function buildPlanner(full: FullGraph, arch: string, channel: string | undefined): Planner {
  const graph: ArchGraph = new DirectedGraph({ allowSelfLoops: false });
  const reverse: ArchGraph = new DirectedGraph({ allowSelfLoops: false });
  const releases = new Set<string>();
  const inScope = (channels: string[]): string[] =>
    channel === undefined ? channels : channels.filter((c) => c === channel);
  full.nodes.forEach((n) => {
    if (n.arch !== arch) return;
    releases.add(n.version);
    if (inScope(n.channels).length === 0) return;
    graph.addNode(n.version);
    reverse.addNode(n.version);
  });
  const add = (from: number, to: number, recommended: boolean, risks: Risk[]): void => {
    const f = full.nodes[from]!;
    const t = full.nodes[to]!;
    if (f.arch !== arch || t.arch !== arch) return;
    const channels = inScope(f.channels).filter((c) => t.channels.includes(c));
    if (channels.length === 0) return;
    graph.addDirectedEdge(f.version, t.version, { to: t.version, channels, recommended, risks });
    reverse.addDirectedEdge(t.version, f.version, { to: f.version, channels, recommended, risks });
  };
  for (let f = 0; f < full.nodes.length; f++) {
    for (let e = full.edgeOffsets[f]!; e < full.edgeOffsets[f + 1]!; e++) add(f, full.edgeTargets[e]!, true, []);
  }
  for (const pair of full.conditional) add(pair.from, pair.to, false, pair.risks);
  return { graph, reverse, releases };
}

const minorOf = (version: string): number => semver.minor(version);
const minorName = (version: string): string => `${semver.major(version)}.${semver.minor(version)}`;

export function planPaths(full: FullGraph, q: PathQuery): PathAnswer {
  const mode = q.mode ?? 'fewest-hops';
  const limit = Math.min(Math.max(q.limit ?? DEFAULT_PATH_LIMIT, 1), MAX_PATH_LIMIT);
  const accepted = new Set(q.acceptRisks ?? []);
  const answer: PathAnswer = { from: q.from, to: q.to, arch: q.arch, mode, paths: [], notes: [] };
  const outside = (v: string): string =>
    q.channel === undefined ? `${v} is in no channel of ${q.arch}` : `${v} is not in channel ${q.channel} (${q.arch})`;
  const fail = (code: NoPathCode, message: string): PathAnswer => ({ ...answer, reason: { code, message } });
  const p = planner(full, q.arch, q.channel);

  const channels = scopesOf(full).channels;
  if (q.channel !== undefined && !channels.has(q.channel))
    return fail('unknown-channel', `no release is in a channel named ${q.channel}${didYouMean(q.channel, channels)}`);
  if (!p.releases.has(q.from)) return fail('source-not-a-release', `${q.from} is not a release of ${q.arch}`);
  if (!p.releases.has(q.to)) return fail('target-not-a-release', `${q.to} is not a release of ${q.arch}`);
  if (!p.graph.hasNode(q.from)) return fail('source-not-in-channel', outside(q.from));
  if (!p.graph.hasNode(q.to)) return fail('target-not-in-channel', outside(q.to));
  if (q.from === q.to) return fail('same-version', `${q.from} is already the target version`);

  const eus = mode === 'eus';
  if (eus) {
    answer.notes.push(
      'EUS-to-EUS: pause the worker machine config pools before the first hop and unpause them after the last, so workers reboot once',
    );
    for (const v of [q.from, q.to])
      if (minorOf(v) % 2 !== 0) answer.notes.push(`${v} is on an odd minor: EUS releases are even minors`);
  }
  const isOddStop = (node: string): boolean => node !== q.to && node !== q.from && minorOf(node) % 2 !== 0;
  const unaccepted = (a: EdgeAttributes): number => a.risks.filter((r) => !accepted.has(r.name)).length;
  // A prerelease (ec, rc) is a stop of last resort: among paths of as many hops, one without it wins.
  // Versions carry no build metadata, so a version has a prerelease exactly when it has a '-'.
  const isPrereleaseStop = (node: string): boolean => node !== q.to && node !== q.from && node.includes('-');
  const weight = (_e: string, a: EdgeAttributes): number =>
    1 +
    RISK_WEIGHT * unaccepted(a) +
    (eus && isOddStop(a.to) ? ODD_STOP_WEIGHT : 0) +
    (isPrereleaseStop(a.to) ? PRERELEASE_STOP_WEIGHT : 0);

  const best = found(weightedPath(p.graph, q.from, q.to, weight));
  if (!best) return fail('no-path', noPathMessage(p, q));

  const candidates = new Map<string, string[]>();
  const offer = (nodes: string[] | undefined): void => {
    if (nodes && nodes.length > 1) candidates.set(nodes.join(' '), nodes);
  };
  offer(best);
  const shortest = found(hopPath(p.graph, q.from, q.to));
  offer(shortest);
  if (limit > 1) {
    // Deviations: the best path again with one of its edges made prohibitively expensive.
    for (let i = 0; i + 1 < best.length; i++) {
      const avoid = p.graph.edge(best[i], best[i + 1]);
      offer(
        found(
          weightedPath(
            p.graph,
            q.from,
            q.to,
            (e: string, a: EdgeAttributes) => weight(e, a) + (e === avoid ? BLOCKED_WEIGHT : 0),
          ),
        ),
      );
    }
    for (const nodes of nearShortest(p, q.from, q.to, (shortest ?? best).length - 1)) offer(nodes);
  }

  let paths = [...candidates.values()].map((nodes) => describe(p.graph, nodes, accepted));
  if (eus) {
    const stops = (path: PlannedPath): number => path.hops.slice(0, -1).filter((h) => isOddStop(h.to)).length;
    const fewestOdd = Math.min(...paths.map(stops));
    paths = paths.filter((path) => stops(path) === fewestOdd);
    if (fewestOdd > 0)
      answer.notes.push('no path with only even-minor stops exists: the paths below stop on an odd minor');
  }
  const prereleaseStops = (path: PlannedPath): number => path.hops.filter((h) => isPrereleaseStop(h.to)).length;
  paths.sort(
    (a, b) =>
      a.risksNotAccepted.length - b.risksNotAccepted.length ||
      a.hops.length - b.hops.length ||
      prereleaseStops(a) - prereleaseStops(b) ||
      a.channelSwitches - b.channelSwitches ||
      cmpKey(a, b),
  );
  answer.paths = paths.slice(0, limit);
  if (answer.paths[0]!.risksNotAccepted.length > 0)
    answer.notes.push(
      `every path crosses a conditional edge whose risks are not accepted: ${answer.paths[0]!.risksNotAccepted.join(', ')}`,
    );
  return answer;
}

const found = (nodes: string[] | null | undefined): string[] | undefined =>
  nodes && nodes.length > 0 ? nodes : undefined;

/** All simple paths of at most `hops + 1` hops, when the versions on them are few enough to enumerate. */
function nearShortest(p: Planner, from: string, to: string, hops: number): string[][] {
  const forward = singleSourceLength(p.graph, from);
  const backward = singleSourceLength(p.reverse, to);
  const keep = Object.keys(forward).filter((v) => backward[v] !== undefined && forward[v]! + backward[v]! <= hops + 1);
  if (keep.length > SIMPLE_PATH_NODES) return [];
  const kept = new Set(keep);
  const small: ArchGraph = new DirectedGraph();
  for (const v of keep) small.addNode(v);
  p.graph.forEachEdge((_e, a, s, t) => {
    if (kept.has(s) && kept.has(t)) small.addDirectedEdge(s, t, a);
  });
  return allSimplePaths(small, from, to, { maxDepth: hops + 1 }).slice(0, SIMPLE_PATH_RESULTS);
}

function describe(graph: ArchGraph, nodes: string[], accepted: Set<string>): PlannedPath {
  const edges = nodes.slice(0, -1).map((from, i) => ({ ...edgeOf(graph, from, nodes[i + 1]!), from }));
  const plan = channelPlan(edges.map((e) => e.channels));
  const hops: Hop[] = edges.map((e, i) => ({
    from: e.from,
    to: e.to,
    channels: e.channels,
    recommended: e.recommended,
    risks: e.risks,
    channel: plan[i]!,
  }));
  const names = new Set<string>();
  for (const h of hops) for (const r of h.risks) if (!accepted.has(r.name)) names.add(r.name);
  let switches = 0;
  for (let i = 1; i < plan.length; i++) if (plan[i] !== plan[i - 1]) switches += 1;
  return { hops, risksNotAccepted: [...names], channelSwitches: switches }; // as the hops meet them
}

function edgeOf(graph: ArchGraph, from: string, to: string): EdgeAttributes {
  return graph.getDirectedEdgeAttributes(from, to);
}

/** One channel per hop with as few switches as possible: each time, the channel that lasts longest. */
export function channelPlan(hopChannels: string[][]): string[] {
  const plan: string[] = [];
  let i = 0;
  while (i < hopChannels.length) {
    let bestChannel = hopChannels[i]![0]!;
    let bestEnd = i;
    for (const c of [...hopChannels[i]!].sort(byPreference)) {
      let end = i;
      while (end + 1 < hopChannels.length && hopChannels[end + 1]!.includes(c)) end += 1;
      if (end > bestEnd || (end === bestEnd && byPreference(c, bestChannel) < 0)) {
        bestChannel = c;
        bestEnd = end;
      }
    }
    for (; i <= bestEnd; i++) plan.push(bestChannel);
  }
  return plan;
}

const PREFERENCE = ['stable', 'eus', 'fast', 'candidate'];
function byPreference(a: string, b: string): number {
  const rank = (c: string): number => {
    const r = PREFERENCE.indexOf(c.slice(0, c.indexOf('-')));
    return r < 0 ? PREFERENCE.length : r;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

function cmpKey(a: PlannedPath, b: PlannedPath): number {
  const ka = a.hops.map((h) => h.to).join(' ');
  const kb = b.hops.map((h) => h.to).join(' ');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function noPathMessage(p: Planner, q: PathQuery): string {
  const reached = Object.keys(singleSourceLength(p.graph, q.from));
  let furthest = q.from;
  for (const v of reached) if (semver.gt(v, furthest)) furthest = v;
  return `no update path from ${q.from} to ${q.to}: the furthest minor reachable from ${q.from} is ${minorName(furthest)} (${furthest})`;
}
