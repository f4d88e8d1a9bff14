// Keeps the served snapshot: rebuilds from the store, swaps on success, and on failure keeps the
// last good graph and remembers why (readiness and metrics report it).
import type { Store } from '../store/store.js';
import { GraphSnapshot } from './snapshot.js';

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

  constructor(readonly store: Store, private readonly now: () => Date = () => new Date()) {}

  /** Builds from the store and swaps the snapshot in; returns false (and keeps serving) on failure. */
  rebuild(): boolean {
    try {
      this.current = GraphSnapshot.build(this.store.input(), this.now());
      this.lastBuildFailure = undefined;
      return true;
    } catch (err) {
      this.buildFailures += 1;
      this.lastBuildFailure = { at: this.now().toISOString(), message: err instanceof Error ? err.message : String(err) };
      return false;
    }
  }
}
