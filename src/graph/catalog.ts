// What the served graph offers, in brief: its architectures and, per public channel, how many
// releases of each architecture it serves. The web page picks a channel from it without downloading
// every channel's versions.
import type { FullGraph } from './model.js';
import { compareChannelNames } from './version.js';

export interface Catalog {
  arches: string[];
  channels: Array<{ name: string; releases: Record<string, number> }>;
}

export function catalogOf(graph: FullGraph, publicChannels: Iterable<string>): Catalog {
  const counts = new Map<string, Record<string, number>>();
  for (const name of publicChannels) counts.set(name, {});
  const arches = new Set<string>();
  for (const node of graph.nodes) {
    arches.add(node.arch);
    for (const channel of node.channels) {
      const perArch = counts.get(channel);
      if (perArch) perArch[node.arch] = (perArch[node.arch] ?? 0) + 1;
    }
  }
  return {
    arches: [...arches].sort(),
    channels: [...counts].sort(([a], [b]) => compareChannelNames(a, b)).map(([name, releases]) => ({ name, releases })),
  };
}
