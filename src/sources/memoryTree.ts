// The files of a graph-data tree held in memory, by their path in the tree: what a tarball or an image
// unpacked to, or a folder read in one walk (treeFingerprint.ts: snapshotFolder), read without writing
// anything to disk. Folders are those the paths name, and those named besides (an empty one, say).
import { tooLarge, type TreeSource } from './treeSource.js';

export class MemoryTree implements TreeSource {
  /** The names in each folder, '' being the top. */
  private readonly folders = new Map<string, Set<string>>([['', new Set()]]);

  constructor(
    private readonly files: ReadonlyMap<string, Buffer>,
    folders: Iterable<string> = [],
  ) {
    for (const path of [...files.keys(), ...folders]) {
      let child = path;
      for (;;) {
        const cut = child.lastIndexOf('/');
        const folder = cut < 0 ? '' : child.slice(0, cut);
        const names = this.folders.get(folder);
        if (names) {
          names.add(child.slice(cut + 1));
          break; // the folders above it are known already
        }
        this.folders.set(folder, new Set([child.slice(cut + 1)]));
        child = folder;
      }
    }
  }

  names(dir: string): string[] | undefined {
    const names = this.folders.get(dir);
    return names && [...names];
  }

  isDir(path: string): boolean {
    return this.folders.has(path);
  }

  exists(path: string): boolean {
    return this.files.has(path) || this.folders.has(path);
  }

  read(path: string, maxBytes: number): Buffer | { problem: string } {
    const data = this.files.get(path);
    if (!data) return { problem: this.folders.has(path) ? 'not a regular file' : 'no such file' };
    return data.length > maxBytes ? tooLarge(data.length, maxBytes) : data;
  }
}
