// The graph-data tree out of a container image, as the update service operator's init container copies it:
// the files under /var/lib/cincinnati-graph-data/ of the image's layers, applied bottom to top with OCI
// whiteouts honoured in memory, then read and validated exactly as a directory is (nothing is written to disk).
import { posix } from 'node:path';
import type { RegistryClient } from '../registry/client.js';
import { walkLayer } from '../registry/layers.js';
import type { RegistryManifest } from '../registry/manifest.js';
import { describe, type ImageReference } from '../registry/reference.js';
import type { ReadResult } from './graphData.js';
import { MemoryTree } from './memoryTree.js';
import { MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_TREE_ENTRIES } from './treeLimits.js';

export const IMAGE_TREE_FOLDER = 'var/lib/cincinnati-graph-data/';

export interface ImageReadResult extends ReadResult {
  /** The manifest digest the tree was read from. */
  digest: string;
}

/** The digest the image's tag points at now (a HEAD request), or its pinned digest. */
export async function currentDigest(
  client: RegistryClient,
  image: ImageReference,
  signal?: AbortSignal,
): Promise<string> {
  if (image.digest) return image.digest;
  return (await client.resolve(image.tag!, signal)) ?? (await client.manifest(image.tag!, signal)).digest;
}

export async function readGraphDataImage(
  client: RegistryClient,
  image: ImageReference,
  signal?: AbortSignal,
): Promise<ImageReadResult> {
  const name = describe(image);
  const fetched = await client.manifest(image.digest ?? image.tag!, signal);
  const manifest = await singleImage(client, fetched.manifest, name, signal);
  const flat = await flatten(client, manifest, name, signal);
  if ('problem' in flat)
    return {
      tree: undefined,
      errors: [{ file: name, field: '-', message: flat.problem }],
      warnings: [],
      digest: fetched.digest,
    };
  // The tree reader (with its YAML parsers) is loaded at the first image read, not at start.
  const { readTree } = await import('./graphData.js');
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
  signal: AbortSignal | undefined,
): Promise<Extract<RegistryManifest, { kind: 'image' }>> {
  if (m.kind === 'image') return m;
  const first = m.manifests.find((d) => !d.platform || d.platform.os === 'linux');
  if (!first) throw new Error(`${name}: an index without a Linux image`);
  const member = await client.manifest(first.digest, signal);
  if (member.manifest.kind !== 'image') throw new Error(`${name}: an index inside an index`);
  return member.manifest;
}

/** A path of the flattened tree (relative to the graph-data folder) and what is there. */
type Node = { kind: 'dir' } | { kind: 'file'; data: Buffer } | { kind: 'symlink'; target: string };

/**
 * The flattened tree as layers are applied: its nodes by path, and each folder's children, so a whiteout
 * removes a subtree in the time its size takes (never a scan of the whole tree).
 */
class LayeredTree {
  readonly nodes = new Map<string, Node>();
  private readonly children = new Map<string, Set<string>>();

  get(path: string): Node | undefined {
    return this.nodes.get(path);
  }

  set(path: string, node: Node): void {
    if (!this.nodes.has(path)) {
      const parent = parentOf(path);
      let kids = this.children.get(parent);
      if (!kids) this.children.set(parent, (kids = new Set()));
      kids.add(path);
    }
    this.nodes.set(path, node);
  }

  /** Removes `path` and everything under it, except what `keep` names ('' is the top: everything). */
  removeUnder(path: string, keep: (p: string) => boolean = () => false): void {
    const visit = (p: string): boolean => {
      // Whether p itself is kept (a kept entry keeps the folders above it).
      let kept = false;
      for (const child of [...(this.children.get(p) ?? [])]) if (visit(child)) kept = true;
      if (p === '') return kept;
      if (kept || keep(p)) return true;
      this.nodes.delete(p);
      this.children.delete(p);
      this.children.get(parentOf(p))?.delete(p);
      return false;
    };
    if (path === '' || this.nodes.has(path)) visit(path);
  }
}

const parentOf = (path: string): string => {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
};

/**
 * Applies the layers bottom to top in memory; returns the files of the tree by their path in it (a link
 * to a file being that file), or why it could not. The entries under the graph-data folder are counted
 * across layers against the limit of a tree.
 */
