// The reference graph-builder fixture (cincinnati-gb-*): the build stages below HTTP, on a scraped
// graph with every architecture, before channel and arch filtering.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyEdgeLabelsAndRisks, applySecondaryMetadata, inReferenceReadOrder } from '../../../src/graph/build.js';
import { addEdge, addNode, emptyGraph, type WorkGraph } from '../../../src/graph/workGraph.js';
import { finish } from '../../../src/graph/finish.js';
import { LABEL } from '../../../src/graph/model.js';
import { splitArch } from '../../../src/graph/version.js';
import { readGraphData } from '../../../src/sources/graphData.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../../support/conformance.js';

interface RawGraph {
  nodes: Array<{ version: string; payload: string; metadata?: Record<string, string> }>;
  edges: Array<[number, number]>;
}

function workGraph(raw: RawGraph): WorkGraph {
  const g = emptyGraph();
  for (const n of raw.nodes) {
    const { version, arch } = splitArch(n.version);
    addNode(g, {
      version,
      arch: arch ?? 'amd64',
      payload: n.payload,
      metadata: n.metadata && { ...n.metadata },
      channels: [],
    });
  }
  for (const [from, to] of raw.edges) addEdge(g, from, to);
  return g;
}

/** The unconditional edges of a finished graph as [from, to] pairs of node indexes. */
function edgeList(graph: ReturnType<typeof finish>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let f = 0; f < graph.nodes.length; f++)
    for (let e = graph.edgeOffsets[f]!; e < graph.edgeOffsets[f + 1]!; e++) out.push([f, graph.edgeTargets[e]!]);
  return out;
}

/** Nodes with their metadata (without the removal keys the fixture ignores) and edges by version. */
function comparable(g: WorkGraph) {
  const full = finish(g);
  const ignored = new Set<string>([LABEL.previousRemove, LABEL.previousRemoveRegex]);
  const nodes = full.nodes.map((n) => ({
    version: `${n.version}+${n.arch}`,
    payload: n.payload,
    metadata: n.metadata && Object.fromEntries(Object.entries(n.metadata).filter(([k]) => !ignored.has(k))),
  }));
  const edges = edgeList(full)
    .map(([a, b]) => `${nodes[a]!.version} -> ${nodes[b]!.version}`)
    .sort();
  return { nodes, edges };
}

const sets = (): string[] =>
  readdirSync(CONFORMANCE_DIR)
    .filter((d) => d.startsWith('cincinnati-gb-'))
    .sort();

describe.runIf(conformanceAvailable())('graph-builder stages on the reference fixture', () => {
  for (const set of conformanceAvailable() ? sets() : []) {
    it(`${set}: secondary metadata then edge labels reproduce the expected graph`, async () => {
      const dir = join(CONFORMANCE_DIR, set);
      const read = await readGraphData(join(dir, 'cincinnati-graph-data'));
      expect(read.errors).toEqual([]);
      const tree = read.tree!;
      const ours = workGraph(JSON.parse(readFileSync(join(dir, 'graph-gb-raw.json'), 'utf8')) as RawGraph);
      const blockedEdges = inReferenceReadOrder(tree.blockedEdges);
      applySecondaryMetadata(ours, { ...tree, blockedEdges });
      applyEdgeLabelsAndRisks(ours, blockedEdges);
      const expected = workGraph(
        JSON.parse(readFileSync(join(dir, 'graph-gb-with-quay-metadata.json'), 'utf8')) as RawGraph,
      );
      applyEdgeLabelsAndRisks(expected, []);
      const got = comparable(ours);
      const want = comparable(expected);
      expect(got.nodes).toEqual(want.nodes);
      expect(got.edges).toEqual(want.edges);
      console.log(`${set}: ${got.nodes.length} nodes, ${got.edges.length} edges, as expected`);
    });
  }
});
