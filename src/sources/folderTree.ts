// The files of a graph-data tree in a folder on disk. A symbolic link may lead anywhere inside the tree
// (a folder on the way to a file included) and nowhere outside it.
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { tooLarge, type TreeSource } from './treeSource.js';

export class FolderTree implements TreeSource {
  private readonly realRoot: string;

  constructor(readonly root: string) {
    this.realRoot = realpathSync(root);
  }

  names(dir: string): string[] | undefined {
    try {
      return readdirSync(this.at(dir));
    } catch (err) {
      if (absent(err)) return undefined;
      throw err;
    }
  }

  /** Links to folders count as folders: the files read through them are checked to stay inside the tree. */
  isDir(path: string): boolean {
    try {
      return statSync(this.at(path)).isDirectory();
    } catch (err) {
      if (absent(err)) return false; // a link to nothing is not a folder
      throw err;
    }
  }

  exists(path: string): boolean {
    try {
      lstatSync(this.at(path));
      return true;
    } catch (err) {
      return !absent(err);
    }
  }

  read(path: string, maxBytes: number): Buffer | { problem: string } {
    // Resolved in full, so a linked folder on the way cannot lead outside the tree either (by the
    // system's realpath: one call, where Node's own walks the path a folder at a time).
    const target = realpathSync.native(this.at(path));
    if (target !== this.realRoot && !target.startsWith(this.realRoot + sep))
      return { problem: 'symbolic link points outside the graph-data tree' };
    const st = statSync(target);
    if (!st.isFile()) return { problem: 'not a regular file' };
    if (st.size > maxBytes) return tooLarge(st.size, maxBytes);
    return readFileSync(target);
  }

  private at(path: string): string {
    return join(this.root, ...path.split('/'));
  }
}

/** Nothing there: the path, or a folder on the way to it, does not exist. */
const absent = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');
