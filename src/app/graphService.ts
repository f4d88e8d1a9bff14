// Keeps the served snapshot: rebuilds from the store, swaps on success, and on failure keeps the
// last good graph and remembers why (readiness and metrics report it).
import type { Store } from '../store/store.js';
import { GraphSnapshot } from './snapshot.js';
import { payloadDigest } from '../graph/model.js';
import { TrustStore } from '../signatures/verify.js';

export interface Failure {
  at: string;
  message: string;
}

export class GraphService {
  current: GraphSnapshot | undefined;
  lastBuildFailure: Failure | undefined;
  /** A graph-data tree that could not be imported at start, while an older state keeps serving. */
  lastImportFailure: (Failure & { problems: string[] }) | undefined;
  buildFailures = 0;

  readonly requireSignatures: boolean;
  private readonly trust: TrustStore;
  private readonly now: () => Date;

  constructor(readonly store: Store, options: { requireSignatures?: boolean; trust?: TrustStore; now?: () => Date } = {}) {
    this.requireSignatures = options.requireSignatures ?? false;
    this.trust = options.trust ?? TrustStore.empty();
    this.now = options.now ?? (() => new Date());
  }

  /** Digests with a stored signature that the current trust keys still vouch for (a key removed or revoked since counts no more). */
  vouchedDigests(): Set<string> {
    return new Set(this.store.signatures.all().filter((s) => this.trust.vouches(s.envelope, s.keyId, new Date(s.verifiedAt))).map((s) => s.digest));
  }

  /** Why a release is left out of the graph, or undefined when it is served. */
  withheld(release: { payload: string }, vouched: ReadonlySet<string> = this.vouchedDigests()): string | undefined {
    if (!this.requireSignatures || vouched.has(payloadDigest(release.payload))) return undefined;
    return 'no signature of its payload digest is vouched for by the trusted keys, and the server runs with --require-signatures';
  }

  /** Builds from the store and swaps the snapshot in; returns false (and keeps serving) on failure. */
  rebuild(): boolean {
    try {
      const input = this.store.input();
      if (this.requireSignatures) {
        const vouched = this.vouchedDigests();
        input.releases = input.releases.filter((r) => this.withheld(r, vouched) === undefined);
      }
      this.current = GraphSnapshot.build(input, this.now());
      this.lastBuildFailure = undefined;
      return true;
    } catch (err) {
      this.buildFailures += 1;
      this.lastBuildFailure = { at: this.now().toISOString(), message: err instanceof Error ? err.message : String(err) };
      return false;
    }
  }
}
