// Makes a release image of a payload and pushes it: one layer holding release-manifests/ (tar+gzip, fixed
// times and owners), an OCI configuration naming the architecture and the release, the OCI manifest; for a
// multi-architecture release one such image per architecture and an OCI index of them. The same payload and
// architectures always give the same digests.
import type { RegistryClient } from 'cincy/registry/client';
import { layerOf, pushImage } from 'cincy/registry/imageWriter';
import { MEDIA, type Descriptor } from 'cincy/registry/manifest';
import type { Arch } from 'cincy/schemas/graphData';

/** The architectures of the images of a release (Go names), in the order a multi release lists them. */
export const IMAGE_ARCHES = ['amd64', 'arm64', 'ppc64le', 's390x'] as const;
export type ImageArch = (typeof IMAGE_ARCHES)[number];

/** Architecture names as release tags (and oc-mirror) write them: 4.16.1-x86_64, 4.16.1-multi. */
const TAG_ARCH: Record<Arch, string> = {
  amd64: 'x86_64',
  arm64: 'aarch64',
  s390x: 's390x',
  ppc64le: 'ppc64le',
  multi: 'multi',
};

export const releaseTag = (version: string, arch: Arch): string => `${version}-${TAG_ARCH[arch]}`;

export interface ReleaseImage {
  version: string;
  /** release-manifests/ file name → content. */
  files: Map<string, string>;
  /** One architecture, or 'multi' with the `arches` of its images. */
  arch: Arch;
  arches?: readonly ImageArch[];
  tag: string;
}

/** Pushes the image (or index) and tags it; returns its descriptor (the digest names the release). */
export async function pushReleaseImage(client: RegistryClient, r: ReleaseImage): Promise<Descriptor> {
  const layer = await layerOf(new Map([...r.files].map(([name, text]) => [`release-manifests/${name}`, text])));
  const labels = { 'io.openshift.release': r.version };
  if (r.arch !== 'multi') return pushImage(client, { layers: [layer], arch: r.arch, tag: r.tag, labels });
  const arches = r.arches ?? IMAGE_ARCHES;
  if (arches.length < 2) throw new Error('a multi-architecture release has images of two architectures at least');
  const images: Descriptor[] = [];
  // The members are not tagged: a single-architecture release of the version may hold their tags.
  for (const arch of arches) images.push(await pushImage(client, { layers: [layer], arch, labels }));
  return pushIndex(client, images, r.tag);
}

/** Pushes an index of images already in the repository, tagged `tag` (a multi-arch release). */
async function pushIndex(client: RegistryClient, images: Descriptor[], tag: string): Promise<Descriptor> {
  const index = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA.ociIndex, manifests: images }));
  const digest = await client.pushManifest(tag, MEDIA.ociIndex, index);
  return { mediaType: MEDIA.ociIndex, digest, size: index.length };
}
