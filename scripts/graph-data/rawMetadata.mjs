// raw/metadata.json: release metadata edited after the fact, keyed by version. The demo shows each
// kind of edit once, on fixed minors; the full tree picks minors by chance.
import { shippedZStreams } from './updateSources.mjs';

const PREVIOUS_ADD = 'io.openshift.upgrades.graph.previous.add';
const PREVIOUS_REMOVE = 'io.openshift.upgrades.graph.previous.remove';
const NEXT_ADD = 'io.openshift.upgrades.graph.next.add';
const RELEASE_REMOVE = 'io.openshift.upgrades.graph.release.remove';

export function rawMetadataFor(history, missedLinks, { chance }) {
  const { profile, versions, minors, newest } = history;
  const raw = {};
  const set = (version, key, value) => {
    (raw[version] ??= {})[key] = value;
  };
  for (const [target, source] of missedLinks) set(target, PREVIOUS_ADD, source);
  for (const v of versions.values()) if (v.pulled) set(v.name, RELEASE_REMOVE, 'true');
  for (const minor of minors.values()) {
    const pick = (what, demoMinor) =>
      profile.name === 'demo' ? minor.m === demoMinor : chance(profile.metadataChance, what, minor.m);
    if (pick('prevremove', newest - 3)) withdrawZStreamHop(history, minor, set);
    if (pick('gaadd', newest - 1)) addOlderGaSource(history, minor, raw, set);
    if (pick('nextadd', newest - 4)) addForwardEdge(history, minor, set);
  }
  return raw;
}

/** A known-bad z-stream hop withdrawn from the release metadata after the fact. */
function withdrawZStreamHop({ versions }, minor, set) {
  if (minor.zs.length < 8) return;
  const v = minor.zs[Math.floor(minor.zs.length * 0.6)];
  const same = v.previous.filter((n) => versions.get(n).minor === minor.m && versions.get(n).z > 0);
  if (same.length >= 3) set(v.name, PREVIOUS_REMOVE, same[Math.floor(same.length / 2)]);
}

/** An older update source let into the GA release. */
function addOlderGaSource({ minors }, minor, raw, set) {
  const older = minors.get(minor.m - 1);
  if (!older || minor.floorIdx < 2) return;
  const ga = minor.zs[0].name;
  const source = shippedZStreams(older)[minor.floorIdx - 1].name;
  set(ga, PREVIOUS_ADD, [raw[ga]?.[PREVIOUS_ADD], source].filter(Boolean).join(','));
}

/** A forward edge declared on the source release (next.add) into the .1 of the next minor. */
function addForwardEdge({ minors }, minor, set) {
  const next = minors.get(minor.m + 1);
  if (!next || next.floorIdx < 3 || next.zs.length <= 1) return;
  const source = shippedZStreams(minor)[next.floorIdx - 2];
  if (source.day < next.zs[1].day) set(source.name, NEXT_ADD, next.zs[1].name);
}
