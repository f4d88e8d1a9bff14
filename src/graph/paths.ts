// Update-path planning over the built graph: the versions of one architecture as a graphology
// directed graph whose edges are the recommended and conditional edges that exist in at least one
// public channel (or in the one channel asked for). Cheapest paths come from Dijkstra's algorithm over
// flat out-edge arrays (flatSearch.ts) and alternatives from graphology-simple-path; ranking is by risks not accepted,
// then hops, then prerelease stops, then channel switches. EUS mode plans OpenShift's EUS-to-EUS update:
// through the odd minor between, in the channels a cluster at the source can be on (eus-, stable-, fast-,
// unless a channel is asked for), on GA releases and recommended edges wherever such a path exists.
import { didYouMean } from './closestName.js';
import { DirectedGraph } from 'graphology';
import { allSimplePaths } from 'graphology-simple-path';
import semver from 'semver';
import { cheapestPath, edgeNumber, hopCounts, outEdges, reversedEdges, type OutEdges } from './flatSearch.js';
import type { FullGraph, Risk } from './model.js';
import { DEFAULT_PATH_LIMIT, MAX_PATH_LIMIT } from '../schemas/paths.js';

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
  /** The same edges as flat arrays, for the searches, forward and reversed. */
  out: OutEdges<EdgeAttributes>;
  back: OutEdges<EdgeAttributes>;
  /** Every release of the arch, in or out of a channel. */
  releases: Set<string>;
  /** The highest version reachable from a version, once asked (at most one entry per version of the scope). */
  furthest: Map<string, string>;
}

/** Planners per built graph, arch and channel: a snapshot never changes, so neither do they. */
const planners = new WeakMap<FullGraph, Map<string, Planner>>();

/** Above this many versions on near-shortest paths, alternatives come from Dijkstra deviations only. */
const SIMPLE_PATH_NODES = 24;
const SIMPLE_PATH_RESULTS = 200;
const RISK_WEIGHT = 1_000;
/** Far less than a hop over any path: it only orders paths of as many hops. */
const PRERELEASE_STOP_WEIGHT = 0.001;
/**
 * In an EUS plan a prerelease stop is the last resort, worse than a conditional edge (whose risk the cluster
 * evaluates, and may not be exposed to): an unsupported build on a production cluster.
 */
const EUS_PRERELEASE_STOP_WEIGHT = 1_000_000;
const BLOCKED_WEIGHT = 1_000_000_000;

/** The kinds of channel a cluster at an EUS source can be on: an EUS plan uses others only when asked for one. */
const EUS_CHANNEL_KINDS = ['eus', 'stable', 'fast'];
const channelKind = (channel: string): string => channel.slice(0, channel.indexOf('-'));
const isEusChannel = (channel: string): boolean => EUS_CHANNEL_KINDS.includes(channelKind(channel));
/** The planner scope of EUS plans: a name no channel can have (channel names are printable). */
const EUS_SCOPE = '\u0001eus';

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
        if (isEusChannel(c)) known.keys.add(scopeKey(n.arch, EUS_SCOPE));
      }
    }
    scopes.set(full, known);
  }
  return known;
}

/** The planner of one arch over every channel, one channel, or (EUS_SCOPE) the channels EUS plans use. */
function planner(full: FullGraph, arch: string, channel?: string): Planner {
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
  const releases = new Set<string>();
  const inScope = (channels: string[]): string[] =>
    channel === undefined
      ? channels
      : channel === EUS_SCOPE
        ? channels.filter(isEusChannel)
        : channels.filter((c) => c === channel);
  full.nodes.forEach((n) => {
    if (n.arch !== arch) return;
    releases.add(n.version);
    if (inScope(n.channels).length === 0) return;
    graph.addNode(n.version);
  });
  const add = (from: number, to: number, recommended: boolean, risks: Risk[]): void => {
    const f = full.nodes[from]!;
    const t = full.nodes[to]!;
    if (f.arch !== arch || t.arch !== arch) return;
    const channels = inScope(f.channels).filter((c) => t.channels.includes(c));
    if (channels.length === 0) return;
    graph.addDirectedEdge(f.version, t.version, { to: t.version, channels, recommended, risks });
  };
  for (let f = 0; f < full.nodes.length; f++) {
    for (let e = full.edgeOffsets[f]!; e < full.edgeOffsets[f + 1]!; e++) add(f, full.edgeTargets[e]!, true, []);
  }
  for (const pair of full.conditional) add(pair.from, pair.to, false, pair.risks);
  const out = outEdges(graph);
  return { graph, out, back: reversedEdges(out), releases, furthest: new Map() };
}

const minorOf = (version: string): number => semver.minor(version);
const minorName = (version: string): string => `${semver.major(version)}.${semver.minor(version)}`;

