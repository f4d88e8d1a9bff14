// The `previous` list of each release: the update sources its release metadata names. A
// pre-release lists earlier pre-releases of its minor and a few z-streams of the previous minor; a
// z-stream lists most earlier z-streams of its minor and the previous minor's z-streams released
// before it, counting from a floor set at GA.
import { sortVersions } from './versionOrder.mjs';

/**
 * Release-candidate links that are missing from the release metadata and are added back through
 * raw/metadata.json (previous.add), as happens in practice: target name -> source name.
 */
export function missedCandidateLinks({ profile, minors, newest }, { chance }) {
  const links = new Map();
  for (const minor of minors.values()) {
    const rcs = minor.pres.filter((p) => p.pre.kind === 'rc');
    if (rcs.length < 3) continue;
    const pick = profile.name === 'demo' ? minor.m === newest - 1 : chance(profile.metadataChance, 'rclink', minor.m);
    if (pick) links.set(rcs.at(-1).name, rcs.at(-3).name);
  }
  return links;
}

/** The z-streams of a minor that were not pulled, in release order. */
export const shippedZStreams = (minor) => (minor ? minor.zs.filter((v) => !v.pulled) : []);

export function linkUpdateSources(history, missedLinks, random) {
  for (const minor of history.minors.values()) {
    const older = shippedZStreams(history.minors.get(minor.m - 1));
    const releasedBefore = (day) => older.filter((v) => v.day < day);
    const atGa = releasedBefore(minor.ga);
    minor.floorIdx = atGa.length ? Math.max(0, atGa.length - 1 - random.randInt(0, 3, 'floor', minor.m)) : -1;
    minor.pres.forEach((p, i) => {
      p.previous = preReleaseSources(minor, i, missedLinks, random);
      const window = releasedBefore(p.day);
      p.previous.push(...window.slice(-random.randInt(2, 5, 'prewindow', p.name)).map((v) => v.name));
    });
    minor.zs.forEach((v, i) => {
      v.previous = i === 0 ? gaSources(minor, random) : zStreamSources(history, minor, i, random);
      if (minor.floorIdx < 0) return;
      older.forEach((q, idx) => {
        if (idx >= minor.floorIdx && q.day < v.day) v.previous.push(q.name);
      });
    });
  }
  for (const v of history.versions.values()) v.previous = sortVersions(v.previous);
}

/** Earlier pre-releases of the minor: always the one just before, most others. */
function preReleaseSources(minor, i, missedLinks, { chance }) {
  const p = minor.pres[i];
  const out = [];
  for (let j = 0; j < i; j++) {
    const q = minor.pres[j];
    if (missedLinks.get(p.name) === q.name) continue;
    if (j === i - 1 || !chance(0.25, 'preskip', p.name, q.name)) out.push(q.name);
  }
  return out;
}

/** The GA release: every release candidate and most earlier pre-releases. */
function gaSources(minor, { chance }) {
  return minor.pres.filter((p) => p.pre.kind === 'rc' || !chance(0.3, 'gaskip', p.name)).map((p) => p.name);
}

/** A z-stream: the GA, the z-stream just before, and most others that were not pulled. */
function zStreamSources({ profile }, minor, i, { chance }) {
  const v = minor.zs[i];
  const out = [];
  for (let j = 0; j < i; j++) {
    const q = minor.zs[j];
    if (q.pulled) continue;
    if (j === 0 || j === i - 1 || !chance(profile.rates.prevSkip, 'zskip', v.name, q.name)) out.push(q.name);
  }
  return out;
}
