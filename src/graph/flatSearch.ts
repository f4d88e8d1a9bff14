// Searches over a planner's graph with its out-edges laid out once as flat arrays: the cheapest path
// between two versions (Dijkstra's algorithm, stopping when the target is settled) and hop counts from one
// version (breadth-first). graphology-shortest-path walks graphology's edge objects and neighbour arrays
// made per visit: on the real 2024 graph (866 versions, 30,000 edges) an EUS question took a p99 of 43 ms
// with it and 3.8 ms with these (docs/dev/benchmarks/2026-12-02-path-planner.md).
import heapModule from 'mnemonist/heap.js';
import type { DirectedGraph } from 'graphology';

// mnemonist/heap.js is CommonJS whose module.exports is the class; its typings declare it as `default`.
const Heap = heapModule as unknown as typeof heapModule.default;

/** A graph's out-edges as flat arrays: those of node i are `targets[start[i]]` up to `targets[start[i + 1]]`. */
export interface OutEdges<A> {
  names: string[];
  index: Map<string, number>;
  start: Int32Array;
  targets: Int32Array;
  attributes: A[];
}

/** What an edge costs; edges are numbered by their place in `targets`. */
export type EdgeWeight<A> = (edge: number, attributes: A) => number;

export function outEdges<A extends object>(graph: DirectedGraph<object, A>): OutEdges<A> {
  const names = graph.nodes();
  const index = new Map(names.map((n, i) => [n, i]));
  const start = new Int32Array(names.length + 1);
  const targets = new Int32Array(graph.size);
  const attributes: A[] = [];
  names.forEach((name, i) => {
    start[i] = attributes.length;
    graph.forEachOutEdge(name, (_e, a, _s, t) => {
      targets[attributes.length] = index.get(t)!;
      attributes.push(a);
    });
  });
  start[names.length] = attributes.length;
  return { names, index, start, targets, attributes };
}

/** The same edges reversed, over the same numbering of versions; each keeps its forward edge's attributes. */
export function reversedEdges<A>(g: OutEdges<A>): OutEdges<A> {
  const n = g.names.length;
  const start = new Int32Array(n + 1);
  for (let e = 0; e < g.targets.length; e++) start[g.targets[e]! + 1]! += 1;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, n);
  const targets = new Int32Array(g.targets.length);
  const attributes = new Array<A>(g.targets.length);
  for (let v = 0; v < n; v++)
    for (let e = g.start[v]!; e < g.start[v + 1]!; e++) {
      const at = fill[g.targets[e]!]!++;
      targets[at] = v;
      attributes[at] = g.attributes[e]!;
    }
  return { names: g.names, index: g.index, start, targets, attributes };
}

/** The number of the edge from `from` to `to`, or -1. */
export function edgeNumber<A>(g: OutEdges<A>, from: string, to: string): number {
  const f = g.index.get(from);
  const t = g.index.get(to);
  if (f === undefined || t === undefined) return -1;
  for (let e = g.start[f]!; e < g.start[f + 1]!; e++) if (g.targets[e] === t) return e;
  return -1;
}

/** The versions of a cheapest path from `from` to `to` (both included), or undefined when there is none. */
export function cheapestPath<A>(g: OutEdges<A>, from: string, to: string, weight: EdgeWeight<A>): string[] | undefined {
  const source = g.index.get(from);
  const target = g.index.get(to);
  if (source === undefined || target === undefined) return undefined;
  const cost = new Float64Array(g.names.length).fill(Infinity);
  const via = new Int32Array(g.names.length).fill(-1);
  const settled = new Uint8Array(g.names.length);
  const queue = new Heap<[number, number]>((a, b) => a[0] - b[0]);
  cost[source] = 0;
  queue.push([0, source]);
  while (queue.size > 0) {
    const [c, v] = queue.pop()!;
    if (settled[v]) continue;
    settled[v] = 1;
    if (v === target) break;
    for (let e = g.start[v]!; e < g.start[v + 1]!; e++) {
      const w = g.targets[e]!;
      if (settled[w]) continue;
      const next = c + weight(e, g.attributes[e]!);
      if (next < cost[w]!) {
        cost[w] = next;
        via[w] = v;
        queue.push([next, w]);
      }
    }
  }
  if (!settled[target]) return undefined;
  const path: string[] = [];
  for (let v = target; v !== -1; v = via[v]!) path.push(g.names[v]!);
  return path.reverse();
}

/** Hops from `from` to every version (-1 where it is not reached). */
export function hopCounts<A>(g: OutEdges<A>, from: string): Int32Array {
  const hops = new Int32Array(g.names.length).fill(-1);
  const source = g.index.get(from);
  if (source === undefined) return hops;
  const queue = new Int32Array(g.names.length);
  let tail = 0;
  hops[source] = 0;
  queue[tail++] = source;
  for (let head = 0; head < tail; head++) {
    const v = queue[head]!;
    for (let e = g.start[v]!; e < g.start[v + 1]!; e++) {
      const w = g.targets[e]!;
      if (hops[w] !== -1) continue;
      hops[w] = hops[v]! + 1;
      queue[tail++] = w;
    }
  }
  return hops;
}
