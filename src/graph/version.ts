// Versions as the graph uses them: semver, with the architecture carried as build metadata internally.
import semver from 'semver';

export interface VersionRef {
  version: string; // without build metadata
  arch: string | undefined; // the build metadata, when written
}

/** Splits `4.14.3+amd64` into version and architecture; `4.2.11-s390x` is a literal version (no arch). */
export function splitArch(text: string): VersionRef {
  const plus = text.indexOf('+');
  if (plus < 0) return { version: text, arch: undefined };
  return { version: text.slice(0, plus), arch: text.slice(plus + 1) };
}

/** Strict semver without build metadata: no `v` prefix, no spaces (clusters reject anything else). */
export function isReleaseVersion(version: string): boolean {
  return semver.valid(version) === version;
}

/** Semver order (build metadata ignored). */
export function compareVersions(a: string, b: string): number {
  return semver.compare(a, b);
}

/** Distinct versions in semver order, ties (versions semver ranks equal) by text; each is parsed once. */
export function sortVersions(versions: Iterable<string>): string[] {
  return [...new Set(versions)]
    .map((v) => ({ v, parsed: new semver.SemVer(v) }))
    .sort((a, b) => a.parsed.compare(b.parsed) || (a.v < b.v ? -1 : a.v > b.v ? 1 : 0))
    .map((x) => x.v);
}

/** Public channels are ordered by the text after the first `-` compared as a string, then by name. */
export function compareChannelNames(a: string, b: string): number {
  const sa = a.slice(a.indexOf('-') + 1);
  const sb = b.slice(b.indexOf('-') + 1);
  if (sa !== sb) return sa < sb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
