// The release images of a registry repository as a source: each read scrapes the repository and makes
// the releases it brought equal to what the scrape found, in one transaction. A scrape with errors (two
// images of one version and architecture, the registry unreachable) writes nothing.
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Release } from '../../graph/model.js';
import { RegistryClient } from '../../registry/client.js';
import { repositoryName } from '../../registry/reference.js';
import { ImportRejected, type Store } from '../../store/store.js';
import { scrapeReleases, type ScrapeOptions, type ScrapeResult } from '../../sources/registryReleases.js';
import { formatProblem } from '../../validation/problems.js';
import type { Log } from '../../log.js';
import { Source, SourceRejected } from './source.js';

/** Every 12th scrape of a running server (an hour at the default 5 minutes) checks each known tag with a HEAD. */
export const FULL_CHECK_EVERY = 12;

/** What a scrape found, as one hash: the releases' architectures, versions and payloads, in order. */
function fingerprint(releases: readonly Release[]): string {
  const lines = releases.map((r) => `${r.arch}/${r.version} ${r.payload} ${JSON.stringify(r)}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

export class ReleaseScrapeSource extends Source {
  /** The outcome of the last scrape (tests and the import command read the counts). */
  last: ScrapeResult | undefined;
  private readonly key: string;

  constructor(
    private readonly client: RegistryClient,
    private readonly store: Store,
    private readonly options: Omit<ScrapeOptions, 'now' | 'checkKnownTags' | 'signal'> & {
      /** Every how many scrapes each known tag is checked (1: every scrape); the first scrape is not one. */
      checkKnownTagsEvery?: number;
    },
    clock: Clock,
    log: Log,
    name: string,
  ) {
    super(name, 'registry-releases', clock, log);
    this.key = repositoryName(client.ref);
  }

  async recall(): Promise<void> {
    if (await this.store.read((tx) => tx.registry.hasScraped(this.key))) this.status.ready = true;
  }

  protected async read(signal: AbortSignal): Promise<boolean> {
    const result = await scrapeReleases(this.client, this.store.manifestCache(), {
      ...this.options,
      signal,
      // Tags are taken to stay where they were; every so many scrapes, each is asked for again (a moved tag).
      checkKnownTags: this.status.reads % (this.options.checkKnownTagsEvery ?? FULL_CHECK_EVERY) === 0,
      now: () => new Date(this.clock.now()).toISOString(),
    });
    this.last = result;
    for (const w of result.warnings.slice(0, 50)) this.log.warn({ warning: formatProblem(w) }, 'registry tag skipped');
    this.keepWarnings(result.warnings);
    if (result.errors.length)
      throw new SourceRejected(`${this.status.name}: ${result.errors.length} problem(s)`, result.errors);
    signal.throwIfAborted(); // past its deadline, a read writes nothing
    const answer = fingerprint(result.releases);
    if (this.holdBack(answer)) return false;
    let changes;
    try {
      changes = await this.store.applyScrape(this.key, result.releases);
    } catch (err) {
      if (err instanceof ImportRejected) throw new SourceRejected(`${this.status.name}: ${err.message}`, err.problems);
      throw err;
    }
    this.status.releases = result.releases.length;
    this.applied = answer;
    this.log.info(
      { source: this.status.name, tags: result.tags, skipped: result.skipped, read: result.manifestsRead, changes },
      'registry scraped',
    );
    return changes.added + changes.changed + changes.removed > 0;
  }
}
