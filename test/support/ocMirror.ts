// A mirror registry's content as oc-mirror v2 leaves it, built for skopeo to push byte for byte:
// release images as quay.io's ocp-release serves them (Docker schema 2 manifests, a Docker manifest list for
// a multi-arch release), sigstore signatures as containers/image stores them beside an image (an OCI
// manifest tagged `sha256-<hex>.sig` whose layer is the signed payload), and the graph image as oc-mirror
// builds it (its base image's manifest list, each platform's image with the graph-data layer on top and the
// copy command). The mirror's repositories and tags are what oc-mirror names them. Blobs are written to an
// OCI layout's store; each image to push is then exported to a folder of skopeo's `dir:` transport, which
// (unlike an OCI layout's index.json) takes Docker media types as they are.
import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';
import { OCI_CONFIG, OCI_MANIFEST, type Descriptor, type LayerDescriptor, type OciLayout } from './ociLayout.js';
import type { TestRegistry } from './registry.js';
import { releaseMetadata, type ReleaseSpec } from './releaseImages.js';
import { SKOPEO, skopeoDestFlags } from './skopeo.js';
import { tarOf } from './tar.js';

export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const DOCKER_CONFIG = 'application/vnd.docker.container.image.v1+json';
export const DOCKER_LAYER_GZIP = 'application/vnd.docker.image.rootfs.diff.tar.gzip';
/** The layer media type of a sigstore (cosign) signature: the signed payload itself. */
export const SIGSTORE_PAYLOAD = 'application/vnd.dev.cosign.simplesigning.v1+json';
const SIGSTORE_SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature';

/** Where oc-mirror v2 puts what it mirrors, under the mirror's own path. */
export const OC_MIRROR = {
  /** Release images, each under its upstream tag (`4.16.3-x86_64`, `4.16.3-multi`). */
  releaseImages: 'openshift/release-images',
  /** The images a release names, tagged `<release tag>-<component name>`. */
  releaseComponents: 'openshift/release',
  /** The graph image, always `:latest`. */
  graphImage: 'openshift/graph-image',
} as const;

/** Where oc-mirror's graph image holds the graph-data tree, and the command its containers run. */
export const GRAPH_IMAGE_DATA_DIR = '/var/lib/cincinnati-graph-data';
export const GRAPH_IMAGE_CMD = [
  '/bin/bash',
  '-c',
  `exec cp -rp ${GRAPH_IMAGE_DATA_DIR}/* /var/lib/cincinnati/graph-data`,
];

/** The suffix of a release tag for an architecture, as quay.io's ocp-release names them. */
export const RELEASE_TAG_ARCH: Record<string, string> = {
  amd64: 'x86_64',
  arm64: 'aarch64',
  ppc64le: 'ppc64le',
  s390x: 's390x',
};

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const MTIME = new Date('2024-01-01T00:00:00Z');

/** A layer descriptor as a Docker schema 2 manifest lists it (the same gzipped tar as the OCI one). */
const asDocker = (l: LayerDescriptor): LayerDescriptor => ({ ...l, mediaType: DOCKER_LAYER_GZIP });

export interface DockerImageOptions {
  layers: LayerDescriptor[];
  arch: string;
  /** The image configuration's `config` (Cmd, Labels…). */
  config?: Record<string, unknown>;
  author?: string;
  tag?: string;
}

/** A single-platform Docker schema 2 image; the descriptor returned carries its platform. */
export function dockerImage(layout: OciLayout, o: DockerImageOptions): Descriptor {
  const platform = { architecture: o.arch, os: 'linux' };
  const config = layout.blob(
    DOCKER_CONFIG,
    Buffer.from(
      JSON.stringify({
        created: MTIME.toISOString(),
        ...(o.author && { author: o.author }),
        ...platform,
        config: o.config ?? {},
        rootfs: { type: 'layers', diff_ids: o.layers.map((l) => l.diffID) },
      }),
    ),
  );
  const manifest = {
    schemaVersion: 2,
    mediaType: DOCKER_MANIFEST,
    config,
    layers: o.layers.map(asDocker).map(({ mediaType, digest, size }) => ({ mediaType, digest, size })),
  };
  const d: Descriptor = { ...layout.blob(DOCKER_MANIFEST, Buffer.from(JSON.stringify(manifest))), platform };
  if (o.tag) layout.tag(d, o.tag);
  return d;
}

