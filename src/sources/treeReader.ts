// Reads the files of a graph-data tree: size limits (treeLimits.ts), symbolic links kept inside the
// tree, YAML read as the reference implementation reads it (yamlText, yamlValues) with aliases bounded
// by the length they expand to, every problem recorded with its file, and a hash over everything read.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Problem } from '../validation/problems.js';
import { yamlText } from './yamlText.js';
import { MAX_FILE_BYTES } from './treeLimits.js';
import { parseYamlValues } from './yamlValues.js';

export class TreeReader {
  readonly errors: Problem[] = [];
  readonly warnings: Problem[] = [];
  private readonly hash = createHash('sha256');
  private readonly realRoot: string;

  constructor(readonly root: string) {
    this.realRoot = realpathSync(root);
  }

  rel(path: string): string {
    return relative(this.root, path).split(sep).join('/');
  }

  error(file: string, field: string, message: string): void {
    this.errors.push({ file, field, message });
  }

  /** The text of a file, or undefined after recording why it cannot be read. */
  text(path: string): string | undefined {
    return this.bytes(path)?.toString('utf8');
  }

  /** The bytes of a file, or undefined after recording why it cannot be read. */
  bytes(path: string): Buffer | undefined {
    const file = this.rel(path);
    let st;
    try {
      // Resolved in full, so a linked folder on the way cannot lead outside the tree either.
      const target = realpathSync(path);
      if (target !== this.realRoot && !target.startsWith(this.realRoot + sep)) {
        this.error(file, '-', 'symbolic link points outside the graph-data tree');
        return undefined;
      }
      st = statSync(target);
    } catch (err) {
      this.error(file, '-', `cannot read: ${(err as Error).message}`);
      return undefined;
    }
    if (!st.isFile()) {
      this.error(file, '-', 'not a regular file');
      return undefined;
    }
    if (st.size > MAX_FILE_BYTES) {
      this.error(file, '-', `file is ${st.size} bytes, more than the limit of ${MAX_FILE_BYTES}`);
      return undefined;
    }
    const buf = readFileSync(path);
    this.hash.update(file).update('\0').update(buf).update('\0');
    return buf;
  }

  yaml(path: string): unknown {
    const bytes = this.bytes(path);
    if (bytes === undefined) return undefined;
    const decoded = yamlText(bytes);
    if ('problem' in decoded) {
      this.error(this.rel(path), '-', `invalid YAML: ${decoded.problem}`);
      return undefined;
    }
    try {
      return parseYamlValues(decoded.text);
    } catch (err) {
      this.error(this.rel(path), '-', `invalid YAML: ${(err as Error).message.split('\n')[0]}`);
      return undefined;
    }
  }

  json(path: string): unknown {
    const text = this.text(path);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (err) {
      this.error(this.rel(path), '-', `invalid JSON: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Files of a folder with one of the extensions, sorted; none when the folder is absent. */
  list(dir: string, extensions: string[]): string[] {
    return this.entries(dir)
      .filter((n) => extensions.some((e) => n.endsWith(e)))
      .sort()
      .map((n) => join(this.root, dir, n));
  }

  /** Subfolders, links to folders included (the files read through them are checked to stay inside the tree). */
  dirs(dir: string): string[] {
    const isDir = (name: string): boolean => {
      try {
        return statSync(join(this.root, dir, name)).isDirectory();
      } catch (err) {
        if (!absent(err)) this.error(`${dir}/${name}`, '-', `cannot read: ${(err as Error).message}`);
        return false; // a link to nothing is not a folder
      }
    };
    return this.entries(dir).filter(isDir).sort();
  }

  /** The names in a folder of the tree; none when it is absent, and an error recorded when it cannot be read. */
  private entries(dir: string): string[] {
    try {
      return readdirSync(join(this.root, dir));
    } catch (err) {
      if (!absent(err)) this.error(dir, '-', `cannot read the folder: ${(err as Error).message}`);
      return [];
    }
  }

  /** Whether something is at `path`; when that cannot be told, yes, so that reading it reports why. */
  exists(path: string): boolean {
    try {
      lstatSync(path);
      return true;
    } catch (err) {
      return !absent(err);
    }
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** A file's name without its folder and its .yaml, .yml or .json ending. */
export const stem = (path: string): string => path.slice(path.lastIndexOf(sep) + 1).replace(/\.(ya?ml|json)$/, '');

/** Nothing there: the path, or a folder on the way to it, does not exist. */
const absent = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');
