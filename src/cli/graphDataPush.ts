// `cincy graph-data push DIR --image REF`: the graph-data container image, as oc-mirror lays one out
// (the tree under /var/lib/cincinnati-graph-data/, and the command the update service operator's init
// container runs to copy it out), built from a folder with no base image and no network but the
// target registry's, so it can be made air-gapped. The tree is validated first: an invalid tree is
// refused with every problem named, and nothing is pushed. Prints the pull spec by digest.
import { posix } from 'node:path';
import { registryAccess } from './registryFlags.js';
import { RegistryClient } from '../registry/client.js';
import { layerOf, pushImage } from '../registry/imageWriter.js';
import { describe, parseImage, pullSpec } from '../registry/reference.js';
import { readGraphData } from '../sources/graphData.js';
import { FolderTree } from '../sources/folderTree.js';
import { IMAGE_TREE_FOLDER } from '../sources/graphDataImage.js';
import { MAX_FILE_BYTES, MAX_TREE_BYTES, MAX_TREE_ENTRIES } from '../sources/treeLimits.js';
import { formatProblem } from '../validation/problems.js';
import { escapeLine } from './terminalText.js';

export interface GraphDataPushOptions {
  image: string;
  registryCredentials?: string;
  registryCa?: string;
}

/** What the image runs, as oc-mirror's graph image does: the operator's init container copies the tree out. */
export const GRAPH_IMAGE_CMD = [
  '/bin/bash',
  '-c',
  'exec cp -rp /var/lib/cincinnati-graph-data/* /var/lib/cincinnati/graph-data',
];

export async function graphDataPush(dir: string, opts: GraphDataPushOptions): Promise<number> {
  const image = parseImage(opts.image, '--image');
  if (image.digest) throw new Error(`--image: '${opts.image}': push to a tag; the digest is printed`);
  const read = await readGraphData(dir);
  for (const w of read.warnings) process.stderr.write(`warning: ${escapeLine(formatProblem(w))}\n`);
  if (!read.tree) {
    for (const p of read.errors) process.stderr.write(`${escapeLine(formatProblem(p))}\n`);
    process.stderr.write(
      `${dir} is not a valid graph-data tree (${read.errors.length} problem(s)): nothing was pushed\n`,
    );
    return 1;
  }
  const files = filesOf(dir);
  const client = new RegistryClient(image, registryAccess(opts));
  try {
    const layer = await layerOf(files);
    const pushed = await pushImage(client, {
      layers: [layer],
      arch: 'amd64',
      tag: image.tag,
      cmd: GRAPH_IMAGE_CMD,
      labels: { 'io.openshift.cincinnati.graph-data.schema-version': read.tree.schemaVersion },
    });
    process.stderr.write(`pushed ${files.size} files of ${dir} to ${describe(image)}\n`);
    process.stdout.write(`${pullSpec(image, pushed.digest)}\n`);
    return 0;
  } finally {
    await client.close();
  }
}

/**
 * Every regular file of the folder (hidden ones, such as .git, left out), by its path in the image. A link
 * is what it points to, inside the tree only (FolderTree's rule); the limits are those of a tree.
 */
function filesOf(dir: string): Map<string, Buffer> {
  const tree = new FolderTree(dir);
  const files = new Map<string, Buffer>();
  let bytes = 0;
  const walk = (folder: string): void => {
    for (const name of (tree.names(folder) ?? []).sort()) {
      if (name.startsWith('.')) continue;
      const path = folder ? `${folder}/${name}` : name;
      if (tree.isDir(path)) {
        walk(path);
        continue;
      }
      const data = tree.read(path, MAX_FILE_BYTES);
      if (!Buffer.isBuffer(data)) throw new Error(`${dir}: ${path}: ${data.problem}`);
      bytes += data.length;
      if (files.size >= MAX_TREE_ENTRIES || bytes > MAX_TREE_BYTES)
        throw new Error(`${dir}: more than ${MAX_TREE_ENTRIES} files or ${MAX_TREE_BYTES} bytes, the limits of a tree`);
      files.set(posix.join(IMAGE_TREE_FOLDER, path), data);
    }
  };
  walk('');
  return files;
}
