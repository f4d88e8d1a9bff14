// The manifest formats a registry serves (Docker schema 2, OCI image manifest, Docker manifest list, OCI
// index), read and validated: a field that is missing or malformed is named with the manifest it is in.
import { DIGEST } from './reference.js';

export const MEDIA = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

/** The Accept header of a manifest request: every format read here. */
export const MANIFEST_ACCEPT = [MEDIA.ociManifest, MEDIA.dockerManifest, MEDIA.ociIndex, MEDIA.dockerList].join(', ');

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string; variant?: string };
}

/** A manifest as a registry serves it: an image manifest, or an index (manifest list) of them. */
export type RegistryManifest =
  | { kind: 'image'; mediaType: string; config: Descriptor; layers: Descriptor[] }
  | { kind: 'index'; mediaType: string; manifests: Descriptor[] };

/** A manifest or image config that is not what its format says, named with where it was read. */
export class RegistryManifestError extends Error {}

/** Reads a manifest's bytes; `contentType` is the response's, used when the document names no mediaType. */
export function readManifest(bytes: Buffer, contentType: string | undefined, where: string): RegistryManifest {
  const fail = (why: string): never => {
    throw new RegistryManifestError(`${where}: ${why}`);
  };
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch (err) {
    return fail(`not JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('not a JSON object');
  if (doc.schemaVersion !== 2) fail(`schemaVersion: expected 2, got ${JSON.stringify(doc.schemaVersion)}`);
  const mediaType =
    typeof doc.mediaType === 'string' ? doc.mediaType : (contentType ?? '').split(';')[0]!.trim() || undefined;
  const isIndex = Array.isArray(doc.manifests) && mediaType !== MEDIA.ociManifest && mediaType !== MEDIA.dockerManifest;
  if (isIndex) {
    const manifests = (doc.manifests as unknown[]).map((d, i) => descriptor(d, `manifests[${i}]`, fail));
    return { kind: 'index', mediaType: mediaType ?? MEDIA.ociIndex, manifests };
  }
  if (mediaType && mediaType !== MEDIA.ociManifest && mediaType !== MEDIA.dockerManifest)
    fail(`mediaType: ${mediaType} is not an image manifest or index this reads`);
  if (!Array.isArray(doc.layers)) fail('layers: expected a list');
  return {
    kind: 'image',
    mediaType: mediaType ?? MEDIA.ociManifest,
    config: descriptor(doc.config, 'config', fail),
    layers: (doc.layers as unknown[]).map((d, i) => descriptor(d, `layers[${i}]`, fail)),
  };
}

function descriptor(value: unknown, field: string, fail: (why: string) => never): Descriptor {
  const d = (value ?? {}) as Record<string, unknown>;
  if (typeof d.digest !== 'string' || !DIGEST.test(d.digest))
    fail(`${field}.digest: expected sha256: and 64 hex digits, got ${JSON.stringify(d.digest)}`);
  if (typeof d.size !== 'number' || !Number.isSafeInteger(d.size) || d.size < 0)
    fail(`${field}.size: expected a byte count, got ${JSON.stringify(d.size)}`);
  const out: Descriptor = {
    mediaType: typeof d.mediaType === 'string' ? d.mediaType : '',
    digest: d.digest as string,
    size: d.size as number,
  };
  const p = d.platform as Record<string, unknown> | undefined;
  if (p && typeof p.architecture === 'string' && typeof p.os === 'string')
    out.platform = {
      architecture: p.architecture,
      os: p.os,
      ...(typeof p.variant === 'string' && { variant: p.variant }),
    };
  return out;
}
