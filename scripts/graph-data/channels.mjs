// Channel files. The internal channels are the promotion ladder (candidate, then fast once the
// errata is public, then stable a week later). The public channels take from them:
// candidate-4.N, fast-4.N and stable-4.N hold 4.(N-1) and 4.N at that level, eus-4.N holds
// 4.(N-2) to 4.N from stable; a channel whose minors are all out of support has no feeder.
import { minorFilter } from './patterns.mjs';
import { reachedLevel } from './promotion.mjs';
import { NOW } from './timeline.mjs';
import { sortVersions } from './versionOrder.mjs';

/** `{ channels, internalChannels }`, each a Map of name -> `{ name, feeder?, versions, tombstones? }`. */
export function channelsFor(history) {
  return { channels: publicChannels(history), internalChannels: internalChannels(history) };
}

const releasesOf = (minors, ms) => ms.flatMap((m) => (minors.has(m) ? [...minors.get(m).pres, ...minors.get(m).zs] : []));

/** Releases that must never enter a channel of `level`: pulled, held in candidate, held in fast. */
function tombstones(minors, ms, level) {
  const pool = releasesOf(minors, ms);
  if (level === 'candidate') return pool.filter((v) => v.pulled).map((v) => v.name);
  if (level === 'fast') return pool.filter((v) => v.candidateOnly).map((v) => v.name);
  return pool.filter((v) => v.fastOnly).map((v) => v.name);
}

function withTombstones(channel, minors, ms, level) {
  const names = tombstones(minors, ms, level);
  if (names.length) channel.tombstones = sortVersions(names);
  return channel;
}

function publicChannels({ profile, minors }) {
  const channels = new Map();
  const isEol = (m) => !minors.has(m) || !minors.get(m).active;
  const add = (kind, m, level, ms, feeder) => {
    const name = `${kind}-4.${m}`;
    const present = ms.filter((x) => minors.has(x));
    let list = releasesOf(minors, present).filter((v) => reachedLevel(v, level));
    if (kind === 'eus') list = list.filter((v) => v.stableDay <= NOW - 2);
    const channel = { name, versions: sortVersions(list.map((v) => v.name)) };
    if (!present.every(isEol)) channel.feeder = { delay: feeder.delay, filter: minorFilter(...ms), name: feeder.name };
    channels.set(name, withTombstones(channel, minors, present, level));
  };
  for (const m of profile.minors) {
    add('candidate', m, 'candidate', [m - 1, m], { name: 'candidate', delay: 'PT0H' });
    add('fast', m, 'fast', [m - 1, m], { name: 'fast', delay: 'PT0H' });
    add('stable', m, 'stable', [m - 1, m], { name: 'stable', delay: 'PT0H' });
    if (profile.eusMinors.includes(m)) add('eus', m, 'stable', [m - 2, m - 1, m], { name: 'stable', delay: 'PT48H' });
  }
  return channels;
}

function internalChannels({ profile, minors, versions }) {
  const all = [...versions.values()];
  const channels = new Map();
  const add = (level, feeder) => {
    const channel = { name: level, versions: sortVersions(all.filter((v) => reachedLevel(v, level)).map((v) => v.name)) };
    if (feeder) channel.feeder = feeder;
    channels.set(level, withTombstones(channel, minors, profile.minors, level));
  };
  add('candidate', null);
  add('fast', { errata: 'public', name: 'candidate' });
  add('stable', { delay: 'P1W', name: 'fast' });
  return channels;
}
