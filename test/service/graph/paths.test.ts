// Property tests of the path planner on the bundled graph-data and the real conformance set: random
// (from, to) pairs with a fixed seed, each answer checked against the served channel graphs and an
// independent breadth-first search written here.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import semver from 'semver';
import type { FullGraph } from '../../../src/graph/model.js';
import { planPaths, type PathAnswer } from '../../../src/graph/paths.js';
import { channelView } from '../../../src/graph/view.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../../support/conformance.js';
import { startServer, type TestServer } from '../../support/server.js';

const ARCH = 'amd64';

/** mulberry32: a small seeded generator, so every run tries the same pairs. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Served {
  versions: string[];
  /** `from>to` -> channel -> recommended */
  edges: Map<string, Map<string, boolean>>;
  next: Map<string, Set<string>>;
  nextRecommended: Map<string, Set<string>>;
  risks: string[];
}

/** The edges as the channel views serve them, over every public channel of the arch. */
function served(graph: FullGraph, channels: Iterable<string>): Served {
  const edges = new Map<string, Map<string, boolean>>();
  const next = new Map<string, Set<string>>();
  const nextRecommended = new Map<string, Set<string>>();
  const versions = new Set<string>();
  const risks = new Set<string>();
  const add = (channel: string, from: string, to: string, recommended: boolean): void => {
    const key = `${from}>${to}`;
    if (!edges.has(key)) edges.set(key, new Map());
    edges.get(key)!.set(channel, recommended);
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
    if (recommended) {
      if (!nextRecommended.has(from)) nextRecommended.set(from, new Set());
      nextRecommended.get(from)!.add(to);
    }
  };
  for (const channel of channels) {
    const doc = channelView(graph, channel, ARCH);
    for (const n of doc.nodes) versions.add(n.version);
    for (const [f, t] of doc.edges) add(channel, doc.nodes[f]!.version, doc.nodes[t]!.version, true);
    for (const group of doc.conditionalEdges) {
      for (const r of group.risks) risks.add(r.name);
      for (const e of group.edges) add(channel, e.from, e.to, false);
    }
  }
  return { versions: [...versions].sort(semver.compare), edges, next, nextRecommended, risks: [...risks] };
}

