// Checks of the release records beyond what the reader validates (schema, file names, versions).
import { releaseFile } from './lookup.mjs';

const MULTI_LABEL = 'release.openshift.io/architecture';
const isPreRelease = (version) => version.includes('-');

export function checkReleases(report, { project, tree }) {
  const { releases } = tree;
  report.problems(
    'GA and z-stream releases have an errata URL, pre-releases none',
    releases
      .filter((r) => isPreRelease(r.version) === Boolean(r.metadata.url))
      .map((r) => `${releaseFile(r)}: ${r.metadata.url ? 'a pre-release with' : 'no'} errata URL (metadata.url)`),
  );
  report.problems(
    `multi releases carry the ${MULTI_LABEL} label`,
    releases
      .filter((r) => r.arch === 'multi' && r.metadata[MULTI_LABEL] !== 'multi')
      .map((r) => `${releaseFile(r)}: no ${MULTI_LABEL}: multi`),
  );
  const byId = new Set(releases.map((r) => `${r.version}+${r.arch}`));
  report.problems(
    'every previous entry is a release of the same architecture',
    releases.flatMap((r) => {
      const unknown = r.previous.filter((p) => !byId.has(`${p}+${r.arch}`));
      return unknown.map((p) => `${releaseFile(r)}: previous ${p} has no ${r.arch} release`);
    }),
  );
  report.problems(
    'previous lists are in semver order',
    releases
      .filter((r) => r.previous.some((p, i) => i > 0 && project.compareVersions(r.previous[i - 1], p) >= 0))
      .map((r) => `${releaseFile(r)}: previous not sorted`),
  );
  const firstWith = new Map();
  const reused = [];
  for (const r of releases) {
    const other = firstWith.get(r.payload);
    if (other) reused.push(`${releaseFile(r)}: same payload as ${releaseFile(other)}`);
    else firstWith.set(r.payload, r);
  }
  report.problems('payload digests are unique per (version, arch)', reused);
}
