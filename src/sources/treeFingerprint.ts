// A fingerprint of a graph-data folder or tarball as it lies on disk, made without parsing anything:
// the path and bytes of every file under the entries a tree is read from (TREE_ROOTS: what
// sources/graphData.ts reads, so a `.git` or a README beside them changes nothing), or a tarball's own
// bytes, hashed. A restart compares it with the one its store recorded at the last import to know, in
// milliseconds, that the graph it holds is the tree's. `readGraphData` takes one before and one after it
// reads, and reports it only when the two agree: a tree that changed while it was read has none.
import { createHash, type Hash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_TREE_ENTRIES } from './treeLimits.js';

/** The entries of a tree's top folder that its reader reads; the rest is not the tree's. */
const TREE_ROOTS = ['version', 'channels', 'internal-channels', 'blocked-edges', 'releases', 'signatures', 'raw'];

/** Folders inside folders followed at most (links may make a loop). */
const MAX_DEPTH = 16;

/** The fingerprint of the tree at `path`; undefined when it cannot be made (unreadable, over a limit). */
export function treeFingerprint(path: string): string | undefined {
  try {
    const st = statSync(path);
    const hash = createHash('sha256');
    if (st.isFile()) {
      if (st.size > MAX_TREE_BYTES) return undefined;
      return hash.update('tarball\0').update(readFileSync(path)).digest('hex');
    }
    const budget = { entries: MAX_TREE_ENTRIES, bytes: MAX_TREE_BYTES };
    for (const root of TREE_ROOTS) if (!entry(path, root, hash, budget, 0)) return undefined;
    return hash.digest('hex');
  } catch {
    return undefined;
  }
}

type Budget = { entries: number; bytes: number };

/** Hashes one entry (a folder's in name order); false when a limit is passed. */
function entry(root: string, path: string, hash: Hash, budget: Budget, depth: number): boolean {
  if (--budget.entries < 0 || depth > MAX_DEPTH) return false;
  let st;
  try {
    st = statSync(join(root, path)); // through links, as the tree's reader goes
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    hash.update(`-\0${path}\0`); // absent: told apart from present
    return true;
  }
  if (st.isDirectory()) {
    hash.update(`d\0${path}\0`);
    return readdirSync(join(root, path))
      .sort()
      .every((name) => entry(root, `${path}/${name}`, hash, budget, depth + 1));
  }
  if (!st.isFile()) {
    hash.update(`o\0${path}\0`);
    return true;
  }
  // Sized before it is read: a file over the reader's own limit makes no fingerprint, and no large read.
  budget.bytes -= st.size;
  if (st.size > MAX_FILE_BYTES || budget.bytes < 0) return false;
  const bytes = readFileSync(join(root, path));
  hash.update(`f\0${path}\0${bytes.length}\0`).update(bytes);
  return true;
}
