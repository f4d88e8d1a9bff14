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

/** Hops of a shortest path by breadth-first search, or undefined; `stop` says which versions may be stops. */
function bfs(
  next: Map<string, Set<string>>,
  from: string,
  to: string,
  stop: (v: string) => boolean = () => true,
): number | undefined {
  const dist = new Map([[from, 0]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    if (v === to) return dist.get(v);
    if (v !== from && !stop(v)) continue;
    for (const w of next.get(v) ?? []) {
      if (dist.has(w)) continue;
      dist.set(w, dist.get(v)! + 1);
      queue.push(w);
    }
  }
  return undefined;
}

const even = (v: string): boolean => semver.minor(v) % 2 === 0;

function checkHops(s: Served, answer: PathAnswer, from: string, to: string): void {
  for (const path of answer.paths) {
    expect(path.hops[0]!.from).toBe(from);
    expect(path.hops.at(-1)!.to).toBe(to);
    path.hops.forEach((hop, i) => {
      if (i > 0) expect(hop.from).toBe(path.hops[i - 1]!.to);
      const inChannels = s.edges.get(`${hop.from}>${hop.to}`);
      expect(inChannels, `${hop.from} -> ${hop.to}`).toBeDefined();
      expect(hop.channels.length).toBeGreaterThan(0);
      expect(hop.channels).toContain(hop.channel);
      expect([...inChannels!.keys()].sort()).toEqual([...hop.channels].sort());
      for (const c of hop.channels) expect(inChannels!.get(c)).toBe(hop.recommended);
      expect(hop.risks.length > 0).toBe(!hop.recommended);
    });
  }
}

interface Counts {
  tried: number;
  withPath: number;
  withoutPath: number;
  recommendedOnly: number;
  eusEven: number;
  eusOdd: number;
}

/** `pairs` random pairs; every tenth asks for three paths (the alternatives are checked too), the others for one. */
function property(graph: FullGraph, channels: Iterable<string>, seed: number, pairs: number): Counts {
  const s = served(graph, channels);
  const rand = random(seed);
  const counts: Counts = { tried: 0, withPath: 0, withoutPath: 0, recommendedOnly: 0, eusEven: 0, eusOdd: 0 };
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
    checkHops(s, all, from, to);

    const none = planPaths(graph, { ...query, limit: 1 });
    const recommended = bfs(s.nextRecommended, from, to);
    if (recommended !== undefined) {
      counts.recommendedOnly += 1;
      expect(none.paths[0]!.risksNotAccepted).toEqual([]);
      expect(none.paths[0]!.hops.length).toBe(recommended);
    } else expect(none.paths[0]!.risksNotAccepted.length).toBeGreaterThan(0);
    checkHops(s, none, from, to);

    const eus = planPaths(graph, { ...query, acceptRisks: s.risks, mode: 'eus', limit });
    checkHops(s, eus, from, to);
    expect(eus.paths.length).toBeGreaterThan(0);
    const evenHops = bfs(s.next, from, to, even);
    if (evenHops !== undefined) {
      counts.eusEven += 1;
      for (const path of eus.paths) expect(path.hops.slice(0, -1).every((h) => even(h.to))).toBe(true);
      expect(eus.paths[0]!.hops.length).toBe(evenHops);
    } else counts.eusOdd += 1;
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
    });
  }
});
