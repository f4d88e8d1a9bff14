// OCI image layouts on disk, built from test data: real tar+gzip layers, image configs with their
// diff IDs, manifests and multi-arch indexes, tagged in index.json so `skopeo copy oci:DIR:TAG` can
// push them. Every timestamp is fixed, so the same input always gives the same digests.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tarOf, type TarEntry } from './tar.js';

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';
export const OCI_LAYER_GZIP = 'application/vnd.oci.image.layer.v1.tar+gzip';
const REF_NAME = 'org.opencontainers.image.ref.name';
const MTIME = new Date('2024-01-01T00:00:00Z');

export interface Platform {
  architecture: string;
  os: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: Platform;
}

/** A layer's descriptor, with the digest of its uncompressed tar (the config's rootfs.diff_ids entry). */
export interface LayerDescriptor extends Descriptor {
  diffID: string;
}

export interface LayerOptions {
  /** Paths this layer deletes from the layers below ('a/b' → 'a/.wh.b'); 'dir/' hides all of dir ('dir/.wh..wh..opq'). */
  whiteouts?: string[];
  /** Symbolic links: path → target. */
  symlinks?: Record<string, string>;
}

export interface ImageOptions {
  layers: LayerDescriptor[];
  arch: string;
  os?: string;
  variant?: string;
  /** Image labels (config.Labels), as `podman inspect` shows them. */
  labels?: Record<string, string>;
  /** Annotations on the manifest. */
  annotations?: Record<string, string>;
  tag?: string;
}

export interface IndexOptions {
  /** Manifest descriptors, each with its platform (image() returns them that way). */
  manifests: Descriptor[];
  annotations?: Record<string, string>;
  tag?: string;
}

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export class OciLayout {
  private readonly tags = new Map<string, Descriptor>();

  constructor(readonly dir: string) {
    mkdirSync(join(dir, 'blobs', 'sha256'), { recursive: true });
    writeFileSync(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    this.writeIndex();
  }

  /** Stores a blob under blobs/sha256/ and returns its descriptor. */
  blob(mediaType: string, data: Buffer): Descriptor {
    const digest = sha256(data);
    writeFileSync(join(this.dir, 'blobs', 'sha256', digest.slice('sha256:'.length)), data);
    return { mediaType, digest, size: data.length };
  }

  /** A gzipped tar layer holding `files` (with their parent directories), symlinks and whiteouts. */
  async layer(files: Record<string, string | Buffer>, opts: LayerOptions = {}): Promise<LayerDescriptor> {
    const entries = new Map<string, TarEntry>();
    const addParents = (path: string): void => {
      for (let d = posix.dirname(path); d !== '.' && d !== '/'; d = posix.dirname(d))
        if (!entries.has(`${d}/`)) entries.set(`${d}/`, { name: `${d}/`, type: 'directory' });
    };
    for (const [path, data] of Object.entries(files)) {
      addParents(path);
      entries.set(path, { name: path, data });
    }
    for (const [path, target] of Object.entries(opts.symlinks ?? {})) {
      addParents(path);
      entries.set(path, { name: path, type: 'symlink', linkname: target });
    }
    for (const gone of opts.whiteouts ?? []) {
      const name = gone.endsWith('/')
        ? posix.join(gone, '.wh..wh..opq')
        : posix.join(posix.dirname(gone), `.wh.${posix.basename(gone)}`);
      addParents(name);
      entries.set(name, { name });
    }
    // Parents sort before their children, as image builders write them.
    const tar = tarOf(
      [...entries.keys()].sort().map((k) => entries.get(k)!),
      MTIME,
    );
    return { ...this.blob(OCI_LAYER_GZIP, gzipSync(tar)), diffID: sha256(tar) };
  }

  /** A single-platform image: its config blob and manifest; the descriptor returned carries the platform. */
  image(o: ImageOptions): Descriptor {
    const platform: Platform = { architecture: o.arch, os: o.os ?? 'linux', ...(o.variant && { variant: o.variant }) };
    const config = this.blob(
      OCI_CONFIG,
      Buffer.from(
        JSON.stringify({
          created: MTIME.toISOString(),
          ...platform,
          config: o.labels ? { Labels: o.labels } : {},
          rootfs: { type: 'layers', diff_ids: o.layers.map((l) => l.diffID) },
        }),
      ),
    );
    const manifest = {
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config,
      layers: o.layers.map(({ mediaType, digest, size }) => ({ mediaType, digest, size })),
      ...(o.annotations && { annotations: o.annotations }),
    };
    const d: Descriptor = { ...this.blob(OCI_MANIFEST, Buffer.from(JSON.stringify(manifest))), platform };
    if (o.tag) this.tag(d, o.tag);
    return d;
  }

  /** A multi-platform image index over manifests that image() returned. */
  index(o: IndexOptions): Descriptor {
    for (const m of o.manifests) if (!m.platform) throw new Error(`index: manifest ${m.digest} has no platform`);
    const doc = {
      schemaVersion: 2,
      mediaType: OCI_INDEX,
      manifests: o.manifests.map(({ mediaType, digest, size, platform }) => ({ mediaType, digest, size, platform })),
      ...(o.annotations && { annotations: o.annotations }),
    };
    const d = this.blob(OCI_INDEX, Buffer.from(JSON.stringify(doc)));
    if (o.tag) this.tag(d, o.tag);
    return d;
  }

  /** Names a manifest or index in index.json (a tag already there is moved). */
  tag(d: Descriptor, name: string): void {
    this.tags.set(name, { mediaType: d.mediaType, digest: d.digest, size: d.size });
    this.writeIndex();
  }

  private writeIndex(): void {
    const manifests = [...this.tags].map(([name, d]) => ({ ...d, annotations: { [REF_NAME]: name } }));
    writeFileSync(join(this.dir, 'index.json'), JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests }));
  }
}
