// The registry sources a service reads (a graph-data image, a repository of release images), each with
// a client of its own. The settings are typed and checked already: names parsed, files read, the tag
// filter compiled once; what is wrong with them was said by whoever turned them from flags.
import type { Clock } from '../../clock.js';
import type { Log } from '../../log.js';
import { RegistryClient, type RegistryClientOptions } from '../../registry/client.js';
import { describe, type ImageReference, type RepositoryReference } from '../../registry/reference.js';
import type { TrustStore } from '../../signatures/verify.js';
import type { ScrapeOptions } from '../../sources/registryReleases.js';
import type { Store } from '../../store/store.js';
import { GraphDataImageSource } from './graphDataImage.js';
import { ReleaseScrapeSource } from './releaseScrape.js';
import type { Source } from './source.js';

export interface SourceSettings {
  /** The graph-data image, read again when its tag moves. */
  graphDataImage?: ImageReference;
  /** The repository of release images scraped. */
  releases?: RepositoryReference;
  /** RE2 pattern a release tag must match to be read. */
  releasesTagFilter?: string;
  /** Credentials, CA, timeouts and the hosts redirects may lead to: every client's. */
  client: RegistryClientOptions;
  /** Manifests and blobs read at once by a scrape. */
  concurrency: number;
  /** More tags than this fail a scrape. */
  maxTags?: number;
  /** How long one read of a source may take in all. */
  readDeadlineMs?: number;
}

/** What reads the sources: one client per source, closed together. */
export interface RegistryClients {
  releases?: RegistryClient;
  graphDataImage?: RegistryClient;
  close(): Promise<void>;
}

export function registryClients(settings: SourceSettings): RegistryClients {
  const releases = settings.releases && new RegistryClient(settings.releases, settings.client);
  const graphDataImage = settings.graphDataImage && new RegistryClient(settings.graphDataImage, settings.client);
  return {
    releases,
    graphDataImage,
    close: async () => {
      await releases?.close();
      await graphDataImage?.close();
    },
  };
}

/** What a source reads into, and how it reports. */
export interface SourceContext {
  store: Store;
  trust: TrustStore;
  clock: Clock;
  log: Log;
  onProgress?: ScrapeOptions['onProgress'];
  /** 1 for a one-shot import (every known tag checked); a server checks every FULL_CHECK_EVERY scrapes. */
  checkKnownTagsEvery?: number;
}

/** The sources in the order they are read: the graph-data image, then the release images. */
export function registrySources(clients: RegistryClients, settings: SourceSettings, ctx: SourceContext): Source[] {
  const sources: Source[] = [];
  if (clients.graphDataImage && settings.graphDataImage)
    sources.push(
      new GraphDataImageSource(
        clients.graphDataImage,
        settings.graphDataImage,
        ctx.store,
        ctx.trust,
        ctx.clock,
        ctx.log,
      ),
    );
  if (clients.releases) {
    const options = {
      tagFilter: settings.releasesTagFilter,
      concurrency: settings.concurrency,
      maxTags: settings.maxTags,
      onProgress: ctx.onProgress,
      checkKnownTagsEvery: ctx.checkKnownTagsEvery,
    };
    const name = describe(clients.releases.ref);
    sources.push(new ReleaseScrapeSource(clients.releases, ctx.store, options, ctx.clock, ctx.log, name));
  }
  if (settings.readDeadlineMs) for (const s of sources) s.deadlineMs = settings.readDeadlineMs;
  return sources;
}
