// Hostile graph-data tarballs read in this process: each is refused naming the file and the limit, and
// nothing of a refused tarball is written to disk; a valid one is read. That `serve` keeps serving a
// stored graph through them is in test/e2e/hostile-trees.test.ts.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGraphData } from '../../../src/sources/graphData.js';
import { MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_TREE_ENTRIES } from '../../../src/sources/treeLimits.js';
import { formatProblem } from '../../../src/validation/problems.js';
import { useCleanup } from '../../support/cleanup.js';
import type { TarEntry } from '../../support/tar.js';
import { treeEntries, writeTarball } from '../../support/trees.js';

const cleanup = useCleanup();

/** A fresh folder for os.tmpdir() of the code under test (it reads TMPDIR), to see what it leaves there. */
function privateTmp(): string {
  const tmp = join(cleanup.dir(), 'tmp');
  mkdirSync(tmp);
  return tmp;
}

/** Reads `file` with os.tmpdir() in a fresh folder; what it read, and what it left in that folder. */
async function readLeaving(file: string): Promise<{ problems: string[]; left: string[] }> {
  const tmp = privateTmp();
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const read = await readGraphData(file);
    expect(read.tree).toBeUndefined();
    return { problems: read.errors.map(formatProblem), left: readdirSync(tmp) };
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** Entries past the limit of a tarball: empty files, after a valid tree. */
function* manyEntries(): Generator<TarEntry> {
  yield* treeEntries('graph-data');
  for (let i = 0; i <= MAX_TREE_ENTRIES; i++) yield { name: `graph-data/extra/${i}` };
}

/** Files of zeros (a few KiB compressed) that together unpack past the limit of a tree. */
function* pastTreeBytes(): Generator<TarEntry> {
  yield* treeEntries('graph-data');
  const zeros = Buffer.alloc(MAX_FILE_BYTES);
  for (let i = 0; i <= MAX_TREE_BYTES / MAX_FILE_BYTES; i++) yield { name: `graph-data/extra/${i}`, data: zeros };
}

describe('reliability finding 6: hostile tarballs', () => {
  it(`refuses a tarball of more than ${MAX_TREE_ENTRIES} entries as they arrive, writing nothing to disk`, async () => {
    const file = writeTarball(join(cleanup.dir(), 'many.tar.gz'), manyEntries());
    expect(await readLeaving(file)).toEqual({
      problems: [`${file}: -: more than ${MAX_TREE_ENTRIES} entries, the limit of a graph-data tarball`],
      left: [],
    });
  }, 120_000);

  it('refuses a small tarball that unpacks past the limit of a tree, or holds a file past the limit of a file', async () => {
    const big = writeTarball(join(cleanup.dir(), 'big.tar.gz'), pastTreeBytes());
    expect(await readLeaving(big)).toEqual({
      problems: [`${big}: -: unpacks to more than ${MAX_TREE_BYTES} bytes, the limit of a graph-data tree`],
      left: [],
    });
    const huge = writeTarball(join(cleanup.dir(), 'huge.tar.gz'), [
      ...treeEntries('graph-data'),
      { name: 'graph-data/raw/metadata.json', data: Buffer.alloc(MAX_FILE_BYTES + 1, ' ') },
    ]);
    expect(await readLeaving(huge)).toEqual({
      problems: [
        `${huge}: -: graph-data/raw/metadata.json: file is ${MAX_FILE_BYTES + 1} bytes, more than the limit of ${MAX_FILE_BYTES}`,
      ],
      left: [],
    });
  }, 120_000);

  it('reads a valid tree from a tarball, at its top or inside one folder', async () => {
    const dir = cleanup.dir();
    for (const folder of ['graph-data', '.']) {
      const file = writeTarball(join(dir, 'tree.tar.gz'), treeEntries(folder));
      const r = await readGraphData(file);
      expect(r.errors).toEqual([]);
      expect(r.tree!.releases).toHaveLength(2);
    }
    writeFileSync(join(dir, 'not.tar.gz'), 'not gzip');
    expect((await readGraphData(join(dir, 'not.tar.gz'))).errors[0]!.message).toMatch(/^not a readable \.tar\.gz: /);
  });
});
