// Lookups the checks share: the file each tree item was read from, releases by name, and the nodes
// and update edges of a built graph.

export const releaseFile = (r) => `releases/${r.arch}/${r.version}.json`;
export const channelFile = (c) => `${c.internal ? 'internal-channels' : 'channels'}/${c.name}.yaml`;
export const blockedEdgeFile = (b) => `blocked-edges/${b.id}.yaml`;

/** `hasRelease(ref)`: whether a version (`v`, any arch, or `v+arch`) has a release record. */
export function releaseLookup({ splitArch }, releases) {
  const ids = new Set(releases.map((r) => `${r.version}+${r.arch}`));
  const versions = new Set(releases.map((r) => r.version));
  return (ref) => {
    const { version, arch } = splitArch(ref);
    return arch === undefined ? versions.has(version) : ids.has(`${version}+${arch}`);
  };
}

/**
 * A built graph (FullGraph) seen by node: `nodesNamed(ref)` gives the node indices a `v` or `v+arch`
 * names, `id(i)` is `<version>+<arch>` (what `from` patterns are matched against), `sources(i)` and
 * `conditionalSources(i)` the nodes with an unconditional or a conditional edge into i, and
 * `riskNames(i)` the names of the risks on conditional edges into i.
 */
export function graphLookup({ splitArch }, graph) {
  const byVersion = new Map();
  graph.nodes.forEach((n, i) => byVersion.set(n.version, [...(byVersion.get(n.version) ?? []), i]));
  const sources = graph.nodes.map(() => []);
  for (let f = 0; f < graph.nodes.length; f++) {
    for (let e = graph.edgeOffsets[f]; e < graph.edgeOffsets[f + 1]; e++) sources[graph.edgeTargets[e]].push(f);
  }
  const conditionalSources = graph.nodes.map(() => []);
  const riskNames = graph.nodes.map(() => new Set());
  for (const pair of graph.conditional) {
    conditionalSources[pair.to].push(pair.from);
    for (const r of pair.risks) riskNames[pair.to].add(r.name);
  }
  return {
    nodesNamed(ref) {
      const { version, arch } = splitArch(ref);
      const all = byVersion.get(version) ?? [];
      return arch === undefined ? all : all.filter((i) => graph.nodes[i].arch === arch);
    },
    id: (i) => `${graph.nodes[i].version}+${graph.nodes[i].arch}`,
    sources: (i) => sources[i],
    conditionalSources: (i) => conditionalSources[i],
    riskNames: (i) => riskNames[i],
  };
}
