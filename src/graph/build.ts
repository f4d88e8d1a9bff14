// Builds the full update graph from release records and graph-data, one stage after the other as
// the openshift/cincinnati graph-builder does: nodes, edges (previous and next), edge labels
// (previous/next add and remove), conditional edges from blocked-edges, edge removals, node removal.
// Pure: no I/O. The stages are exported separately so the graph-builder fixture can run them on a
// scraped graph that has edges but no release records.
import { finish } from './finish.js';
import type { BlockedEdge, FullGraph, GraphInput, Release } from './model.js';
import { COMMA_LIST_LABELS, LABEL, payloadDigest } from './model.js';
import { compilePattern } from './pattern.js';
import { referenceReadOrder } from './referenceReadOrder.js';
import { compareChannelNames, splitArch } from './version.js';
import { addEdge, addNode, emptyGraph, nodeId, type WorkGraph } from './workGraph.js';

export function buildGraph(input: GraphInput): FullGraph {
  const g = releaseGraph(input.releases);
  // Both stages below take the blocked edges in the order the reference reads their files, worked out once.
  const blockedEdges = inReferenceReadOrder(input.blockedEdges);
  applySecondaryMetadata(g, { ...input, blockedEdges });
  applyEdgeLabelsAndRisks(g, blockedEdges);
  return finish(g);
}

/** Stage 1-2: one node per release, edges from `previous` and `next` of the same architecture. */
export function releaseGraph(releases: Release[]): WorkGraph {
  const g = emptyGraph();
  for (const r of releases) {
    const metadata = { ...r.metadata };
    const digest = payloadDigest(r.payload);
    if (digest.startsWith('sha256:')) metadata[LABEL.manifestref] = digest;
    if (r.arch === 'multi') metadata[LABEL.architecture] = 'multi';
    addNode(g, { version: r.version, arch: r.arch, payload: r.payload, metadata, channels: [] });
  }
  releases.forEach((r, i) => {
    for (const p of r.previous) addEdge(g, resolve(g, p, r.arch), i);
    for (const n of r.next) addEdge(g, i, resolve(g, n, r.arch));
  });
  return g;
}

/** A version name of the same architecture as the release naming it; undefined when no such release. */
function resolve(g: WorkGraph, name: string, arch: string): number | undefined {
  const ref = splitArch(name.trim());
  if (ref.arch !== undefined && ref.arch !== arch) return undefined;
  return g.index.get(nodeId(ref.version, arch));
}

/** The nodes a version written in graph-data names: every arch, or the one its `+arch` names. */
function nodesNamed(g: WorkGraph, byVersion: Map<string, number[]>, text: string): number[] {
  const ref = splitArch(text.trim());
  const all = byVersion.get(ref.version) ?? [];
  return ref.arch === undefined ? all : all.filter((i) => g.nodes[i]!.arch === ref.arch);
}

function versionsIndex(g: WorkGraph): Map<string, number[]> {
  const byVersion = new Map<string, number[]>();
  g.nodes.forEach((n, i) => {
    const list = byVersion.get(n.version);
    if (list) list.push(i);
    else byVersion.set(n.version, [i]);
  });
  return byVersion;
}

/**
 * Secondary metadata (the reference's openshift_secondary_metadata_parser): raw metadata merged into
 * every arch of a version, channel membership, and `previous.remove_regex` from blocked edges, joined in
 * the order given (buildGraph gives the reference's read order: inReferenceReadOrder).
 */
export function applySecondaryMetadata(g: WorkGraph, input: Omit<GraphInput, 'releases'>): void {
  const byVersion = versionsIndex(g);
  for (const version of Object.keys(input.rawMetadata).sort()) {
    for (const i of nodesNamed(g, byVersion, version)) {
      const md = g.nodes[i]!.metadata;
      if (md) mergeMetadata(md, input.rawMetadata[version]!);
    }
  }
  const publicChannels = input.channels.filter((c) => !c.internal).sort((a, b) => compareChannelNames(a.name, b.name));
  for (const channel of publicChannels) {
    for (const entry of channel.versions) {
      for (const i of nodesNamed(g, byVersion, entry)) {
        const node = g.nodes[i]!;
        if (!node.channels.includes(channel.name)) node.channels.push(channel.name);
      }
    }
  }
  for (const node of g.nodes) {
    if (node.metadata && node.channels.length > 0) node.metadata[LABEL.channels] = node.channels.join(',');
  }
  for (const edge of input.blockedEdges) {
    for (const i of nodesNamed(g, byVersion, edge.to)) {
      const md = g.nodes[i]!.metadata;
      if (!md) continue;
      const current = md[LABEL.previousRemoveRegex];
      md[LABEL.previousRemoveRegex] = current === undefined || current === '' ? edge.from : `${current}|${edge.from}`;
    }
  }
}

