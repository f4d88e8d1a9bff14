// What blocked edges point at: the releases of a minor an edge may target, the release that fixes a
// problem, and the pattern for sources older than a minor's update floor.
import { numRange } from './patterns.mjs';
import { shippedZStreams } from './updateSources.mjs';
import { compareVersions } from './versionOrder.mjs';

/** Hard-block file-name suffixes: the prerequisite old sources lack. */
export const HARD_SLUGS = [
  'missing-prerequisite',
  'crd-storage-migration',
  'sdn-bridge-cleanup',
  'legacy-route-shards',
  'etcd-schema-upgrade',
  'stale-machine-configs',
];

/** Z-streams of a minor that can be blocked: neither pulled nor held in candidate. */
export const usable = (minor) => minor.zs.filter((v) => !v.pulled && !v.candidateOnly);

/** The first usable z-stream after `v`: where the fix ships. */
export const nextUsable = (minor, v) => usable(minor).find((x) => compareVersions(x.name, v.name) > 0)?.name;

/** Sources from the previous minor up to just past the floor of `minor`. Needs both minors and a floor. */
export function olderThanFloor(older, minor) {
  const list = shippedZStreams(older);
  const last = list[Math.min(minor.floorIdx + 1, list.length - 1)];
  return `4[.]${minor.m - 1}[.](${numRange(0, last.z)})[+].*`;
}

/** z-streams of `minor` built for arm64, the GA excepted. */
export const arm64ZStreams = (minor) => usable(minor).filter((v) => v.z > 0 && v.arches.includes('arm64'));
