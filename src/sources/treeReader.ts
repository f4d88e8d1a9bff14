// Reads the files of a graph-data tree from its source (a folder, or a tarball or image in memory): the
// limits of a tree (treeLimits.ts), YAML read as the reference implementation reads it (yamlText,
// yamlValues) with aliases bounded by the length they expand to, every problem recorded with its file,
// and a hash over everything read. Paths are the source's: relative to the top, '/'-separated.
import { createHash } from 'node:crypto';
import type { Problem } from '../validation/problems.js';
import { MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_TREE_ENTRIES } from './treeLimits.js';
import type { TreeSource } from './treeSource.js';
import { yamlText } from './yamlText.js';
import { parseYamlValues } from './yamlValues.js';

export class TreeReader {
  readonly errors: Problem[] = [];
  readonly warnings: Problem[] = [];
  private readonly hash = createHash('sha256');
  private filesRead = 0;
  private bytesRead = 0;
  /** Set once the tree is over a limit of a whole tree: nothing more is read. */
  private overLimit = false;

  constructor(private readonly source: TreeSource) {}

  error(file: string, field: string, message: string): void {
    this.errors.push({ file, field, message });
  }

  /**
   * Runs `read`, which reads the file at `path`. Whatever it throws is recorded as a problem of that
   * file, so the failure names it and the rest of the tree is still read (and the tree refused).
   */
  attempt<T>(path: string, read: () => T): T | undefined {
    try {
      return read();
    } catch (err) {
      this.error(path, '-', `cannot be read: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /** The text of a file, or undefined after recording why it cannot be read. */
  text(path: string): string | undefined {
    return this.bytes(path)?.toString('utf8');
  }

  /** The bytes of a file, or undefined after recording why it cannot be read. */
  bytes(path: string): Buffer | undefined {
    if (this.overLimit) return undefined;
    let read;
    try {
      read = this.source.read(path, MAX_FILE_BYTES);
    } catch (err) {
      this.error(path, '-', `cannot read: ${(err as Error).message}`);
      return undefined;
    }
    if ('problem' in read) {
      this.error(path, '-', read.problem);
      return undefined;
    }
    this.filesRead += 1;
    this.bytesRead += read.length;
    if (this.filesRead > MAX_TREE_ENTRIES || this.bytesRead > MAX_TREE_BYTES) {
      this.overLimit = true;
      const limit =
        this.filesRead > MAX_TREE_ENTRIES ? `${MAX_TREE_ENTRIES} files` : `${MAX_TREE_BYTES} bytes of files`;
      this.error(path, '-', `the tree is over its limit of ${limit} here; nothing more is read`);
      return undefined;
    }
    this.hash.update(path).update('\0').update(read).update('\0');
    return read;
  }

  yaml(path: string): unknown {
    const bytes = this.bytes(path);
    if (bytes === undefined) return undefined;
    const decoded = yamlText(bytes);
    if ('problem' in decoded) {
      this.error(path, '-', `invalid YAML: ${decoded.problem}`);
      return undefined;
    }
    try {
      return parseYamlValues(decoded.text);
    } catch (err) {
      this.error(path, '-', `invalid YAML: ${(err as Error).message.split('\n')[0]}`);
      return undefined;
    }
  }

  json(path: string): unknown {
    const text = this.text(path);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (err) {
      this.error(path, '-', `invalid JSON: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Files of a folder with one of the extensions, sorted; none when the folder is absent. */
  list(dir: string, extensions: string[]): string[] {
    return this.entries(dir)
      .filter((n) => extensions.some((e) => n.endsWith(e)))
      .sort()
      .map((n) => `${dir}/${n}`);
  }

  /** Subfolders, links to folders included (the files read through them are checked to stay inside the tree). */
  dirs(dir: string): string[] {
    const isDir = (name: string): boolean => {
      try {
        return this.source.isDir(`${dir}/${name}`);
      } catch (err) {
        this.error(`${dir}/${name}`, '-', `cannot read: ${(err as Error).message}`);
        return false;
      }
    };
    return this.entries(dir).filter(isDir).sort();
  }

  /** The names in a folder of the tree; none when it is absent, and an error recorded when it cannot be read. */
  private entries(dir: string): string[] {
    try {
      return this.source.names(dir) ?? [];
    } catch (err) {
      this.error(dir, '-', `cannot read the folder: ${(err as Error).message}`);
      return [];
    }
  }

  /** Whether something is at `path`; when that cannot be told, yes, so that reading it reports why. */
  exists(path: string): boolean {
    return this.source.exists(path);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** A file's name without its folder and its .yaml, .yml or .json ending. */
export const stem = (path: string): string => path.slice(path.lastIndexOf('/') + 1).replace(/\.(ya?ml|json)$/, '');
