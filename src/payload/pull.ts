// Pulls a release payload from a registry, as the CVO's payload Job does with the release image: the manifest
// by digest (for an index, the member of the cluster's architecture, or the first), then the files under
// release-manifests/ of its layers, top-most layer first; the first layer holding any is the payload.
// Layers stream in and are never written whole; each file and the whole payload are bounded.
import { RegistryClient, type RegistryClientOptions } from '../registry/client.js';
import { LayerError, walkLayer, type Visit } from '../registry/layers.js';
import type { Descriptor } from '../registry/manifest.js';
import { describe, parseImage, type ImageReference } from '../registry/reference.js';
import type { PayloadStore } from './store.js';

const PREFIX = 'release-manifests/';
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;
const MAX_FILES = 20_000;

export class PullError extends Error {}

export interface PullOptions extends RegistryClientOptions {
  /** The architecture (Go name) of the member to take from an index; the first member when none matches. */
  arch?: string;
}

export interface StorePullOptions extends PullOptions {
  /** host[:port] of the registries reached over plain HTTP (a pull spec carries no scheme). */
  plainHttp?: ReadonlySet<string>;
}

/**
 * Pulls the payload of the release image `image` (a pull spec by digest) into `store`, where it is then
 * loaded as if the payload Job had put it there; returns how many files it holds.
 */
export async function pullIntoStore(store: PayloadStore, image: string, o: StorePullOptions = {}): Promise<number> {
  let ref: ImageReference;
  try {
    ref = parseImage(image, 'the release image');
  } catch (err) {
    throw new PullError((err as Error).message);
  }
  if (!ref.digest) throw new PullError(`${image}: a release image is pulled by digest`);
  ref.secure = !o.plainHttp?.has(ref.registry);
  const files = await pullPayload(ref, o);
  store.write(image, files);
  return files.size;
}

/** The payload of the release image `ref` (pinned by digest): file name in release-manifests/ → content. */
export async function pullPayload(ref: ImageReference, o: PullOptions = {}): Promise<Map<string, string>> {
  if (!ref.digest) throw new PullError(`${describe(ref)}: a release image is pulled by digest`);
  const client = new RegistryClient(ref, o);
  try {
    const top = await client.manifest(ref.digest);
    let image = top.manifest;
    if (image.kind === 'index') {
      const members = image.manifests.filter((d) => d.platform?.os !== 'unknown'); // attestations are not members
      const member = members.find((d) => d.platform?.architecture === o.arch) ?? members[0];
      if (!member) throw new PullError(`${describe(ref)}: an index without images`);
      image = (await client.manifest(member.digest)).manifest;
      if (image.kind !== 'image')
        throw new PullError(`${describe(ref)}: the member ${member.digest} of the index is not an image`);
    }
    for (const layer of [...image.layers].reverse()) {
      const files = await payloadFiles(client, layer, `${describe(ref)} layer ${layer.digest}`);
      if (files.size) return files;
    }
    throw new PullError(`${describe(ref)}: no ${PREFIX} in its ${image.layers.length} layer(s)`);
  } finally {
    await client.close();
  }
}

/** The files directly under release-manifests/ in one layer (none: an empty map). */
async function payloadFiles(client: RegistryClient, layer: Descriptor, what: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  let total = 0;
  await walkLayer(await client.blob(layer.digest), layer.mediaType, what, async (entry): Promise<Visit> => {
    if (!entry.path.startsWith(PREFIX) || entry.header.type !== 'file') return 'next';
    const name = entry.path.slice(PREFIX.length);
    if (!name || name.includes('/')) return 'next'; // the payload is one flat folder
    const bytes = await entry.read(MAX_FILE_BYTES);
    total += bytes.length;
    if (files.size >= MAX_FILES || total > MAX_PAYLOAD_BYTES)
      throw new LayerError(`${what}: more than ${MAX_FILES} files or ${MAX_PAYLOAD_BYTES} bytes under ${PREFIX}`);
    files.set(name, bytes.toString('utf8'));
    return 'next';
  });
  return files;
}
