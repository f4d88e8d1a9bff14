// The last stage of a build: nodes sorted by semver then arch, edges renumbered and stored in
// compressed rows, conditional pairs sorted, their risks in the served form.
import { SemVer } from 'semver';
import type { ConditionalPair, FullGraph, Risk } from './model.js';
import type { WorkGraph } from './workGraph.js';

/** Sorts nodes by semver then arch, renumbers edges, and makes the conditional pairs canonical. */
export function finish(g: WorkGraph): FullGraph {
  const parsed = g.nodes.map((n) => new SemVer(n.version));
  const order = g.nodes
    .map((_, i) => i)
    .filter((i) => !g.removed.has(i))
    .sort(
      (a, b) =>
        parsed[a]!.compare(parsed[b]!) ||
        cmp(g.nodes[a]!.arch, g.nodes[b]!.arch) ||
        cmp(g.nodes[a]!.version, g.nodes[b]!.version),
    );
  const renumber = new Map<number, number>();
  order.forEach((old, i) => renumber.set(old, i));
  const nodes = order.map((old) => {
    const n = g.nodes[old]!;
    if (n.metadata) n.metadata = sortKeys(n.metadata);
    return n;
  });

  // Unconditional edges in compressed rows: the targets of node i are edgeTargets[edgeOffsets[i] .. edgeOffsets[i+1]).
  const outgoing: number[][] = nodes.map(() => []);
  g.parents.forEach((parents, to) => {
    const t = renumber.get(to);
    if (t === undefined) return;
    for (const p of parents) {
      const f = renumber.get(p);
      if (f !== undefined) outgoing[f]!.push(t);
    }
  });
  const edgeOffsets = new Int32Array(nodes.length + 1);
  outgoing.forEach((targets, i) => (edgeOffsets[i + 1] = edgeOffsets[i]! + targets.length));
  const edgeTargets = new Int32Array(edgeOffsets[nodes.length]!);
  outgoing.forEach((targets, i) =>
    edgeTargets.set(
      targets.sort((a, b) => a - b),
      edgeOffsets[i]!,
    ),
  );

  // Pairs with the same risks share one array and one short key: there are few distinct risk sets.
  const riskIds = riskIdentities(g);
  const shared = new Map<string, Risk[]>();
  const conditional: ConditionalPair[] = [];
  for (const [to, froms] of g.conditional) {
    const t = renumber.get(to);
    if (t === undefined) continue;
    for (const [from, risks] of froms) {
      const f = renumber.get(from);
      if (f === undefined) continue;
      // In the order the build appended them, which is the order the reference serves them in.
      const riskKey = risks.map((r) => riskIds.get(r)!).join(',');
      let same = shared.get(riskKey);
      if (!same) shared.set(riskKey, (same = risks.map(canonicalRisk)));
      conditional.push({ from: f, to: t, risks: same, riskKey });
    }
  }
  conditional.sort((a, b) => a.from - b.from || a.to - b.to);
  return {
    nodes,
    edgeTargets,
    edgeOffsets,
    conditional,
    conditionalOffsets: offsets(
      conditional.map((c) => c.from),
      nodes.length,
    ),
    warnings: g.warnings,
  };
}

/** A number per distinct risk content: risks equal in every served field get the same one. */
function riskIdentities(g: WorkGraph): Map<Risk, number> {
  const byContent = new Map<string, number>();
  const out = new Map<Risk, number>();
  for (const froms of g.conditional.values()) {
    for (const risks of froms.values()) {
      for (const r of risks) {
        if (out.has(r)) continue;
        const content = JSON.stringify(canonicalRisk(r));
        let id = byContent.get(content);
        if (id === undefined) byContent.set(content, (id = byContent.size));
        out.set(r, id);
      }
    }
  }
  return out;
}

/** Start offsets per node of a list sorted by source node. */
function offsets(sources: number[], n: number): Int32Array {
  const out = new Int32Array(n + 1);
  for (const s of sources) out[s + 1]! += 1;
  for (let i = 0; i < n; i++) out[i + 1]! += out[i]!;
  return out;
}

/** The served form of a risk, with its keys in the served order. */
function canonicalRisk(r: Risk): Risk {
  return { url: r.url, name: r.name, message: r.message, matchingRules: r.matchingRules };
}

function sortKeys(md: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(md).sort()) out[k] = md[k]!;
  return out;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