async function flatten(
  client: RegistryClient,
  manifest: Extract<RegistryManifest, { kind: 'image' }>,
  name: string,
  signal: AbortSignal | undefined,
): Promise<{ files: Map<string, Buffer> } | { problem: string }> {
  const tree = new LayeredTree();
  let total = 0;
  let entries = 0;
  const root = IMAGE_TREE_FOLDER.slice(0, -1); // var/lib/cincinnati-graph-data
  for (const layer of manifest.layers) {
    const written = new Set<string>();
    // A folder made opaque once in a layer holds only this layer's entries: doing it again changes nothing.
    const opaque = new Set<string>();
    const opaqueOnce = (folder: string, keep: (p: string) => boolean): void => {
      if (opaque.has(folder)) return;
      opaque.add(folder);
      tree.removeUnder(folder, keep);
    };
    let problem: string | undefined;
    const blob = await client.blob(layer.digest, signal);
    await walkLayer(blob, layer.mediaType, `${name} layer ${layer.digest}`, async (e) => {
      if (e.path.split('/').includes('..')) {
        if (!`${posix.normalize(e.path)}/`.startsWith(IMAGE_TREE_FOLDER)) return 'next';
        problem = `${e.path}: a path with '..' is refused`;
        return 'stop';
      }
      const path = posix.normalize(e.path).replace(/\/$/, '');
      const folder = posix.dirname(path);
      const base = posix.basename(path);
      // A whiteout of the graph-data folder or of a folder above it: what lower layers put there is gone.
      if (base.startsWith('.wh.') && `${root}/`.startsWith(`${folder}/`)) {
        const gone = base === '.wh..wh..opq' ? folder : posix.join(folder, base.slice(4));
        if (`${root}/`.startsWith(`${gone}/`)) opaqueOnce('', (p) => written.has(p));
        return 'next';
      }
      if (!path.startsWith(IMAGE_TREE_FOLDER)) return 'next';
      if (++entries > MAX_TREE_ENTRIES) {
        problem = `more than ${MAX_TREE_ENTRIES} entries under /${IMAGE_TREE_FOLDER}, the limit of a graph-data tree`;
        return 'stop';
      }
      const rel = path.slice(IMAGE_TREE_FOLDER.length);
      const relFolder = parentOf(rel);
      if (base === '.wh..wh..opq') {
        // Opaque folder: what lower layers put anywhere under it is gone; this layer's own entries stay.
        opaqueOnce(relFolder, (p) => written.has(p) || p === relFolder);
        return 'next';
      }
      if (base.startsWith('.wh.')) {
        tree.removeUnder(posix.join(relFolder, base.slice(4)));
        return 'next';
      }
      // Nothing is written through a link: a path under a symbolic link is refused.
      for (let up = relFolder; up; up = parentOf(up))
        if (tree.get(up)?.kind === 'symlink') {
          problem = `${e.path}: a path through the link ${IMAGE_TREE_FOLDER}${up} is refused`;
          return 'stop';
        }
      written.add(rel);
      const type = e.header.type;
      if (type === 'directory') {
        if (tree.get(rel)?.kind !== 'dir') tree.removeUnder(rel);
        tree.set(rel, { kind: 'dir' });
        return 'next';
      }
      tree.removeUnder(rel);
      if (type === 'symlink' || type === 'link') {
        const link = e.header.linkname ?? '';
        // A hard link names an image path; a symbolic link is absolute in the image or relative to its folder.
        const target =
          type === 'link' || link.startsWith('/')
            ? posix.normalize(link.replace(/^\/+/, ''))
            : posix.normalize(posix.join(folder, link));
        if (!target.startsWith(IMAGE_TREE_FOLDER)) {
          problem = `${e.path}: a link to ${link} leaves /${IMAGE_TREE_FOLDER}`;
          return 'stop';
        }
        const to = target.slice(IMAGE_TREE_FOLDER.length);
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
  if (!tree.nodes.size) return { problem: `the image holds no /${IMAGE_TREE_FOLDER} folder` };
  const files = new Map<string, Buffer>();
  for (const [rel, node] of tree.nodes) {
    if (node.kind === 'file') files.set(rel, node.data);
    else if (node.kind === 'symlink') {
      // A link to a file of the tree is that file's content; to a folder, or in a loop, it is refused.
      let at = node.target;
      for (let hops = 0; hops < 16 && tree.get(at)?.kind === 'symlink'; hops++)
        at = (tree.get(at) as { target: string }).target;
      const end = tree.get(at);
      if (end?.kind !== 'file')
        return { problem: `${IMAGE_TREE_FOLDER}${rel}: a link to ${node.target}, which is not a file of the tree` };
      files.set(rel, end.data);
    }
  }
  return { files };
}

const tooBig = `the graph-data files unpack to more than ${MAX_TREE_BYTES} bytes`;
