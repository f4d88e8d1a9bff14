// Where the files of a graph-data tree are read from: a folder on disk (folderTree.ts), or files held in
// memory (memoryTree.ts: a tarball's, an image's). Paths are relative to the top of the tree and
// '/'-separated ('' is the top itself), whatever the source.

export interface TreeSource {
  /** The names in a folder; undefined when there is no such folder. Throws when the folder cannot be read. */
  names(dir: string): string[] | undefined;
  /** Whether `path` is a folder; false when nothing is there. Throws when that cannot be told. */
  isDir(path: string): boolean;
  /** Whether anything is at `path`; when that cannot be told, true, so that reading it reports why. */
  exists(path: string): boolean;
  /**
   * The bytes of the file at `path`, or why it is not read: not a regular file, outside the tree, or
   * more than `maxBytes` (a file that big is not read at all). Throws when it cannot be read.
   */
  read(path: string, maxBytes: number): Buffer | { problem: string };
}

/** What a file over the size limit is told, whatever its source. */
export const tooLarge = (size: number, maxBytes: number): { problem: string } => ({
  problem: `file is ${size} bytes, more than the limit of ${maxBytes}`,
});
