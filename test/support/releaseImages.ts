// Release images for registry tests: an OCI layout holding images whose top layer carries
// release-manifests/release-metadata (cincinnati-metadata-v0), as `oc adm release new` lays them out.
import { OciLayout, type Descriptor, type LayerDescriptor } from './ociLayout.js';

export interface ReleaseSpec {
  version: string;
  previous?: string[];
  arch?: string;
  metadata?: Record<string, string>;
  tag?: string;
  /** Layers below the release layer (a base image). */
  below?: LayerDescriptor[];
}

export const releaseMetadata = (r: ReleaseSpec): string =>
  JSON.stringify({
    kind: 'cincinnati-metadata-v0',
    version: r.version,
    previous: r.previous ?? [],
    metadata: r.metadata ?? { url: `https://errata.example.com/${r.version}` },
  });

/** Adds a release image to the layout and returns its descriptor (with its platform). */
export async function releaseImage(layout: OciLayout, r: ReleaseSpec): Promise<Descriptor> {
  const top = await layout.layer({
    'release-manifests/release-metadata': releaseMetadata(r),
    'release-manifests/image-references': JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1' }),
  });
  return layout.image({ layers: [...(r.below ?? []), top], arch: r.arch ?? 'amd64', tag: r.tag });
}
