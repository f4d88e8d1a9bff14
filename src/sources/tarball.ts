// Reads a graph-data .tar.gz into memory as it streams in, held to the limits of a tree (treeLimits.ts)
// entry by entry: reading stops at the first entry over a limit, and nothing is ever written to disk.
// Files and folders only: a link, another kind of entry, or a path that leaves the tree is refused.
import { createReadStream } from 'node:fs';
import { posix } from 'node:path';
import { walkLayer, type Visit } from '../registry/layers.js';
import { MEDIA } from '../registry/manifest.js';
import { MemoryTree } from './memoryTree.js';
import { MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_TREE_ENTRIES } from './treeLimits.js';

/** The tree a tarball holds, or why it was refused. */
export async function readTarball(file: string): Promise<{ tree: MemoryTree } | { problem: string }> {
  const files = new Map<string, Buffer>();
  let entries = 0;
  let total = 0;
  let problem: string | undefined;
  const refuse = (why: string): Visit => {
    problem = why;
    return 'stop';
  };
  try {
    await walkLayer(createReadStream(file), MEDIA.ociLayerGzip, 'the archive', async (e) => {
      entries += 1;
      if (entries > MAX_TREE_ENTRIES)
        return refuse(`more than ${MAX_TREE_ENTRIES} entries, the limit of a graph-data tarball`);
      const path = posix.normalize(e.path).replace(/\/$/, '');
      if (path === '..' || path.startsWith('../')) return refuse(`${e.path}: a path that leaves the tree is refused`);
      const type = e.header.type;
      if (type === 'directory') return 'next';
      if (type === 'symlink' || type === 'link')
        return refuse(`${e.path}: links are not allowed in a graph-data tarball`);
      if (type !== 'file' && type !== 'contiguous-file')
        return refuse(`${e.path}: a ${type} entry is not allowed in a graph-data tarball`);
      const size = e.header.size ?? 0;
      if (size > MAX_FILE_BYTES)
        return refuse(`${e.path}: file is ${size} bytes, more than the limit of ${MAX_FILE_BYTES}`);
      total += size;
      if (total > MAX_TREE_BYTES)
        return refuse(`unpacks to more than ${MAX_TREE_BYTES} bytes, the limit of a graph-data tree`);
      files.set(path, await e.read(MAX_FILE_BYTES));
      return 'next';
    });
  } catch (err) {
    return { problem: `not a readable .tar.gz: ${(err as Error).message}` };
  }
  return problem ? { problem } : { tree: new MemoryTree(underTop(files)) };
}

/** A tarball may hold the tree at its top or inside a single folder; the files by their path in the tree. */
function underTop(files: Map<string, Buffer>): Map<string, Buffer> {
  const paths = [...files.keys()];
  const top = paths[0]?.split('/')[0];
  const prefix = `${top}/`;
  if (top === undefined || !paths.every((p) => p.startsWith(prefix))) return files;
  return new Map([...files].map(([path, data]) => [path.slice(prefix.length), data]));
}
