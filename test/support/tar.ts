// Tar archives built whole in memory from test data, with node-tar's header encoder: a hundred thousand
// small entries take about a second (tar-stream's packer, a stream per entry, takes over twenty).
import { Header } from 'tar';

/** One entry of a tar: a file (with `data`), a folder or a link. */
export interface TarEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink';
  linkname?: string;
  data?: Buffer | string;
  /** By default 0o755 for a folder, 0o777 for a link, 0o644 for a file. */
  mode?: number;
}

const TAR_TYPES = { file: 'File', directory: 'Directory', symlink: 'SymbolicLink' } as const;
const DEFAULT_MODES = { file: 0o644, directory: 0o755, symlink: 0o777 } as const;

/** A 512-byte header of `entry` whose body is `size` bytes long, owned by root. */
export function tarHeader(entry: TarEntry, size: number, mtime: Date): Buffer {
  const type = entry.type ?? 'file';
  const header = new Header({
    path: entry.name,
    type: TAR_TYPES[type],
    linkpath: entry.linkname,
    size,
    mode: entry.mode ?? DEFAULT_MODES[type],
    uid: 0,
    gid: 0,
    mtime,
  });
  header.encode();
  return header.block!;
}

/** The uncompressed tar of `entries`, in the order given, every time `mtime` (so the same input gives the same bytes). */
export function tarOf(entries: Iterable<TarEntry>, mtime = new Date(0)): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.data ?? '');
    blocks.push(tarHeader(entry, body.length, mtime), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024)); // the end of the archive: two empty blocks
  return Buffer.concat(blocks);
}