export function planPaths(full: FullGraph, q: PathQuery): PathAnswer {
  const mode = q.mode ?? 'fewest-hops';
  const eus = mode === 'eus';
  const limit = Math.min(Math.max(q.limit ?? DEFAULT_PATH_LIMIT, 1), MAX_PATH_LIMIT);
  const accepted = new Set(q.acceptRisks ?? []);
  const answer: PathAnswer = { from: q.from, to: q.to, arch: q.arch, mode, paths: [], notes: [] };
  const scope = q.channel ?? (eus ? EUS_SCOPE : undefined);
  const outside = (v: string): string =>
    scope === undefined
      ? `${v} is in no channel of ${q.arch}`
      : scope === EUS_SCOPE
        ? `${v} is in no eus-, stable- or fast- channel of ${q.arch}${CANDIDATE_HINT}`
        : `${v} is not in channel ${q.channel} (${q.arch})`;
  const fail = (code: NoPathCode, message: string): PathAnswer => ({ ...answer, reason: { code, message } });
  const channels = scopesOf(full).channels;
  if (q.channel !== undefined && !channels.has(q.channel))
    return fail('unknown-channel', `no release is in a channel named ${q.channel}${didYouMean(q.channel, channels)}`);
  const p = planner(full, q.arch, scope);
  if (!p.releases.has(q.from)) return fail('source-not-a-release', `${q.from} is not a release of ${q.arch}`);
  if (!p.releases.has(q.to)) return fail('target-not-a-release', `${q.to} is not a release of ${q.arch}`);
  if (!p.graph.hasNode(q.from)) return fail('source-not-in-channel', outside(q.from));
  if (!p.graph.hasNode(q.to)) return fail('target-not-in-channel', outside(q.to));
  if (q.from === q.to) return fail('same-version', `${q.from} is already the target version`);

  if (eus) answer.notes.push(...eusNotes(q.from, q.to));
  const unaccepted = (a: EdgeAttributes): number =>
    a.risks.length === 0 ? 0 : a.risks.filter((r) => !accepted.has(r.name)).length;
  // A prerelease (ec, rc) is a stop of last resort: among paths of as many hops, one without it wins; in an
  // EUS plan, any path without one wins. Versions carry no build metadata, so a prerelease has a '-'. The
  // weights follow the ranking below, risks counted per edge.
  const isPrereleaseStop = (node: string): boolean => node !== q.to && node !== q.from && node.includes('-');
  const prereleaseWeight = eus ? EUS_PRERELEASE_STOP_WEIGHT : PRERELEASE_STOP_WEIGHT;
  const weight = (_e: number, a: EdgeAttributes): number =>
    1 + RISK_WEIGHT * unaccepted(a) + (isPrereleaseStop(a.to) ? prereleaseWeight : 0);

  const best = cheapestPath(p.out, q.from, q.to, weight);
  if (!best) return fail('no-path', noPathMessage(p, q) + (scope === EUS_SCOPE ? CANDIDATE_HINT : ''));

  const candidates = new Map<string, string[]>();
  const offer = (nodes: string[] | undefined): void => {
    if (nodes && nodes.length > 1) candidates.set(nodes.join(' '), nodes);
  };
  offer(best);
  // The weights count risks per edge where the ranking counts distinct names: unless the cheapest path has
  // neither a risk nor a prerelease stop (then it has the fewest hops too), the path of fewest hops is a
  // candidate as well, and every candidate is ranked below.
  const hopWeight = (from: string, to: string): number => {
    const e = edgeNumber(p.out, from, to);
    return weight(e, p.out.attributes[e]!);
  };
  const clean = best.every((v, i) => i === 0 || hopWeight(best[i - 1]!, v) === 1);
  const shortest = clean && limit === 1 ? best : cheapestPath(p.out, q.from, q.to, () => 1);
  offer(shortest);
  if (limit > 1) {
    // Deviations: the best path again with one of its edges made prohibitively expensive.
    for (let i = 0; i + 1 < best.length; i++) {
      const avoid = edgeNumber(p.out, best[i]!, best[i + 1]!);
      offer(cheapestPath(p.out, q.from, q.to, (e, a) => weight(e, a) + (e === avoid ? BLOCKED_WEIGHT : 0)));
    }
    for (const nodes of nearShortest(p, q.from, q.to, (shortest ?? best).length - 1)) offer(nodes);
  }

  const preference = eus ? EUS_PREFERENCE : PREFERENCE;
  const paths = [...candidates.values()].map((nodes) => describe(p.graph, nodes, accepted, preference));
  const prereleaseStops = (path: PlannedPath): string[] =>
    path.hops.map((h) => h.to).filter((v) => isPrereleaseStop(v));
  const hopCount = (path: PlannedPath): number => path.hops.length;
  const riskCount = (path: PlannedPath): number => path.risksNotAccepted.length;
  const prereleaseCount = (path: PlannedPath): number => prereleaseStops(path).length;
  const ranking = eus ? [prereleaseCount, riskCount, hopCount] : [riskCount, hopCount, prereleaseCount];
  paths.sort(
    (a, b) =>
      ranking.reduce((order, key) => order || key(a) - key(b), 0) ||
      a.channelSwitches - b.channelSwitches ||
      cmpKey(a, b),
  );
  answer.paths = paths.slice(0, limit);
  const first = answer.paths[0]!;
  if (eus && prereleaseStops(first).length > 0)
    answer.notes.push(
      `no path through GA releases alone reaches ${q.to}: this one stops on ${prereleaseStops(first).join(', ')}, ` +
        'a prerelease, which is not supported on a production cluster',
    );
  if (first.risksNotAccepted.length > 0)
    answer.notes.push(
      `every path ${eus && prereleaseCount(first) === 0 ? 'through GA releases ' : ''}crosses a conditional edge ` +
        `whose risks are not accepted: ${first.risksNotAccepted.join(', ')}`,
    );
  return answer;
}

