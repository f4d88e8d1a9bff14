// One build of the served graph from the store: what the build reads (in one read transaction, so a
// write committed meanwhile is either wholly in or wholly out), the signature policy's cut, and the
// graph. The same function runs on the main thread (an in-memory store) and in the build worker (a
// database file, read over the worker's own connection).
import { buildGraph } from '../../graph/build.js';
import type { FullGraph, GraphInput } from '../../graph/model.js';
import { payloadDigest } from '../../graph/model.js';
import type { Membership } from '../../graph/explain.js';
import type { Store } from '../../store/store.js';

/** What a build hands over to become a snapshot; every part survives a structured clone. */
export interface BuildParts {
  graph: FullGraph;
  /** The input the graph was built from, the withheld releases left out. */
  input: GraphInput;
  membership: Membership;
  buildSeconds: number;
}

/**
 * `vouched`: the payload digests the signature policy serves, or undefined when every release is
 * served (the main thread decides it: it holds the trust keys).
 */
export function readAndBuild(store: Store, vouched: ReadonlySet<string> | undefined): BuildParts {
  const { input, membership } = store.db.transaction(() => {
    const read = store.input();
    const input = vouched
      ? { ...read, releases: read.releases.filter((r) => vouched.has(payloadDigest(r.payload))) }
      : read;
    return { input, membership: membershipOf(store, input) };
  })();
  const started = process.hrtime.bigint();
  const graph = buildGraph(input);
  return { graph, input, membership, buildSeconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** When each version entered each channel of the input, as the store records it. */
function membershipOf(store: Store, input: GraphInput): Membership {
  const out = new Map<string, Map<string, Date>>();
  for (const c of input.channels) {
    const kind = c.internal ? 'internal' : 'public';
    const members = store.channels.members(kind, c.name);
    out.set(`${kind}/${c.name}`, new Map(members.map((m) => [m.version, new Date(m.addedAt)])));
  }
  return out;
}
