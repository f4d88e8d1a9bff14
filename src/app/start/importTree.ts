// The tree given at start (a graph-data folder or .tar.gz), read when first asked: its signatures verified
// and the tree imported, in one transaction that writes nothing when anything fails. A tree the store
// has imported before is skipped (and reported unchanged).
import type { Log } from '../../log.js';
import type { ReadResult } from '../../sources/graphData.js';
import { verifyTreeSignatures, type TrustStore } from '../../signatures/verify.js';
import { StoreUnavailable } from '../../store/sql.js';
import { ImportRejected, type Store } from '../../store/store.js';
import { formatProblem } from '../../validation/problems.js';

export interface GivenTree {
  /** A graph-data directory or .tar.gz. */
  path: string;
  /** What the import is recorded as coming from (the path, or the demo's source). */
  source: string;
  /** Its read, started at the first call; the same each call. */
  read(): Promise<ReadResult>;
  /**
   * Its files' fingerprint on disk (sources/treeFingerprint.ts), made when called, or the one the start made
   * already; undefined when it cannot be made. Asked once, and only when the store holds an import to compare.
   */
  fingerprint(): string | undefined;
}

/** What importing the given tree came to: the problems that rejected it, or whether it changed the store. */
export type GivenTreeOutcome = { problems: string[] } | { problems: []; changed: boolean };

/**
 * Imports the tree; returns the problems that rejected it, none when it was imported. Whatever fails
 * on the way (a problem of the tree, a limit, an exception in reading or storing) rejects the import,
 * and the caller keeps serving what the store has; only a database that cannot be reached throws
 * (StoreUnavailable), for the start to wait for it.
 */
export async function importGivenTree(
  store: Store,
  tree: GivenTree,
  trust: TrustStore,
  log: Log,
  now: Date,
): Promise<GivenTreeOutcome> {
  try {
    const read = await tree.read();
    for (const w of read.warnings) log.warn({ warning: formatProblem(w) }, 'graph-data warning');
    if (!read.tree) return { problems: read.errors.map(formatProblem) };
    const signatures = await verifyTreeSignatures(read.tree.signatures, trust, now);
    for (const w of signatures.warnings) log.warn({ warning: formatProblem(w) }, 'graph-data signature refused');
    const summary = await store.importTree(read.tree, {
      source: tree.source,
      signatures: signatures.verified,
      // What the read saw, unchanged from its start to its end: the fingerprint of what is imported.
      fingerprint: read.fingerprint,
    });
    if (summary.skipped) log.info({ contentHash: summary.contentHash }, 'graph-data unchanged since the last import');
    else log.info({ summary }, 'graph-data imported');
    return { problems: [], changed: !summary.skipped || summary.signatures.added > 0 };
  } catch (err) {
    if (err instanceof StoreUnavailable) throw err;
    if (err instanceof ImportRejected) return { problems: err.problems.map(formatProblem) };
    return { problems: [`${tree.path}: -: the import failed: ${err instanceof Error ? err.message : String(err)}`] };
  }
}
