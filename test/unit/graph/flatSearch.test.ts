// The flat-array searches against plain ones written here, on seeded random graphs: cheapest-path costs
// against Bellman-Ford relaxation, hop counts against repeated relaxation, reversed edges against the
// forward list turned around.
import { DirectedGraph } from 'graphology';
import { describe, expect, it } from 'vitest';
import { cheapestPath, edgeNumber, hopCounts, outEdges, reversedEdges } from '../../../src/graph/flatSearch.js';

interface Cost {
  cost: number;
}

function randomGraph(seed: number, nodes: number, edges: number): DirectedGraph<object, Cost> {
  let s = seed;
  const next = (): number => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const g = new DirectedGraph<object, Cost>();
  for (let i = 0; i < nodes; i++) g.addNode(`v${i}`);
  for (let i = 0; i < edges; i++) {
    const [a, b] = [Math.floor(next() * nodes), Math.floor(next() * nodes)];
    if (a !== b && !g.hasDirectedEdge(`v${a}`, `v${b}`))
      g.addDirectedEdge(`v${a}`, `v${b}`, { cost: 1 + Math.floor(next() * 5) });
  }
  return g;
}

/** Costs from `from` by relaxing every edge until nothing changes. */
function relaxed(g: DirectedGraph<object, Cost>, from: string, cost: (a: Cost) => number): Map<string, number> {
  const best = new Map([[from, 0]]);
  for (let changed = true; changed;) {
    changed = false;
    g.forEachEdge((_e, a, s, t) => {
      const via = best.get(s);
      if (via !== undefined && via + cost(a) < (best.get(t) ?? Infinity)) {
        best.set(t, via + cost(a));
        changed = true;
      }
    });
  }
  return best;
}

describe('flat searches', () => {
  for (const seed of [1, 2, 3]) {
    const g = randomGraph(seed, 40, 120);
    const out = outEdges(g);

    it(`seed ${seed}: cheapest paths cost what relaxation finds, along real edges`, () => {
      const costs = relaxed(g, 'v0', (a) => a.cost);
      for (const to of g.nodes().slice(1)) {
        const path = cheapestPath(out, 'v0', to, (_e, a) => a.cost);
        if (!costs.has(to)) {
          expect(path, to).toBeUndefined();
          continue;
        }
        let total = 0;
        for (let i = 0; i + 1 < path!.length; i++) {
          const e = edgeNumber(out, path![i]!, path![i + 1]!);
          expect(e, `${path![i]} -> ${path![i + 1]}`).toBeGreaterThanOrEqual(0);
          total += out.attributes[e]!.cost;
        }
        expect([path![0], path!.at(-1), total]).toEqual(['v0', to, costs.get(to)]);
      }
    });

    it(`seed ${seed}: hop counts forward and over the reversed edges`, () => {
      const hops = relaxed(g, 'v0', () => 1);
      const counted = hopCounts(out, 'v0');
      out.names.forEach((v, i) => expect(counted[i], v).toBe(hops.get(v) ?? -1));
      const back = reversedEdges(out);
      const reversed = new DirectedGraph<object, Cost>();
      g.forEachNode((v) => reversed.addNode(v));
      g.forEachEdge((_e, a, s, t) => reversed.addDirectedEdge(t, s, a));
      const backHops = relaxed(reversed, 'v7', () => 1);
      const countedBack = hopCounts(back, 'v7');
      back.names.forEach((v, i) => expect(countedBack[i], v).toBe(backHops.get(v) ?? -1));
    });
  }

  it('an unknown version: no path, no hops', () => {
    const out = outEdges(randomGraph(4, 5, 8));
    expect(cheapestPath(out, 'v0', 'nope', () => 1)).toBeUndefined();
    expect([...hopCounts(out, 'nope')].every((h) => h === -1)).toBe(true);
    expect(edgeNumber(out, 'nope', 'v0')).toBe(-1);
  });
});
