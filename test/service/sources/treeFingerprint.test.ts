// The fingerprint of a tree on disk (src/sources/treeFingerprint.ts): equal for equal files, different
// when any file, name or folder the reader reads changes, and absent when the tree cannot be read. And
// the snapshot of a folder: the same fingerprint, a tree read from it equal to one read file by file, and
// given way on whatever only a read file by file reports.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderTree } from '../../../src/sources/folderTree.js';
import { readGraphData, readTree } from '../../../src/sources/graphData.js';
import { snapshotFolder, treeFingerprint } from '../../../src/sources/treeFingerprint.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../../support/conformance.js';
import { treeEntries, writeTarball, writeTree } from '../../support/trees.js';

const dirs: string[] = [];
const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'cincy-fingerprint-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('treeFingerprint', () => {
  it('is the same for the same files, wherever the tree is', () => {
    const a = treeFingerprint(writeTree(dir()));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(treeFingerprint(writeTree(dir()))).toBe(a);
  });

  it('changes with a byte, a file added or a name in what the reader reads, and only there', () => {
    const base = treeFingerprint(writeTree(dir()));
    const variants = [
      { 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0]\n' },
      { 'blocked-edges/new.yaml': 'to: 4.1.1\nfrom: .*\n' },
      { 'raw/metadata.json': '{}' },
    ];
    const seen = new Set([base]);
    for (const files of variants) seen.add(treeFingerprint(writeTree(dir(), files)));
    expect(seen.size).toBe(variants.length + 1);
    // A README and a .git beside the tree are not the tree.
    expect(treeFingerprint(writeTree(dir(), { 'README.md': 'notes\n', '.git/HEAD': 'ref: refs/heads/main\n' }))).toBe(
      base,
    );
  });

  it('follows a link to a folder, and takes a tarball by its bytes', () => {
    const tree = writeTree(dir());
    const outside = dir();
    writeFileSync(join(outside, 'extra.yaml'), 'to: 4.1.1\nfrom: .*\n');
    const before = treeFingerprint(tree);
    symlinkSync(outside, join(tree, 'blocked-edges', 'linked'));
    expect(treeFingerprint(tree)).not.toBe(before);
    const tarball = writeTarball(join(dir(), 'tree.tar.gz'), treeEntries('graph-data'));
    expect(treeFingerprint(tarball)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is absent for a path that cannot be read', () => {
    expect(treeFingerprint(join(dir(), 'nothing-here'))).toBeUndefined();
  });
});

describe('snapshotFolder', () => {
  it.runIf(conformanceAvailable())(
    'reads the real tree once: the fingerprint of the walk, and the tree a read file by file gives',
    async () => {
      const path = join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data');
      const snapshot = snapshotFolder(path)!;
      expect(snapshot.files.size).toBeGreaterThan(1000);
      expect(snapshot.fingerprint).toBe(treeFingerprint(path));
      const read = await readGraphData(path);
      expect(read.fingerprint).toBe(snapshot.fingerprint);
      const fileByFile = readTree(new FolderTree(path));
      expect(read.errors).toEqual([]);
      expect(read.tree).toEqual(fileByFile.tree);
      expect(read.warnings).toEqual(fileByFile.warnings);
    },
  );

  it('keeps empty folders, so the reader sees them as a read file by file does', async () => {
    const tree = writeTree(dir());
    mkdirSync(join(tree, 'internal-channels'), { recursive: true });
    mkdirSync(join(tree, 'releases', 's390x'), { recursive: true });
    const snapshot = snapshotFolder(tree)!;
    expect(snapshot.folders).toEqual(expect.arrayContaining(['internal-channels', 'releases/s390x']));
    const read = await readGraphData(tree);
    expect(read.tree).toEqual(readTree(new FolderTree(tree)).tree);
  });

  it('gives way on a link outside the tree or to nothing, a file that is not regular, and a tarball', async () => {
    const outside = dir();
    writeFileSync(join(outside, 'extra.yaml'), 'to: 4.1.1\nfrom: .*\n');
    const linkedOut = writeTree(dir());
    symlinkSync(join(outside, 'extra.yaml'), join(linkedOut, 'blocked-edges', 'extra.yaml'));
    const dangling = writeTree(dir());
    symlinkSync(join(outside, 'gone.yaml'), join(dangling, 'blocked-edges', 'gone.yaml'));
    const fifo = writeTree(dir());
    execFileSync('mkfifo', [join(fifo, 'blocked-edges', 'pipe.yaml')]);
    const danglingTop = writeTree(dir());
    rmSync(join(danglingTop, 'version'));
    symlinkSync(join(outside, 'gone'), join(danglingTop, 'version'));
    for (const tree of [linkedOut, dangling, fifo, danglingTop]) expect(snapshotFolder(tree), tree).toBeUndefined();
    expect((await readGraphData(danglingTop)).errors.map((e) => `${e.file}: ${e.message}`)).toEqual([
      expect.stringMatching(/^version: cannot read: ENOENT/),
    ]);
    expect(snapshotFolder(writeTarball(join(dir(), 'tree.tar.gz'), treeEntries('graph-data')))).toBeUndefined();
    // Read file by file then, each says what is wrong and where.
    const problems = (await readGraphData(linkedOut)).errors.map((e) => `${e.file}: ${e.message}`);
    expect(problems).toContain('blocked-edges/extra.yaml: symbolic link points outside the graph-data tree');
    expect((await readGraphData(fifo)).errors.map((e) => `${e.file}: ${e.message}`)).toContain(
      'blocked-edges/pipe.yaml: not a regular file',
    );
  });

  it('holds the bytes it hashed: a file changed after the walk is not what the snapshot imports', () => {
    const tree = writeTree(dir());
    const snapshot = snapshotFolder(tree)!;
    const before = snapshot.files.get('channels/stable-4.1.yaml')!.toString();
    writeFileSync(join(tree, 'channels', 'stable-4.1.yaml'), 'name: stable-4.1\nversions: [4.1.0]\n');
    expect(snapshot.files.get('channels/stable-4.1.yaml')!.toString()).toBe(before);
    expect(treeFingerprint(tree)).not.toBe(snapshot.fingerprint);
  });
});
