// Unpacks a graph-data .tar.gz into a folder: no links, and a cap on the unpacked size.
import * as tar from 'tar';

const MAX_TARBALL_BYTES = 512 * 1024 * 1024;

/** Unpacks `file` into `dir`; returns why it could not, or undefined. */
export async function extractTarball(file: string, dir: string): Promise<string | undefined> {
  let total = 0;
  let problem: string | undefined;
  try {
    await tar.x({
      file,
      cwd: dir,
      strict: true,
      filter: (entryPath, entry) => {
        const e = entry as tar.ReadEntry;
        if (e.type === 'SymbolicLink' || e.type === 'Link') {
          problem ??= `${entryPath}: links are not allowed in a graph-data tarball`;
          return false;
        }
        total += e.size ?? 0;
        if (total > MAX_TARBALL_BYTES) {
          problem ??= `unpacks to more than ${MAX_TARBALL_BYTES} bytes`;
          return false;
        }
        return true;
      },
    });
  } catch (err) {
    return `not a readable .tar.gz: ${(err as Error).message}`;
  }
  return problem;
}
