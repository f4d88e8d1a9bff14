// Writes OCI images to a registry: a layer made from files (tar + gzip, with fixed times and owners, so the
// same files always give the same digest), an image of layers with its configuration, and an index of
// several images (a multi-arch release).
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import type { RegistryClient } from './client.js';
import { MEDIA, type Descriptor } from './manifest.js';

export interface Layer {
  /** The gzip-compressed tar. */
  blob: Buffer;
  /** sha256 of the uncompressed tar (the configuration's rootfs.diff_ids). */
  diffId: string;
}

const hex = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A layer holding `files` (path → content), folders created as needed, in name order. */
export async function layerOf(files: Map<string, string | Buffer>): Promise<Layer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c) => void chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    tar.on('end', resolve);
    tar.on('error', reject);
  });
  const fixed = { mtime: new Date(0), uid: 0, gid: 0, uname: '', gname: '' };
  const dirs = new Set<string>();
  for (const path of [...files.keys()].sort()) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      tar.entry({ name: `${dir}/`, type: 'directory', mode: 0o755, ...fixed });
    }
    const content = files.get(path)!;
    tar.entry({ name: path, mode: 0o644, ...fixed }, typeof content === 'string' ? Buffer.from(content) : content);
  }
  tar.finalize();
  await ended;
  const raw = Buffer.concat(chunks);
  // mtime 0 in the gzip header too, so the compressed bytes are as repeatable as the tar.
  return { blob: gzipSync(raw, { level: 6 }), diffId: `sha256:${hex(raw)}` };
}

/** Pushes the layers, a configuration and the manifest; tags it when `tag` is given. */
export async function pushImage(
  client: RegistryClient,
  image: {
    layers: Layer[];
    arch: string;
    os?: string;
    tag?: string;
    labels?: Record<string, string>;
    /** The command the image runs (config.Cmd). */
    cmd?: string[];
  },
): Promise<Descriptor> {
  const os = image.os ?? 'linux';
  const config = Buffer.from(
    JSON.stringify({
      architecture: image.arch,
      os,
      config: { ...(image.labels && { Labels: image.labels }), ...(image.cmd && { Cmd: image.cmd }) },
      rootfs: { type: 'layers', diff_ids: image.layers.map((l) => l.diffId) },
    }),
  );
  const layers: Descriptor[] = [];
  for (const l of image.layers)
    layers.push({ mediaType: MEDIA.ociLayerGzip, digest: await client.pushBlob(l.blob), size: l.blob.length });
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.ociManifest,
      config: { mediaType: MEDIA.ociConfig, digest: await client.pushBlob(config), size: config.length },
      layers,
    }),
  );
  const digest = await client.pushManifest(image.tag ?? `sha256:${hex(manifest)}`, MEDIA.ociManifest, manifest);
  return { mediaType: MEDIA.ociManifest, digest, size: manifest.length, platform: { architecture: image.arch, os } };
}
