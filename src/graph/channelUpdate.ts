// A build after a write that changed only channels (a promotion, a withdrawal, a channel put): edges
// do not depend on channels, so the new graph is the old one with the channel lists (and their
// metadata label) of the versions involved recomputed. Costs a pass over the nodes instead of a
// build, and gives exactly what buildGraph gives for the same input (test/service/graph/channelUpdate.test.ts).
import type { Channel, FullGraph, GraphInput, GraphNode, Membership } from './model.js';
import { LABEL } from './model.js';
import { compareChannelNames, splitArch } from './version.js';

export interface ChannelChange {
  kind: 'public' | 'internal';
  name: string;
  /** The channel as the store holds it now; undefined when it was deleted. */
  channel: Channel | undefined;
  /** When each of its versions entered it. */
  members: ReadonlyMap<string, Date>;
}

export interface ChannelUpdate {
  graph: FullGraph;
  input: GraphInput;
  membership: Membership;
  /** Public channels whose served views may differ: the changed ones, and those of every node whose channel list changed. */
  affected: Set<string>;
}

/**
 * The graph, input and membership with `changes` applied; undefined when a node would leave its
 * last public channel (its channels label would then fall back to what the release metadata says,
 * which only a build knows), so the caller builds instead.
 */
export function applyChannelChanges(
  graph: FullGraph,
  input: GraphInput,
  membership: Membership,
  changes: ChannelChange[],
): ChannelUpdate | undefined {
  const key = (kind: string, name: string): string => `${kind}/${name}`;
  const changed = new Map(changes.map((c) => [key(c.kind, c.name), c]));
  const channels = input.channels.filter((c) => !changed.has(key(c.internal ? 'internal' : 'public', c.name)));
  for (const c of changes) if (c.channel) channels.push(c.channel);
  // The order the store reads them in (kind, then name), so the input equals a fresh read.
  channels.sort(
    (a, b) => cmp(a.internal ? 'internal' : 'public', b.internal ? 'internal' : 'public') || cmp(a.name, b.name),
  );

  const nextMembership = new Map(membership);
  for (const c of changes) {
    if (c.channel) nextMembership.set(key(c.kind, c.name), c.members);
    else nextMembership.delete(key(c.kind, c.name));
  }

  // The versions named by the changed public channels, before and after: only their nodes can change.
  const touched = new Set<string>();
  const before = new Map(input.channels.map((c) => [key(c.internal ? 'internal' : 'public', c.name), c]));
  for (const c of changes) {
    if (c.kind !== 'public') continue;
    for (const v of [...(before.get(key(c.kind, c.name))?.versions ?? []), ...(c.channel?.versions ?? [])])
      touched.add(splitArch(v.trim()).version);
  }
  const affected = new Set(changes.filter((c) => c.kind === 'public').map((c) => c.name));
  if (touched.size === 0) return { graph, input: { ...input, channels }, membership: nextMembership, affected };

  // Which public channels name each version (plain, or with its `+arch`).
  const publicChannels = channels.filter((c) => !c.internal).sort((a, b) => compareChannelNames(a.name, b.name));
  const naming = new Map<string, string[]>();
  for (const c of publicChannels) {
    for (const entry of new Set(c.versions.map((v) => v.trim()))) {
      if (!touched.has(splitArch(entry).version)) continue;
      const list = naming.get(entry);
      if (list) list.push(c.name);
      else naming.set(entry, [c.name]);
    }
  }
  const order = new Map(publicChannels.map((c, i) => [c.name, i]));

  const nodes: GraphNode[] = graph.nodes.slice();
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    if (!touched.has(node.version)) continue;
    const names = [
      ...new Set([...(naming.get(node.version) ?? []), ...(naming.get(`${node.version}+${node.arch}`) ?? [])]),
    ];
    names.sort((a, b) => order.get(a)! - order.get(b)!);
    if (sameList(names, node.channels)) continue;
    if (names.length === 0 && node.channels.length > 0) return undefined;
    for (const c of [...node.channels, ...names]) affected.add(c);
    nodes[i] = { ...node, channels: names, metadata: node.metadata && withLabel(node.metadata, names.join(',')) };
  }
  return { graph: { ...graph, nodes }, input: { ...input, channels }, membership: nextMembership, affected };
}

/** The metadata with the channels label set, keys kept sorted as a build leaves them. */
function withLabel(md: Record<string, string>, value: string): Record<string, string> {
  const next: Record<string, string> = { ...md, [LABEL.channels]: value };
  if (LABEL.channels in md) return next;
  const out: Record<string, string> = {};
  for (const k of Object.keys(next).sort()) out[k] = next[k]!;
  return out;
}

const sameList = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