/** Hops of a shortest path from `from` to every version it reaches, by breadth-first search; `stop` says which versions may be stops. */
function bfsFrom(
  next: Map<string, Set<string>>,
  from: string,
  stop: (v: string) => boolean = () => true,
): Map<string, number> {
  const dist = new Map([[from, 0]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    if (v !== from && !stop(v)) continue;
    for (const w of next.get(v) ?? []) {
      if (dist.has(w)) continue;
      dist.set(w, dist.get(v)! + 1);
      queue.push(w);
    }
  }
  return dist;
}

const bfs = (next: Map<string, Set<string>>, from: string, to: string): number | undefined =>
  bfsFrom(next, from).get(to);

/**
 * What is wrong with an answer, one line each (thousands of answers are checked; one expect over the list
 * at the end names every failing pair and costs far less than an expect per fact).
 */
type Problems = string[];
const check = (problems: Problems, holds: boolean, what: string): void => {
  if (!holds) problems.push(what);
};
const sameMembers = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

/** Every hop a real edge of the served channels, chained from `from` to `to`, with those channels and kind. */
function checkHops(problems: Problems, s: Served, answer: PathAnswer, from: string, to: string): void {
  for (const path of answer.paths) {
    const name = `${from} -> ${to} via ${path.hops.map((h) => h.to).join(' ')}`;
    check(problems, path.hops[0]!.from === from && path.hops.at(-1)!.to === to, `${name}: ends`);
    path.hops.forEach((hop, i) => {
      const edge = `${name}: ${hop.from} -> ${hop.to}`;
      if (i > 0) check(problems, hop.from === path.hops[i - 1]!.to, `${edge} does not follow the hop before`);
      const inChannels = s.edges.get(`${hop.from}>${hop.to}`);
      if (!inChannels) return check(problems, false, `${edge} is in no channel`);
      check(problems, hop.channels.includes(hop.channel), `${edge}: channel ${hop.channel} not among the hop's`);
      check(problems, sameMembers([...inChannels.keys()], hop.channels), `${edge}: channels ${hop.channels}`);
      check(
        problems,
        hop.channels.every((c) => inChannels.get(c) === hop.recommended),
        `${edge}: recommended`,
      );
      check(problems, hop.risks.length > 0 === !hop.recommended, `${edge}: risks`);
    });
  }
}

interface Counts {
  tried: number;
  withPath: number;
  withoutPath: number;
  recommendedOnly: number;
  /** EUS answers: an end outside eus-/stable-/fast- channels, a GA path of recommended edges, another path, none. */
  eusOutside: number;
  eusGa: number;
  eusOther: number;
  eusNone: number;
}

const isGa = (v: string): boolean => !v.includes('-');
const EUS_KINDS = ['eus', 'stable', 'fast'];
const eusChannels = (channels: Iterable<string>): string[] =>
  [...channels].filter((c) => EUS_KINDS.includes(c.slice(0, c.indexOf('-'))));

/**
 * An EUS answer checked against the eus-, stable- and fast- channels as served: real edges of those
 * channels; where BFS finds a path of recommended edges through GA releases, the first path is one, as
 * short; where it finds no path at all, none.
 */
function checkEus(
  problems: Problems,
  s: Served,
  versions: Set<string>,
  answer: PathAnswer,
  from: string,
  to: string,
): keyof Counts {
  const reach = versions.has(from) ? eusReach(s, from) : undefined;
  return checkEusFrom(problems, s, versions, reach, answer, from, to);
}

/** From one source, by BFS: hops over recommended edges through GA stops, and hops over any edge. */
interface EusReach {
  ga: Map<string, number>;
  any: Map<string, number>;
}
const eusReach = (s: Served, from: string): EusReach => ({
  ga: bfsFrom(s.nextRecommended, from, isGa),
  any: bfsFrom(s.next, from),
});

function checkEusFrom(
  problems: Problems,
  s: Served,
  versions: Set<string>,
  reach: EusReach | undefined,
  answer: PathAnswer,
  from: string,
  to: string,
): keyof Counts {
  const name = `EUS ${from} -> ${to}`;
  if (!versions.has(from) || !versions.has(to)) {
    check(
      problems,
      /^(source|target)-not-in-channel$/.test(answer.reason?.code ?? ''),
      `${name}: ${answer.reason?.code}`,
    );
    return 'eusOutside';
  }
  checkHops(problems, s, answer, from, to);
  const gaHops = reach!.ga.get(to);
  if (gaHops !== undefined) {
    const first = answer.paths[0];
    if (!first) return (check(problems, false, `${name}: no path, BFS finds ${gaHops} hops`), 'eusGa');
    check(problems, first.risksNotAccepted.length === 0, `${name}: risks ${first.risksNotAccepted}`);
    check(
      problems,
      first.hops.every((h) => isGa(h.to)),
      `${name}: a prerelease stop`,
    );
    check(problems, first.hops.length === gaHops, `${name}: ${first.hops.length} hops, BFS ${gaHops}`);
    return 'eusGa';
  }
  if (!reach!.any.has(to)) {
    check(problems, answer.reason?.code === 'no-path', `${name}: ${answer.reason?.code ?? 'a path'}, BFS none`);
    return 'eusNone';
  }
  check(problems, /a prerelease|crosses a conditional edge/.test(answer.notes.join('\n')), `${name}: notes`);
  return 'eusOther';
}

/** `pairs` random pairs; every tenth asks for three paths (the alternatives are checked too), the others for one. */
function property(graph: FullGraph, channels: Iterable<string>, seed: number, pairs: number): Counts {
  const s = served(graph, channels);
  const sEus = served(graph, eusChannels(channels));
  const eusVersions = new Set(sEus.versions);
  const rand = random(seed);
  const counts: Counts = {
    tried: 0,
    withPath: 0,
    withoutPath: 0,
    recommendedOnly: 0,
    eusOutside: 0,
    eusGa: 0,
    eusOther: 0,
    eusNone: 0,
  };
  const pick = (): string => s.versions[Math.floor(rand() * s.versions.length)]!;
  while (counts.tried < pairs) {
    let from = pick();
    let to = pick();
    if (from === to) continue;
    // Mostly upgrades (the question people ask), some downgrades.
    if (rand() < 0.85 && semver.gt(from, to)) [from, to] = [to, from];
    counts.tried += 1;
    const limit = counts.tried % 10 === 0 ? 3 : 1;
    const query = { from, to, arch: ARCH };
    const hops = bfs(s.next, from, to);
    const all = planPaths(graph, { ...query, acceptRisks: s.risks, limit });
    if (hops === undefined) {
      counts.withoutPath += 1;
      expect(all.paths, `${from} -> ${to}`).toEqual([]);
      expect(all.reason?.code).toBe('no-path');
      continue;
    }
    counts.withPath += 1;
    expect(all.paths.length, `${from} -> ${to}`).toBeGreaterThan(0);
    expect(all.paths[0]!.hops.length, `${from} -> ${to}`).toBe(hops);
    const problems: Problems = [];
    checkHops(problems, s, all, from, to);

    const none = planPaths(graph, { ...query, limit: 1 });
    const recommended = bfs(s.nextRecommended, from, to);
    if (recommended !== undefined) {
      counts.recommendedOnly += 1;
      expect(none.paths[0]!.risksNotAccepted).toEqual([]);
      expect(none.paths[0]!.hops.length).toBe(recommended);
    } else expect(none.paths[0]!.risksNotAccepted.length).toBeGreaterThan(0);
    checkHops(problems, s, none, from, to);

    const eus = planPaths(graph, { ...query, mode: 'eus', limit });
    counts[checkEus(problems, sEus, eusVersions, eus, from, to)] += 1;
    expect(problems).toEqual([]);
  }
  return counts;
}

interface EusPairs {
  pairs: number;
  gaPath: number;
  other: number;
  none: number;
}

/**
 * Every pair of GA releases two minors apart in the eus-, stable- and fast- channels: the EUS plan is checked
 * as in `checkEus`, and where a GA path of recommended edges exists, its stops climb from the source's minor
 * through the odd minor between (at least one stop there) to the target's, never anywhere else.
 */
function everyEusPair(graph: FullGraph, channels: Iterable<string>, problems: Problems): EusPairs {
  const s = served(graph, eusChannels(channels));
  const versions = new Set(s.versions);
  const ga = s.versions.filter(isGa);
  const counts: EusPairs = { pairs: 0, gaPath: 0, other: 0, none: 0 };
  for (const from of ga) {
    const minor = semver.minor(from);
    const reach = eusReach(s, from);
    for (const to of ga) {
      if (semver.major(to) !== semver.major(from) || semver.minor(to) !== minor + 2) continue;
      counts.pairs += 1;
      const answer = planPaths(graph, { from, to, arch: ARCH, mode: 'eus', limit: 1 });
      const kind = checkEusFrom(problems, s, versions, reach, answer, from, to);
      if (kind === 'eusGa' && answer.paths[0]) {
        counts.gaPath += 1;
        const minors = [from, ...answer.paths[0].hops.map((h) => h.to)].map((v) => semver.minor(v));
        check(problems, minors.includes(minor + 1), `EUS ${from} -> ${to}: no stop on minor ${minor + 1}`);
        check(
          problems,
          minors.every((m, i) => i === 0 || m >= minors[i - 1]!),
          `EUS ${from} -> ${to}: ${minors}`,
        );
      } else if (kind === 'eusNone') counts.none += 1;
      else counts.other += 1;
    }
  }
  return counts;
}

describe('path planner properties', () => {
  const inputs: Array<[string, string, () => boolean, number]> = [
    ['bundled graph-data', join(import.meta.dirname, '..', '..', '..', 'graph-data'), () => true, 300],
    ['real conformance set', join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data'), conformanceAvailable, 200],
  ];
  for (const [name, dir, available, pairs] of inputs) {
    describe(name, () => {
      const run = available();
      let server: TestServer | undefined;
      beforeAll(async () => {
        if (run) server = await startServer({ graphData: dir });
      }, 120_000);
      afterAll(async () => server?.close());

      it.runIf(run)(
        `${pairs} random pairs: real edges, BFS hop counts, no path where BFS finds none, EUS stops`,
        () => {
          const snapshot = server!.service.current!;
          const counts = property(snapshot.graph, snapshot.channels, 20261123, pairs);
          console.log(`paths property (${name}): ${JSON.stringify(counts)}`);
          expect(counts.withPath).toBeGreaterThan(0);
        },
        60_000,
      );

      it.runIf(run)(
        'EUS plans between every pair of GA releases two minors apart',
        () => {
          const snapshot = server!.service.current!;
          const started = performance.now();
          const problems: Problems = [];
          const counts = everyEusPair(snapshot.graph, snapshot.channels, problems);
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          console.log(`EUS pairs (${name}): ${JSON.stringify(counts)} in ${seconds} s`);
          expect(problems).toEqual([]);
          expect(counts.pairs).toBeGreaterThan(0);
        },
        120_000,
      );
    });
  }
});
