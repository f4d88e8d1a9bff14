// The registry sources the settings ask for (--graph-data-image, --releases), each with its own client:
// credentials from --registry-credentials, the CA bundle of --registry-ca, the timeout and concurrency.
import type { Clock } from '../../clock.js';
import { registryAccess } from '../../registry/access.js';
import { RegistryClient } from '../../registry/client.js';
import { describe, parseImage, parseRepository } from '../../registry/reference.js';
import type { TrustStore } from '../../signatures/verify.js';
import type { Store } from '../../store/store.js';
import { compileTagFilter, type ScrapeOptions } from '../../sources/registryReleases.js';
import { GraphDataImageSource } from './graphDataImage.js';
import { ReleaseScrapeSource } from './releaseScrape.js';
import type { Log } from '../../log.js';
import type { Source } from './source.js';

export interface RegistrySettings {
  releases?: string;
  releasesTagFilter?: string;
  graphDataImage?: string;
  registryCredentials?: string;
  registryCa?: string;
  registryConcurrency?: number;
  /** Seconds. */
  registryTimeout?: number;
  /** Seconds. */
  registryRequestDeadline?: number;
  /** Seconds. */
  registryScrapeDeadline?: number;
  registryMaxTags?: number;
  /** Comma-separated hosts. */
  registryAllowHosts?: string;
}

export class SourceSettingsError extends Error {}

/** Checks the settings (names, files) before anything is read; every problem names its flag. */
export function registryClients(settings: RegistrySettings): {
  releases?: RegistryClient;
  graphDataImage?: { client: RegistryClient; image: ReturnType<typeof parseImage> };
  close(): Promise<void>;
} {
  try {
    const access = registryAccess(settings);
    if (settings.releasesTagFilter) compileTagFilter(settings.releasesTagFilter);
    const options = {
      ...access,
      timeoutMs: (settings.registryTimeout ?? 30) * 1000,
      requestDeadlineMs: (settings.registryRequestDeadline ?? 300) * 1000,
      allowedHosts: settings.registryAllowHosts?.split(',').filter(Boolean) ?? [],
    };
    const releases = settings.releases
      ? new RegistryClient(parseRepository(settings.releases, '--releases'), options)
      : undefined;
    const image = settings.graphDataImage ? parseImage(settings.graphDataImage, '--graph-data-image') : undefined;
    const graphDataImage = image && { client: new RegistryClient(image, options), image };
    return {
      releases,
      graphDataImage,
      close: async () => {
        await releases?.close();
        await graphDataImage?.client.close();
      },
    };
  } catch (err) {
    if (err instanceof SourceSettingsError) throw err;
    throw new SourceSettingsError((err as Error).message);
  }
}

/** The sources in the order they are read: graph-data image, then release images. */
export function registrySources(
  clients: ReturnType<typeof registryClients>,
  settings: RegistrySettings,
  store: Store,
  trust: TrustStore,
  clock: Clock,
  log: Log,
  onProgress?: ScrapeOptions['onProgress'],
  /** 1 for a one-shot import (every known tag checked); a server checks every FULL_CHECK_EVERY scrapes. */
  checkKnownTagsEvery?: number,
): Source[] {
  const sources: Source[] = [];
  const deadline = (source: Source): Source => {
    if (settings.registryScrapeDeadline) source.deadlineMs = settings.registryScrapeDeadline * 1000;
    return source;
  };
  if (clients.graphDataImage)
    sources.push(
      deadline(
        new GraphDataImageSource(clients.graphDataImage.client, clients.graphDataImage.image, store, trust, clock, log),
      ),
    );
  if (clients.releases)
    sources.push(
      deadline(
        new ReleaseScrapeSource(
          clients.releases,
          store,
          {
            tagFilter: settings.releasesTagFilter,
            concurrency: settings.registryConcurrency ?? 16,
            maxTags: settings.registryMaxTags,
            onProgress,
            checkKnownTagsEvery,
          },
          clock,
          log,
          describe(clients.releases.ref),
        ),
      ),
    );
  return sources;
}
