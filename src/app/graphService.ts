// Keeps the served snapshot: rebuilds from the store, swaps on success, and on failure keeps the
// last good graph and remembers why (readiness and metrics report it). Every graph it builds, the
// served one and previews alike, goes through the signature policy.
import { systemClock, type Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { buildGraph } from '../graph/build.js';
import type { FullGraph, GraphInput, Release } from '../graph/model.js';
import type { Failure, ImportFailure, SourceStatus } from '../schemas/health.js';
import type { StoredSignature } from '../store/signatures.js';
import type { Store } from '../store/store.js';
import { SignaturePolicy } from './signaturePolicy.js';
import { GraphSnapshot, type Membership } from './snapshot.js';

export class GraphService {
  current: GraphSnapshot | undefined;
  lastBuildFailure: Failure | undefined;
  /** A graph-data tree that could not be imported at start, while an older state keeps serving. */
  lastImportFailure: ImportFailure | undefined;
  buildFailures = 0;
  /** The registry sources' status, kept up to date by the sources themselves. */
  sources: SourceStatus[] = [];

  /** The snapshot being served; a 503 for the caller when no graph has been built yet. */
  served(): GraphSnapshot {
    if (!this.current) throw new ApiError('service_unavailable', 'no graph has been built yet');
    return this.current;
  }

  readonly signatures: SignaturePolicy;
  private readonly clock: Clock;

  constructor(
    readonly store: Store,
    options: { signatures?: SignaturePolicy; clock?: Clock } = {},
  ) {
    this.signatures = options.signatures ?? SignaturePolicy.off();
    this.clock = options.clock ?? systemClock;
  }

  /** Why a release is left out of the graph, or undefined when it is served; `signatures` are its payload's. */
  withheld(release: Pick<Release, 'payload'>, signatures: StoredSignature[]): string | undefined {
    if (!this.signatures.required) return undefined;
    return this.signatures.withheld(release, this.signatures.vouchedDigests({ all: () => signatures }));
  }

  /** The graph an input gives, as it would be served (not swapped in). */
  preview(input: GraphInput): FullGraph {
    return buildGraph(this.signatures.apply(input, this.store.signatures));
  }

  /** When each version entered each channel of the input, as the store records it. */
  private membership(input: GraphInput): Membership {
    const out = new Map<string, Map<string, Date>>();
    for (const c of input.channels) {
      const kind = c.internal ? 'internal' : 'public';
      const members = this.store.channels.members(kind, c.name);
      out.set(`${kind}/${c.name}`, new Map(members.map((m) => [m.version, new Date(m.addedAt)])));
    }
    return out;
  }

  /** Builds from the store and swaps the snapshot in; returns false (and keeps serving) on failure. */
  rebuild(): boolean {
    try {
      const input = this.signatures.apply(this.store.input(), this.store.signatures);
      this.current = GraphSnapshot.build(input, new Date(this.clock.now()), this.membership(input));
      this.lastBuildFailure = undefined;
      return true;
    } catch (err) {
      this.buildFailures += 1;
      this.lastBuildFailure = {
        at: new Date(this.clock.now()).toISOString(),
        message: err instanceof Error ? err.message : String(err),
      };
      return false;
    }
  }
}
