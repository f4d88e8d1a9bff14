// Semver precedence for sorting what the generator writes, through the `semver` package (the library
// the server's own version comparison wraps), each version parsed once: the full tree sorts a few
// hundred thousand names.
import semver from 'semver';

const parsed = new Map();

function semverOf(version) {
  let p = parsed.get(version);
  if (!p) parsed.set(version, (p = new semver.SemVer(version)));
  return p;
}

export const compareVersions = (a, b) => semverOf(a).compare(semverOf(b));

export const sortVersions = (list) => list.slice().sort(compareVersions);
