// Small graph-data trees written to a folder or a .tar.gz, for tests that need one on disk.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tarOf, type TarEntry } from './tar.js';

const PAYLOAD = `quay.example/ocp/release@sha256:${'a'.repeat(64)}`;
export const release = (version: string, extra: object = {}): string =>
  JSON.stringify({
    kind: 'cincinnati-metadata-v0',
    version,
    previous: [],
    next: [],
    metadata: {},
    payload: PAYLOAD,
    architecture: 'amd64',
    ...extra,
  });

/** A small valid tree; `files` overrides or adds files (undefined removes one). */
export function writeTree(root: string, files: Record<string, string | undefined> = {}): string {
  for (const [path, content] of Object.entries(treeFiles(files))) {
    if (content === undefined) continue;
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** The files of writeTree's tree by path, `files` applied. */
function treeFiles(files: Record<string, string | undefined>): Record<string, string | undefined> {
  return {
    version: '1.1.0\n',
    'channels/stable-4.1.yaml': 'name: stable-4.1\nversions:\n- 4.1.0\n- 4.1.1\n',
    'blocked-edges/4.1.1-Risk.yaml':
      'to: 4.1.1\nfrom: 4[.]1[.]0\nurl: https://issues.example/1\nname: Risk\nmessage: It breaks.\nmatchingRules:\n- type: Always\n',
    'releases/amd64/4.1.0.json': release('4.1.0'),
    'releases/amd64/4.1.1.json': release('4.1.1', {
      previous: ['4.1.0'],
      payload: `quay.example/ocp/release@sha256:${'b'.repeat(64)}`,
    }),
    ...files,
  };
}

/** Writes a .tar.gz of the entries (built whole in memory: a hundred thousand small entries take a second). */
export function writeTarball(file: string, entries: Iterable<TarEntry>): string {
  writeFileSync(file, gzipSync(tarOf(entries)));
  return file;
}

/** The files of writeTree's tree, as tarball entries under `folder`. */
export function treeEntries(folder: string, files: Record<string, string | undefined> = {}): TarEntry[] {
  return Object.entries(treeFiles(files)).flatMap(([path, data]) =>
    data === undefined ? [] : [{ name: `${folder}/${path}`, data }],
  );
}