/** Merges raw metadata: new keys are set, existing ones get `,value`, comma-list labels never repeat an item. */
export function mergeMetadata(target: Record<string, string>, extra: Record<string, string>): void {
  for (const [key, value] of Object.entries(extra)) {
    const current = target[key];
    if (current === undefined) target[key] = value;
    else if (COMMA_LIST_LABELS.has(key)) target[key] = joinList([...splitList(current), ...splitList(value)]);
    else target[key] = `${current},${value}`;
  }
}

const splitList = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
const joinList = (items: string[]): string => [...new Set(items)].join(',');

/**
 * Blocked edges in the order the reference lists their files (`<id>.yaml`) in its blocked-edges folder; two
 * edges of one id (a.yaml beside a.yml) both stay, in the order given.
 */
export function inReferenceReadOrder(edges: BlockedEdge[]): BlockedEdge[] {
  const byFile = new Map<string, BlockedEdge[]>();
  for (const e of edges) byFile.set(`${e.id}.yaml`, [...(byFile.get(`${e.id}.yaml`) ?? []), e]);
  return referenceReadOrder([...byFile.keys()]).flatMap((f) => byFile.get(f)!);
}

/**
 * Stages 3-6: edge labels add edges; risk files turn matching edges into conditional ones; removal
 * labels and hard blocks remove unconditional edges only; `release.remove` drops nodes. Risks are appended
 * in the order the blocked edges are given (buildGraph gives the reference's read order).
 */
export function applyEdgeLabelsAndRisks(g: WorkGraph, blockedEdges: BlockedEdge[]): void {
  const byVersion = versionsIndex(g);
  g.nodes.forEach((node, i) => {
    const md = node.metadata ?? {};
    for (const p of splitList(md[LABEL.previousAdd] ?? '')) addEdge(g, resolve(g, p, node.arch), i);
    for (const n of splitList(md[LABEL.nextAdd] ?? '')) addEdge(g, i, resolve(g, n, node.arch));
  });

  const ids = g.nodes.map((n) => nodeId(n.version, n.arch));
  // Risks are appended in the order the reference reads their files, which is the order it serves them in.
  for (const edge of blockedEdges) {
    const risk = edge.risk;
    if (!risk) continue;
    const from = compilePattern(edge.from);
    for (const to of nodesNamed(g, byVersion, edge.to)) {
      for (const p of g.parents[to]!) {
        if (!from.test(ids[p]!)) continue;
        let froms = g.conditional.get(to);
        if (!froms) g.conditional.set(to, (froms = new Map()));
        const risks = froms.get(p);
        if (!risks) froms.set(p, [risk]);
        else if (!risks.some((r) => r.name === risk.name)) risks.push(risk); // the first file read wins
      }
    }
  }
  // A conditional pair is no longer unconditional, so no removal below can touch it.
  for (const [to, froms] of g.conditional) for (const p of froms.keys()) g.parents[to]!.delete(p);

  g.nodes.forEach((node, i) => {
    const md = node.metadata ?? {};
    const parents = g.parents[i]!;
    const remove = md[LABEL.previousRemove];
    if (remove !== undefined) {
      if (remove.trim() === '*') parents.clear();
      else
        for (const p of splitList(remove)) {
          const j = resolve(g, p, node.arch);
          if (j !== undefined) parents.delete(j);
        }
    }
    const regex = md[LABEL.previousRemoveRegex];
    if (regex !== undefined && regex !== '') removeMatching(g, ids, i, regex);
    for (const n of splitList(md[LABEL.nextRemove] ?? '')) {
      const j = resolve(g, n, node.arch);
      if (j !== undefined) g.parents[j]!.delete(i);
    }
  });
  // Hard blocks again, file by file: the joined remove_regex label above already holds them, but a
  // node without metadata has no label, and one bad pattern there must not cancel the others.
  for (const edge of blockedEdges) {
    if (edge.risk) continue;
    for (const to of nodesNamed(g, byVersion, edge.to)) removeMatching(g, ids, to, edge.from);
  }
  g.nodes.forEach((node, i) => {
    if ((node.metadata?.[LABEL.remove] ?? '').trim() === 'true') g.removed.add(i);
  });
}

function removeMatching(g: WorkGraph, ids: string[], to: number, source: string): void {
  let pattern;
  try {
    pattern = compilePattern(source);
  } catch (err) {
    g.warnings.push(`${ids[to]}: ${LABEL.previousRemoveRegex}: ${(err as Error).message}`);
    return;
  }
  const parents = g.parents[to]!;
  for (const p of parents) if (pattern.test(ids[p]!)) parents.delete(p); // deleting while iterating a Set is safe
}