const CANDIDATE_HINT = ' (an EUS plan uses a candidate channel only when asked for one: channel=candidate-…)';

/** What an EUS plan tells its reader beyond the path: the paused pools, and a source or target off the EUS shape. */
function eusNotes(from: string, to: string): string[] {
  const notes = [
    'EUS-to-EUS: pause the worker machine config pools before the first hop and unpause them after the last, so workers reboot once',
  ];
  for (const v of [from, to])
    if (minorOf(v) % 2 !== 0) notes.push(`${v} is on an odd minor: EUS releases are even minors`);
  const span = minorOf(to) - minorOf(from);
  if (semver.major(from) === semver.major(to) && span > 2)
    notes.push(`${from} to ${to} spans ${span} minors: an EUS-to-EUS update spans two, through the odd minor between`);
  return notes;
}

/** All simple paths of at most `hops + 1` hops, when the versions on them are few enough to enumerate. */
function nearShortest(p: Planner, from: string, to: string, hops: number): string[][] {
  const forward = hopCounts(p.out, from);
  const backward = hopCounts(p.back, to);
  const keep: number[] = [];
  for (let i = 0; i < forward.length; i++)
    if (forward[i]! >= 0 && backward[i]! >= 0 && forward[i]! + backward[i]! <= hops + 1) keep.push(i);
  if (keep.length > SIMPLE_PATH_NODES) return [];
  const { names, start, targets, attributes } = p.out;
  const small: ArchGraph = new DirectedGraph();
  for (const v of keep) small.addNode(names[v]!);
  for (const v of keep)
    for (let e = start[v]!; e < start[v + 1]!; e++)
      if (small.hasNode(names[targets[e]!]!)) small.addDirectedEdge(names[v]!, names[targets[e]!]!, attributes[e]!);
  return allSimplePaths(small, from, to, { maxDepth: hops + 1 }).slice(0, SIMPLE_PATH_RESULTS);
}

function describe(graph: ArchGraph, nodes: string[], accepted: Set<string>, preference: string[]): PlannedPath {
  const edges = nodes.slice(0, -1).map((from, i) => ({ ...edgeOf(graph, from, nodes[i + 1]!), from }));
  const plan = channelPlan(
    edges.map((e) => e.channels),
    preference,
  );
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

/**
 * One channel per hop with as few switches as possible: each time, the channel that lasts longest, and
 * among those the kind that comes first in `preference`.
 */
export function channelPlan(hopChannels: string[][], preference: string[] = PREFERENCE): string[] {
  const byPreference = preferring(preference);
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
/** OpenShift's EUS-to-EUS procedure runs on the eus- channel of the target, which holds both EUS minors. */
const EUS_PREFERENCE = ['eus', 'stable', 'fast', 'candidate'];
function preferring(preference: string[]): (a: string, b: string) => number {
  const rank = (c: string): number => {
    const r = preference.indexOf(channelKind(c));
    return r < 0 ? preference.length : r;
  };
  return (a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

function cmpKey(a: PlannedPath, b: PlannedPath): number {
  const ka = a.hops.map((h) => h.to).join(' ');
  const kb = b.hops.map((h) => h.to).join(' ');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function noPathMessage(p: Planner, q: PathQuery): string {
  let furthest = p.furthest.get(q.from);
  if (furthest === undefined) {
    furthest = q.from;
    const reached = hopCounts(p.out, q.from);
    p.out.names.forEach((v, i) => {
      if (reached[i]! >= 0 && semver.gt(v, furthest!)) furthest = v;
    });
    p.furthest.set(q.from, furthest);
  }
  return `no update path from ${q.from} to ${q.to}: the furthest minor reachable from ${q.from} is ${minorName(furthest)} (${furthest})`;
}
