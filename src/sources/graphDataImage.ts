// The graph-data tree out of a container image, as the update service operator's init container copies it:
// the files under /var/lib/cincinnati-graph-data/ of the image's layers, applied bottom to top with OCI
// whiteouts honoured in memory, then read and validated exactly as a directory is (nothing is written to disk).
import { posix } from 'node:path';
import type { RegistryClient } from '../registry/client.js';
import { walkLayer } from '../registry/layers.js';
import type { RegistryManifest } from '../registry/manifest.js';
import { describe, type ImageReference } from '../registry/reference.js';
import { readTree, type ReadResult } from './graphData.js';
import { MemoryTree } from './memoryTree.js';
import { MAX_FILE_BYTES, MAX_TREE_BYTES } from './treeLimits.js';

export const GRAPH_DATA_PREFIX = 'var/lib/cincinnati-graph-data/';

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
  const flat = await flatten(client, manifest, name);
  if ('problem' in flat)
    return {
      tree: undefined,
      errors: [{ file: name, field: '-', message: flat.problem }],
      warnings: [],
      digest: fetched.digest,
    };
  const read = readTree(new MemoryTree(flat.files));
  // Problems name the image and the file inside it.
  const where = (p: ReadResult['errors'][number]): typeof p => ({ ...p, file: `${name}: ${p.file}` });
  return { ...read, errors: read.errors.map(where), warnings: read.warnings.map(where), digest: fetched.digest };
}

/** An index of a graph-data image: its first Linux image (graph-data is the same for every architecture). */
async function singleImage(
  client: RegistryClient,
  m: RegistryManifest,
  name: string,
): Promise<Extract<RegistryManifest, { kind: 'image' }>> {
  if (m.kind === 'image') return m;
  const first = m.manifests.find((d) => !d.platform || d.platform.os === 'linux');
  if (!first) throw new Error(`${name}: an index without a Linux image`);
  const member = await client.manifest(first.digest);
  if (member.manifest.kind !== 'image') throw new Error(`${name}: an index inside an index`);
  return member.manifest;
}

/** A path of the flattened tree (relative to the graph-data folder) and what is there. */
type Node = { kind: 'dir' } | { kind: 'file'; data: Buffer } | { kind: 'symlink'; target: string };

/**
 * Applies the layers bottom to top in memory; returns the files of the tree by their path in it (a link
 * to a file being that file), or why it could not.
 */