/** A Docker manifest list over images dockerImage() returned. */
export function dockerList(layout: OciLayout, manifests: Descriptor[], tag?: string): Descriptor {
  const doc = {
    schemaVersion: 2,
    mediaType: DOCKER_LIST,
    manifests: manifests.map(({ mediaType, digest, size, platform }) => ({ mediaType, digest, size, platform })),
  };
  const d = layout.blob(DOCKER_LIST, Buffer.from(JSON.stringify(doc)));
  if (tag) layout.tag(d, tag);
  return d;
}

/**
 * A release image as `oc adm release new` makes it and quay.io serves it: Docker schema 2, the release
 * manifests (release-metadata and image-references naming the components) in the top layer.
 */
export async function ocpReleaseImage(
  layout: OciLayout,
  r: ReleaseSpec & { components?: Record<string, string> },
): Promise<Descriptor> {
  const references = {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: r.version },
    spec: {
      tags: Object.entries(r.components ?? {}).map(([name, pullSpec]) => ({
        name,
        from: { kind: 'DockerImage', name: pullSpec },
      })),
    },
  };
  const top = await layout.layer({
    'release-manifests/release-metadata': releaseMetadata(r),
    'release-manifests/image-references': JSON.stringify(references),
  });
  return dockerImage(layout, {
    layers: [...(r.below ?? []), top],
    arch: r.arch ?? 'amd64',
    config: { Labels: { 'io.openshift.release': r.version } },
    tag: r.tag,
  });
}

/** A key pair for sigstore signatures (ECDSA P-256, as `cosign generate-key-pair` makes). */
export function sigstoreKeys(): { privateKey: KeyObject; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** The tag a sigstore signature of `digest` has beside the image (the cosign tag convention). */
export const signatureTag = (digest: string): string => `${digest.replace(':', '-')}.sig`;

/**
 * A sigstore signature of the manifest `digest`, signed for `identity` (the repository the publisher
 * signed it as), as containers/image stores it in a registry: an OCI manifest whose one layer is the
 * simple-signing payload, its signature in the layer's annotation, and a config naming that layer. Tagged
 * in the layout as signatureTag(digest).
 */
export function sigstoreSignature(
  layout: OciLayout,
  digest: string,
  identity: string,
  privateKey: KeyObject,
): Descriptor {
  const payload = Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': identity },
        image: { 'docker-manifest-digest': digest },
        type: 'cosign container image signature',
      },
      optional: null,
    }),
  );
  const layer = layout.blob(SIGSTORE_PAYLOAD, payload);
  const signature = sign('sha256', payload, privateKey).toString('base64');
  const config = layout.blob(
    OCI_CONFIG,
    Buffer.from(
      JSON.stringify({
        architecture: '',
        os: '',
        config: {},
        rootfs: { type: 'layers', diff_ids: [layer.digest] },
      }),
    ),
  );
  const manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config,
    layers: [{ ...layer, annotations: { [SIGSTORE_SIGNATURE_ANNOTATION]: signature } }],
  };
  const d = layout.blob(OCI_MANIFEST, Buffer.from(JSON.stringify(manifest)));
  layout.tag(d, signatureTag(digest));
  return d;
}

/**
 * The graph-data layer as oc-mirror makes it from the graph-data tarball it downloads: every entry of the
 * tarball (a `./` entry for its top, then `channels/…`, `blocked-edges/…`) renamed to the absolute path
 * under /var/lib/cincinnati-graph-data (Go's filepath.Join: no trailing slash on folders), owned by root.
 */
