// What a scrape of release images (sources/registryReleases.ts) learns of each manifest it reads, and
// the memory of manifests and tags it keeps between scrapes (the store keeps it). It sits below the
// scraper and the store, so neither imports the other for it.

/** The release-metadata document (`cincinnati-metadata-v0`) as an image carries it. */
export interface ReleaseMetadataDoc {
  kind: string;
  version: string;
  previous?: string[];
  next?: string[];
  metadata?: Record<string, string>;
}

/** A manifest as the scrape judged it: a release image, an index of them, or something else and why. */
export type ScannedManifest =
  | { digest: string; kind: 'release'; arch: string; metadata: ReleaseMetadataDoc }
  | { digest: string; kind: 'index'; arch: string; metadata: ReleaseMetadataDoc; members: string[] }
  | { digest: string; kind: 'other'; reason: string };

/** What the registry scraper remembers between scrapes, each call its own transaction. */
export interface ManifestCache {
  manifest(digest: string): Promise<ScannedManifest | undefined>;
  remember(m: ScannedManifest, at: string): Promise<void>;
  tags(repository: string): Promise<Map<string, string>>;
  rememberTags(repository: string, tags: Map<string, string>): Promise<void>;
  /** Forgets manifests no remembered tag points at, read before `since`; returns how many. */
  prune(since: string): Promise<number>;
}
