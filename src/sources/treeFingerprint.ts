// A fingerprint of a graph-data folder or tarball as it lies on disk, made without parsing anything:
// every file's path and bytes (a tarball's own bytes), hashed. It covers at least what reading the tree
// reads, so an equal fingerprint means an equal tree; a restart compares it with the one its store
// recorded at the last import to know, in milliseconds, that the graph it holds is the tree's.
import { createHash, type Hash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_TREE_BYTES, MAX_TREE_ENTRIES } from './treeLimits.js';

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
    return walk(path, '', hash, budget, 0) ? hash.digest('hex') : undefined;
  } catch {
    return undefined;
  }
}

/** Hashes the folder's entries in name order; false when a limit is passed. */
function walk(root: string, dir: string, hash: Hash, budget: { entries: number; bytes: number }, depth: number) {
  if (depth > MAX_DEPTH) return false;
  const entries = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (--budget.entries < 0) return false;
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    // A link is taken for what it leads to, as the tree's reader takes it.
    const kind = entry.isSymbolicLink() ? statSync(join(root, path)) : entry;
    if (kind.isDirectory()) {
      hash.update(`d\0${path}\0`);
      if (!walk(root, path, hash, budget, depth + 1)) return false;
    } else if (kind.isFile()) {
      const bytes = readFileSync(join(root, path));
      budget.bytes -= bytes.length;
      if (budget.bytes < 0) return false;
      hash.update(`f\0${path}\0${bytes.length}\0`).update(bytes);
    } else hash.update(`o\0${path}\0`);
  }
  return true;
}
