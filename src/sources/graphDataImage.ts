// The graph-data tree out of a container image, as the update service operator's init container copies it:
// the files under /var/lib/cincinnati-graph-data/ of the image's layers, applied bottom to top with OCI
// whiteouts honoured, then read and validated exactly as a directory is.
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import type { RegistryClient } from '../registry/client.js';
import { walkLayer } from '../registry/layers.js';
import type { Manifest } from '../registry/manifest.js';
import { describe, type ImageReference } from '../registry/reference.js';
import { readGraphData, type ReadResult } from './graphData.js';

export const GRAPH_DATA_PREFIX = 'var/lib/cincinnati-graph-data/';
const MAX_TREE_BYTES = 512 * 1024 * 1024;
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface ImageReadResult extends ReadResult {
  /** The manifest digest the tree was read from. */
  digest: string;
}

/** The digest the image's tag points at now (a HEAD request), or its pinned digest. */
export async function currentDigest(client: RegistryClient, image: ImageReference): Promise<string> {
  if (image.digest) return image.digest;
  return (await client.resolve(image.tag!)) ?? (await client.manifest(image.tag!)).digest;
}

export async function readGraphDataImage(client: RegistryClient, image: ImageReference): Promise<ImageReadResult> {
  const name = describe(image);
  const fetched = await client.manifest(image.digest ?? image.tag!);
  const manifest = await singleImage(client, fetched.manifest, name);
  const dir = mkdtempSync(join(tmpdir(), 'cincy-graph-data-image-'));
  try {
    const problem = await flatten(client, manifest, dir, name);
    if (problem)
      return {
        tree: undefined,
        errors: [{ file: name, field: '-', message: problem }],
        warnings: [],
        digest: fetched.digest,
      };
    const root = join(dir, GRAPH_DATA_PREFIX);
    if (!readdirSync(dir).length || !safeExists(root))
      return {
        tree: undefined,
        errors: [{ file: name, field: '-', message: `the image holds no /${GRAPH_DATA_PREFIX} folder` }],
        warnings: [],
        digest: fetched.digest,
      };
    const read = await readGraphData(root);
    // Problems name the image and the file inside it.
    const where = (p: ReadResult['errors'][number]): typeof p => ({ ...p, file: `${name}: ${p.file}` });
    return { ...read, errors: read.errors.map(where), warnings: read.warnings.map(where), digest: fetched.digest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An index of a graph-data image: its first Linux image (graph-data is the same for every architecture). */
async function singleImage(
  client: RegistryClient,
  m: Manifest,
  name: string,
): Promise<Extract<Manifest, { kind: 'image' }>> {
  if (m.kind === 'image') return m;
  const first = m.manifests.find((d) => !d.platform || d.platform.os === 'linux');
  if (!first) throw new Error(`${name}: an index without a Linux image`);
  const member = await client.manifest(first.digest);
  if (member.manifest.kind !== 'image') throw new Error(`${name}: an index inside an index`);
  return member.manifest;
}

/** Applies the layers' entries under the graph-data folder into `dir`; returns why it could not. */
async function flatten(
  client: RegistryClient,
  manifest: Extract<Manifest, { kind: 'image' }>,
  dir: string,
  name: string,
): Promise<string | undefined> {
  let total = 0;
  for (const layer of manifest.layers) {
    const written = new Set<string>();
    let problem: string | undefined;
    await walkLayer(await client.blob(layer.digest), layer.mediaType, `${name} layer ${layer.digest}`, async (e) => {
      const path = posix.normalize(e.path);
      if (!(path + '/').startsWith(GRAPH_DATA_PREFIX) && path !== GRAPH_DATA_PREFIX.slice(0, -1)) return 'next';
      if (e.path.split('/').includes('..')) {
        problem = `${e.path}: a path with '..' is refused`;
        return 'stop';
      }
      const base = posix.basename(path);
      const target = join(dir, path);
      if (base === '.wh..wh..opq') {
        // Opaque folder: what lower layers put there is gone; this layer's own entries stay.
        for (const child of safeList(dirname(target)))
          if (!written.has(posix.join(posix.dirname(path), child)))
            rmSync(join(dirname(target), child), { recursive: true, force: true });
        return 'next';
      }
      if (base.startsWith('.wh.')) {
        rmSync(join(dirname(target), base.slice(4)), { recursive: true, force: true });
        return 'next';
      }
      written.add(path);
      const type = e.header.type;
      if (type === 'directory') {
        mkdirSync(target, { recursive: true });
        return 'next';
      }
      mkdirSync(dirname(target), { recursive: true });
      rmSync(target, { recursive: true, force: true });
      if (type === 'symlink' || type === 'link') {
        const link = e.header.linkname ?? '';
        // A hard link names an image path; a symbolic link is absolute in the image or relative to its folder.
        const resolved =
          type === 'link' || link.startsWith('/')
            ? posix.normalize(link.replace(/^\/+/, ''))
            : posix.normalize(posix.join(posix.dirname(path), link));
        if (!resolved.startsWith(GRAPH_DATA_PREFIX)) {
          problem = `${e.path}: a link to ${link} leaves /${GRAPH_DATA_PREFIX}`;
          return 'stop';
        }
        if (type === 'link') copyFileSync(join(dir, resolved), target);
        else symlinkSync(relative(dirname(target), join(dir, resolved)), target);
        return 'next';
      }
      if (type !== 'file' && type !== 'contiguous-file') return 'next';
      total += e.header.size ?? 0;
      if (total > MAX_TREE_BYTES) {
        problem = `the graph-data files unpack to more than ${MAX_TREE_BYTES} bytes`;
        return 'stop';
      }
      writeFileSync(target, await e.read(MAX_FILE_BYTES));
      return 'next';
    });
    if (problem) return problem;
  }
  return undefined;
}

function safeList(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function safeExists(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
