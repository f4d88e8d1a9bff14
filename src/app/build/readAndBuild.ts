// One build of the served graph from the store: what the build reads (in one read transaction, so a
// write committed meanwhile is either wholly in or wholly out), the signature policy's cut, and the
// graph. The same function runs on the main thread (an in-memory store) and in the build worker (a
// database file or PostgreSQL, read over the worker's own connection).
import { buildGraph } from '../../graph/build.js';
import type { FullGraph, GraphInput, Membership } from '../../graph/model.js';
import { channelsAt, governingRollouts, graphDataRollouts } from '../../graph/phasing.js';
import type { Rollout } from '../../graph/rollouts.js';
import { payloadDigest } from '../../graph/model.js';
import type { ChannelMember } from '../../store/channels.js';
import type { Store } from '../../store/store.js';

/** What a build hands over to become a snapshot; every part survives a structured clone. */
export interface BuildParts {
  graph: FullGraph;
  /** The input the graph was built from, the withheld releases left out. */
  input: GraphInput;
  membership: Membership;
  buildSeconds: number;
  /** How many stored releases the signature policy left out. */
  withheld: number;
  /** The id of the newest audit entry the read saw (graph history attributes changes by it). */
  auditMark?: number;
  /** The store's generation the read saw (PostgreSQL; 0 on SQLite): orders the snapshots of replicas. */
  storeMark?: number;
  /** The phased rollouts that decide what is served (graph/phasing.ts: governingRollouts). */
  rollouts?: Rollout[];
  /** When a timed version of graph-data 2.x enters its channel next: the graph is built again then. */
  nextStart?: number;
}

/**
 * `vouched`: the payload digests the signature policy serves, or undefined when every release is
 * served (the main thread decides it: it holds the trust keys).
 */
export async function readAndBuild(
  store: Store,
  vouched: ReadonlySet<string> | undefined,
  now: number,
): Promise<BuildParts> {
  const read = await store.read(async (tx) => ({
    ...(await tx.inputAndMembers()),
    auditMark: await tx.audit.newestId(),
    storeMark: await tx.history.storeGeneration(),
    stored: await tx.rollouts.all(),
  }));
  const { members } = read;
  const stored = read.input.releases.length;
  // Graph-data 2.x's timed versions enter their channels at their start.
  const { channels, nextStart } = channelsAt(read.input.channels, now);
  const input: GraphInput = {
    ...read.input,
    channels,
    releases: vouched ? read.input.releases.filter((r) => vouched.has(payloadDigest(r.payload))) : read.input.releases,
  };
  const rollouts = governingRollouts(read.stored, graphDataRollouts(read.input.channels));
  const membership = membershipOf(input, members);
  const started = process.hrtime.bigint();
  const graph = buildGraph(input);
  const buildSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const withheld = stored - input.releases.length;
  const { auditMark, storeMark } = read;
  return {
    ...{ graph, input, membership, buildSeconds, withheld, auditMark, storeMark, rollouts },
    ...(nextStart !== undefined && { nextStart }),
  };
}

/** When each version entered each channel of the input, as the store records it. */
function membershipOf(input: GraphInput, members: ChannelMember[]): Membership {
  const out = new Map<string, Map<string, Date>>();
  for (const c of input.channels) out.set(`${c.internal ? 'internal' : 'public'}/${c.name}`, new Map());
  for (const m of members) out.get(`${m.kind}/${m.channel}`)?.set(m.version, new Date(m.addedAt));
  return out;
}
