// The registry flags, turned into typed settings once, where their names are known: the files of
// --registry-credentials and --registry-ca read, the names of --releases and --graph-data-image parsed,
// the --releases-tag-filter compiled, seconds made milliseconds. Every problem is a FlagProblem naming
// its flag.
import { loadRegistryAccess, RegistryAccessError, type RegistryAccess } from '../registry/access.js';
import { parseImage, parseRepository } from '../registry/reference.js';
import { compileTagFilter } from '../sources/registryReleases.js';
import type { SourceSettings } from '../app/refresh/sources.js';
import { FlagProblem, underFlag } from './flagProblem.js';

export interface RegistryAccessFlags {
  registryCredentials?: string;
  registryCa?: string;
}

/** The flags of the registry sources, as serve and import take them (resolved, not yet typed). */
export interface SourceFlags extends RegistryAccessFlags {
  releases?: string;
  releasesTagFilter?: string;
  graphDataImage?: string;
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

/** The credentials and CA of --registry-credentials and --registry-ca, read now. */
export function registryAccess(flags: RegistryAccessFlags): RegistryAccess {
  try {
    return loadRegistryAccess({ credentials: flags.registryCredentials, ca: flags.registryCa });
  } catch (err) {
    if (!(err instanceof RegistryAccessError)) throw err;
    throw new FlagProblem(`${err.which === 'ca' ? '--registry-ca' : '--registry-credentials'}: ${err.message}`);
  }
}

/** The sources' settings; a FlagProblem for a file, a name or a pattern that cannot be used. */
export function sourceSettings(flags: SourceFlags): SourceSettings {
  const { releases, graphDataImage, releasesTagFilter: tagFilter } = flags;
  if (tagFilter) underFlag('--releases-tag-filter', () => compileTagFilter(tagFilter));
  return {
    ...(releases && { releases: underFlag('--releases', () => parseRepository(releases, '--releases')) }),
    ...(graphDataImage && {
      graphDataImage: underFlag('--graph-data-image', () => parseImage(graphDataImage, '--graph-data-image')),
    }),
    ...(tagFilter && { releasesTagFilter: tagFilter }),
    client: {
      ...registryAccess(flags),
      timeoutMs: (flags.registryTimeout ?? 30) * 1000,
      requestDeadlineMs: (flags.registryRequestDeadline ?? 300) * 1000,
      allowedHosts: flags.registryAllowHosts?.split(',').filter(Boolean) ?? [],
    },
    concurrency: flags.registryConcurrency ?? 16,
    ...(flags.registryMaxTags !== undefined && { maxTags: flags.registryMaxTags }),
    ...(flags.registryScrapeDeadline && { readDeadlineMs: flags.registryScrapeDeadline * 1000 }),
  };
}
