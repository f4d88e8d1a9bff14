// The tree serve is given, read so that a start waits the least for it. An import (a new or changed
// tree) waits for the read, so it begins at once, in a worker thread, while the main thread loads the
// rest of the service. A restart on the tree the store imported last (the same fingerprint of its files,
// the import's record peeked at in the SQLite file) serves the stored graph first; its read then waits
// until it is asked for, after that graph, and leaves the other core to the first build meanwhile.
import { lastImportIn } from '../store/lastImport.js';
import type { ReadResult } from './graphData.js';
import { readGraphDataInWorker } from './readInWorker.js';
import { treeFingerprint } from './treeFingerprint.js';

export interface TreeAtStart {
  path: string;
  /** Starts the read when it has not started yet; the same read each call. */
  read(): Promise<ReadResult>;
  /** The fingerprint already made, when the store's last import had it. */
  fingerprint?: string;
  /**
   * The store is a SQLite file whose last import is not this tree as it lies on disk now (or that has none
   * yet): the start imports the tree before its first graph. Unknown, false, for a store not peeked at
   * (PostgreSQL, memory), where the import at start is often skipped as unchanged.
   */
  importsFirst: boolean;
}

/** A tree's read as the start takes it, wherever it came from. */
export type TreeRead = Omit<TreeAtStart, 'path'>;

/** `storeFile`: the SQLite file the store opens, if it is one (sqlite peeked at read-only, never made). */
export function treeAtStart(path: string, storeFile: string | undefined, signal: AbortSignal): TreeAtStart {
  let reading: Promise<ReadResult> | undefined;
  const read = (): Promise<ReadResult> => (reading ??= readGraphDataInWorker(path, signal));
  const last = storeFile === undefined ? undefined : lastImportIn(storeFile);
  const fingerprint = last?.fingerprint ? treeFingerprint(path) : undefined;
  const held = fingerprint !== undefined && fingerprint === last?.fingerprint;
  if (!held) void read().catch(() => {});
  const importsFirst = storeFile !== undefined && !held;
  return { path, read, importsFirst, ...(fingerprint !== undefined && { fingerprint }) };
}
