// A fingerprint of a graph-data folder or tarball as it lies on disk, made without parsing anything:
// the path and bytes of every file under the entries a tree is read from (TREE_ROOTS: what
// sources/graphData.ts reads, so a `.git` or a README beside them changes nothing), or a tarball's own
// bytes, hashed. A restart compares it with the one its store recorded at the last import to know, in
// milliseconds, that the graph it holds is the tree's.
//
// A folder is read for an import as a snapshot (snapshotFolder): its files read once, in this walk, and
// the fingerprint made of those very bytes, so what is imported is what the fingerprint says, whatever
// changes on disk meanwhile. A folder the snapshot gives way on (a link leading outside it, a file that
// is not a regular one, a limit passed) is read file by file as before, with one fingerprint taken before
// and one after, reported only when the two agree (sources/graphData.ts).
import { createHash, type Hash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
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
    return walk(path, hash, undefined) ? hash.digest('hex') : undefined;
  } catch {
    return undefined;
  }
}

/** A folder's tree read once: its files and folders by their path in the tree, and their fingerprint. */
export interface FolderSnapshot {
  files: Map<string, Buffer>;
  folders: string[];
  fingerprint: string;
}

/**
 * The folder at `path` read in one walk, with the fingerprint treeFingerprint gives it; undefined when
 * it is not a folder, or holds what only a read file by file reports as it should: a link that leads
 * outside it or to nothing, a file that is not a regular one, a limit passed, an error.
 */
export function snapshotFolder(path: string): FolderSnapshot | undefined {
  try {
    if (!statSync(path).isDirectory()) return undefined;
    const kept: Kept = { realRoot: realpathSync.native(path), files: new Map(), folders: [] };
    const hash = createHash('sha256');
    if (!walk(path, hash, kept)) return undefined;
    return { files: kept.files, folders: kept.folders, fingerprint: hash.digest('hex') };
  } catch {
    return undefined;
  }
}

type Budget = { entries: number; bytes: number };

/** What a snapshot keeps of the walk; the walk gives up on anything it could not keep as it is. */
type Kept = { realRoot: string; files: Map<string, Buffer>; folders: string[] };

/** Hashes the tree's entries (and keeps them, for a snapshot); false when it gives up. */
function walk(root: string, hash: Hash, kept: Kept | undefined): boolean {
  const budget = { entries: MAX_TREE_ENTRIES, bytes: MAX_TREE_BYTES };
  return TREE_ROOTS.every((top) => entry(root, top, hash, budget, 0, kept));
}

/** Hashes one entry (a folder's in name order); false when a limit is passed, or the snapshot gives up. */
function entry(root: string, path: string, hash: Hash, budget: Budget, depth: number, kept: Kept | undefined): boolean {
  if (--budget.entries < 0 || depth > MAX_DEPTH) return false;
  const full = join(root, path);
  let st;
  try {
    st = statSync(full); // through links, as the tree's reader goes
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // A folder's entry that is not there is a link to nothing, which a snapshot leaves to the reader; so is
    // a top entry that is (found by review: the reader says why it cannot be read, not that it is missing).
    if (kept && (depth > 0 || lexists(full))) return false;
    hash.update(`-\0${path}\0`); // absent: told apart from present
    return true;
  }
  if (st.isDirectory()) {
    hash.update(`d\0${path}\0`);
    kept?.folders.push(path);
    return readdirSync(full)
      .sort()
      .every((name) => entry(root, `${path}/${name}`, hash, budget, depth + 1, kept));
  }
  if (!st.isFile()) {
    if (kept) return false;
    hash.update(`o\0${path}\0`);
    return true;
  }
  // Sized before it is read: a file over the reader's own limit makes no fingerprint, and no large read.
  budget.bytes -= st.size;
  if (st.size > MAX_FILE_BYTES || budget.bytes < 0) return false;
  if (kept) {
    const target = realpathSync.native(full);
    if (target !== kept.realRoot && !target.startsWith(kept.realRoot + sep)) return false;
  }
  const bytes = readFileSync(full);
  hash.update(`f\0${path}\0${bytes.length}\0`).update(bytes);
  kept?.files.set(path, bytes);
  return true;
}

/** Whether anything is at `path` itself, a link to nothing included. */
function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
