// A graph under construction, as the build stages (build.ts) grow it and the last stage (finish.ts)
// turns it into the served form: nodes in the order they were added, edges as parent sets.
import type { GraphNode, Risk } from './model.js';

/** A graph under construction: node ids are `<version>+<arch>`, edges are parent sets per node. */
export interface WorkGraph {
  nodes: GraphNode[];
  index: Map<string, number>;
  parents: Array<Set<number>>;
  conditional: Map<number, Map<number, Risk[]>>; // to -> from -> risks, names unique
  removed: Set<number>;
  warnings: string[];
}

export const nodeId = (version: string, arch: string): string => `${version}+${arch}`;

export function emptyGraph(): WorkGraph {
  return { nodes: [], index: new Map(), parents: [], conditional: new Map(), removed: new Set(), warnings: [] };
}

export function addNode(g: WorkGraph, node: GraphNode): number {
  const id = nodeId(node.version, node.arch);
  const existing = g.index.get(id);
  if (existing !== undefined) throw new Error(`duplicate release ${id}`);
  g.nodes.push(node);
  g.parents.push(new Set());
  g.index.set(id, g.nodes.length - 1);
  return g.nodes.length - 1;
}

export function addEdge(g: WorkGraph, from: number | undefined, to: number | undefined): void {
  if (from === undefined || to === undefined || from === to) return;
  g.parents[to]!.add(from);
}