export async function graphDataLayer(layout: OciLayout, files: Record<string, string>): Promise<LayerDescriptor> {
  const folders = new Set<string>(['.']);
  for (const path of Object.keys(files))
    for (let d = posix.dirname(path); d !== '.'; d = posix.dirname(d)) folders.add(d);
  const tar = tarOf(
    [
      ...[...folders]
        .sort()
        .map((folder) => ({ name: posix.join(GRAPH_IMAGE_DATA_DIR, folder), type: 'directory' as const })),
      ...Object.entries(files)
        .sort()
        .map(([path, data]) => ({ name: posix.join(GRAPH_IMAGE_DATA_DIR, path), data })),
    ],
    MTIME,
  );
  return { ...layout.blob(DOCKER_LAYER_GZIP, gzipSync(tar)), diffID: sha256(tar) };
}

/**
 * The graph image as oc-mirror builds it: the base image's manifest list (UBI's, Docker schema 2, one
 * image per platform), the graph-data layer appended to every platform's image, the copy command set
 * and oc-mirror named as the author; the list tagged `tag` in the layout when given.
 */
export async function graphImage(
  layout: OciLayout,
  base: Record<string, LayerDescriptor[]>,
  files: Record<string, string>,
  tag?: string,
): Promise<Descriptor> {
  const data = await graphDataLayer(layout, files);
  const images = Object.entries(base).map(([arch, layers]) =>
    dockerImage(layout, { layers: [...layers, data], arch, config: { Cmd: GRAPH_IMAGE_CMD }, author: 'oc-mirror' }),
  );
  return dockerList(layout, images, tag);
}

/**
 * Exports the image or manifest list `d` of the layout to `dir` in skopeo's `dir:` format: the top manifest
 * as manifest.json, a list's images as <hex>.manifest.json, every config and layer by its hex digest.
 */
export function exportDir(layout: OciLayout, d: Descriptor, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = (digest: string): string => join(layout.dir, 'blobs', 'sha256', digest.slice('sha256:'.length));
  const copyImage = (digest: string, name: string): void => {
    const bytes = readFileSync(path(digest));
    writeFileSync(join(dir, name), bytes);
    const m = JSON.parse(bytes.toString()) as {
      config?: { digest: string };
      layers?: Array<{ digest: string }>;
      manifests?: Array<{ digest: string }>;
    };
    for (const inner of m.manifests ?? [])
      copyImage(inner.digest, `${inner.digest.slice('sha256:'.length)}.manifest.json`);
    for (const blob of [...(m.config ? [m.config] : []), ...(m.layers ?? [])])
      copyFileSync(path(blob.digest), join(dir, blob.digest.slice('sha256:'.length)));
  };
  copyImage(d.digest, 'manifest.json');
  writeFileSync(join(dir, 'version'), 'Directory Transport Version: 1.1\n');
  return dir;
}

/**
 * Pushes a `dir:` export to `registry` as `repoAndTag`, a manifest list with every image in it; throws with
 * skopeo's stderr. A registry 500 is retried twice, as skopeoCopy does (parallel copies into one repository).
 */
export async function skopeoPushDir(
  dir: string,
  registry: TestRegistry,
  repoAndTag: string,
  list = false,
): Promise<void> {
  const args = [
    '--insecure-policy',
    'copy',
    '--quiet',
    ...skopeoDestFlags(registry),
    ...(list ? ['--multi-arch=all'] : []),
    `dir:${dir}`,
    `docker://${registry.host}/${repoAndTag}`,
  ];
  for (let attempt = 1; ; attempt++) {
    const stderr = await new Promise<string | undefined>((resolve) =>
      execFile(SKOPEO, args, { timeout: 60_000 }, (err, _stdout, stderr) =>
        resolve(err ? stderr || err.message : undefined),
      ),
    );
    if (stderr === undefined) return;
    if (attempt < 3 && stderr.includes('500 (Internal Server Error)')) continue;
    throw new Error(`skopeo ${args.join(' ')} failed: ${stderr}`);
  }
}