async function flatten(
  client: RegistryClient,
  manifest: Extract<RegistryManifest, { kind: 'image' }>,
  name: string,
): Promise<{ files: Map<string, Buffer> } | { problem: string }> {
  const tree = new Map<string, Node>();
  let total = 0;
  const removeUnder = (path: string, keep: (p: string) => boolean = () => false): void => {
    for (const p of [...tree.keys()])
      if ((path === '' || p === path || p.startsWith(`${path}/`)) && !keep(p)) tree.delete(p);
  };
  const root = GRAPH_DATA_PREFIX.slice(0, -1); // var/lib/cincinnati-graph-data
  for (const layer of manifest.layers) {
    const written = new Set<string>();
    let problem: string | undefined;
    await walkLayer(await client.blob(layer.digest), layer.mediaType, `${name} layer ${layer.digest}`, async (e) => {
      if (e.path.split('/').includes('..')) {
        if (!`${posix.normalize(e.path)}/`.startsWith(GRAPH_DATA_PREFIX)) return 'next';
        problem = `${e.path}: a path with '..' is refused`;
        return 'stop';
      }
      const path = posix.normalize(e.path).replace(/\/$/, '');
      const folder = posix.dirname(path);
      const base = posix.basename(path);
      // A whiteout of the graph-data folder or of a folder above it: what lower layers put there is gone.
      if (base.startsWith('.wh.') && `${root}/`.startsWith(`${folder}/`)) {
        const gone = base === '.wh..wh..opq' ? folder : posix.join(folder, base.slice(4));
        if (`${root}/`.startsWith(`${gone}/`)) removeUnder('', (p) => written.has(p));
        return 'next';
      }
      if (!path.startsWith(GRAPH_DATA_PREFIX)) return 'next';
      const rel = path.slice(GRAPH_DATA_PREFIX.length);
      const relFolder = posix.dirname(rel) === '.' ? '' : posix.dirname(rel);
      if (base === '.wh..wh..opq') {
        // Opaque folder: what lower layers put anywhere under it is gone; this layer's own entries stay.
        removeUnder(relFolder, (p) => written.has(p) || p === relFolder);
        return 'next';
      }
      if (base.startsWith('.wh.')) {
        removeUnder(posix.join(relFolder, base.slice(4)));
        return 'next';
      }
      // Nothing is written through a link: a path under a symbolic link is refused.
      for (let up = relFolder; up && up !== '.'; up = posix.dirname(up) === '.' ? '' : posix.dirname(up))
        if (tree.get(up)?.kind === 'symlink') {
          problem = `${e.path}: a path through the link ${GRAPH_DATA_PREFIX}${up} is refused`;
          return 'stop';
        }
      written.add(rel);
      const type = e.header.type;
      if (type === 'directory') {
        if (tree.get(rel)?.kind !== 'dir') removeUnder(rel);
        tree.set(rel, { kind: 'dir' });
        return 'next';
      }
      removeUnder(rel);
      if (type === 'symlink' || type === 'link') {
        const link = e.header.linkname ?? '';
        // A hard link names an image path; a symbolic link is absolute in the image or relative to its folder.
        const target =
          type === 'link' || link.startsWith('/')
            ? posix.normalize(link.replace(/^\/+/, ''))
            : posix.normalize(posix.join(folder, link));
        if (!target.startsWith(GRAPH_DATA_PREFIX)) {
          problem = `${e.path}: a link to ${link} leaves /${GRAPH_DATA_PREFIX}`;
          return 'stop';
        }
        const to = target.slice(GRAPH_DATA_PREFIX.length);
        if (type === 'symlink') tree.set(rel, { kind: 'symlink', target: to });
        else {
          const source = tree.get(to);
          if (source?.kind !== 'file') {
            problem = `${e.path}: a hard link to ${link}, which is not a file of the tree`;
            return 'stop';
          }
          total += source.data.length;
          tree.set(rel, source);
        }
        return total > MAX_TREE_BYTES ? ((problem = tooBig), 'stop') : 'next';
      }
      if (type !== 'file' && type !== 'contiguous-file') return 'next';
      if ((e.header.size ?? 0) > MAX_FILE_BYTES) {
        problem = `${e.path}: file is ${e.header.size} bytes, more than the limit of ${MAX_FILE_BYTES}`;
        return 'stop';
      }
      total += e.header.size ?? 0;
      if (total > MAX_TREE_BYTES) {
        problem = tooBig;
        return 'stop';
      }
      tree.set(rel, { kind: 'file', data: await e.read(MAX_FILE_BYTES) });
      return 'next';
    });
    if (problem) return { problem };
  }
  if (!tree.size) return { problem: `the image holds no /${GRAPH_DATA_PREFIX} folder` };
  const files = new Map<string, Buffer>();
  for (const [rel, node] of tree) {
    if (node.kind === 'file') files.set(rel, node.data);
    else if (node.kind === 'symlink') {
      // A link to a file of the tree is that file's content; to a folder, or in a loop, it is refused.
      let at = node.target;
      for (let hops = 0; hops < 16 && tree.get(at)?.kind === 'symlink'; hops++)
        at = (tree.get(at) as { target: string }).target;
      const end = tree.get(at);
      if (end?.kind !== 'file')
        return { problem: `${GRAPH_DATA_PREFIX}${rel}: a link to ${node.target}, which is not a file of the tree` };
      files.set(rel, end.data);
    }
  }
  return { files };
}

const tooBig = `the graph-data files unpack to more than ${MAX_TREE_BYTES} bytes`;
