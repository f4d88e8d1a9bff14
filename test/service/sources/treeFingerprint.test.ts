// The fingerprint of a tree on disk (src/sources/treeFingerprint.ts): equal for equal files, different
// when any file, name or folder the reader reads changes, and absent when the tree cannot be read.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { treeFingerprint } from '../../../src/sources/treeFingerprint.js';
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
