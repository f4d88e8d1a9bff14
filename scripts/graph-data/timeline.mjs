// When each release ships. Every minor has a GA day; its pre-releases come before it and its
// z-streams follow in weekly batches, further apart as the minor ages. Days are counted from the
// profile's `nowMs` (day 0).

/** Today. */
export const NOW = 0;
/** Weekly z-stream batches land on days congruent to -1 mod 7; this one is the newest. */
const LAST_BATCH = -1;

/**
 * The release history: `versions` maps a version name to its record, `minors` maps a minor number
 * to `{ m, ga, end, active, pres, zs, floorIdx }` (pre-releases and z-streams in release order).
 */
export function releaseTimeline(profile, random) {
  const history = { profile, versions: new Map(), minors: new Map(), newest: profile.minors.at(-1) };
  for (const m of profile.minors) addMinor(history, m, random);
  return history;
}

function newVersion(history, name, m, fields) {
  const record = {
    name,
    minor: m,
    z: null,
    pre: null,
    day: 0,
    pulled: false,
    candidateOnly: false,
    fastOnly: false,
    level: null,
    fastDay: null,
    stableDay: null,
    arches: [],
    previous: [],
    url: null,
    ...fields,
  };
  history.versions.set(name, record);
  return record;
}

function addMinor(history, m, random) {
  const P = history.profile;
  const ageWeeks = Math.round((P.newestGaAgeDays + (history.newest - m) * P.gaSpacingDays) / 7);
  const ga = LAST_BATCH - 7 * ageWeeks;
  const end = ga + P.lifecycleDays(m);
  const minor = { m, ga, end, active: end >= LAST_BATCH, pres: [], zs: [], floorIdx: -1 };
  history.minors.set(m, minor);
  addPreReleases(history, minor, random);
  addZStreams(history, minor, random);
}

/** Engineering candidates (ec) or feature candidates (fc), then release candidates (rc). */
function addPreReleases(history, minor, { randInt }) {
  const { m, ga } = minor;
  const counts = history.profile.preReleases(m);
  const schedule = { ec: [84, 14], fc: [70, 10], rc: [30, 6] }; // days before GA of the first, days apart
  for (const kind of ['ec', 'fc', 'rc']) {
    const [before, apart] = schedule[kind];
    for (let k = 0; k < counts[kind]; k++) {
      const day = ga - before + apart * k + randInt(-1, 1, 'preday', m, kind, k);
      minor.pres.push(newVersion(history, `4.${m}.0-${kind}.${k}`, m, { pre: { kind, n: k }, day }));
    }
  }
}

/** GA and z-streams, released in weekly batches until end of life or the profile's cap. */
function addZStreams(history, minor, { rand, chance }) {
  const P = history.profile;
  const { m, ga, active } = minor;
  const add = (z, day) => minor.zs.push(newVersion(history, `4.${m}.${z}`, m, { z, day }));
  add(0, ga);
  const cap = P.zCap(m);
  let z = 1;
  let day = ga;
  const weeklyTail = active && m >= history.newest - 1 ? [LAST_BATCH - 7, LAST_BATCH] : [LAST_BATCH];
  const limit = Math.min(weeklyTail[0] - 1, minor.end);
  while (minor.zs.length < cap) {
    day += 7 * P.cadenceWeeks(minor.zs.length, rand('cadence', m, z));
    if (day > limit) break;
    if (z > 1 && chance(P.rates.burn, 'burn', m, z)) z++; // a z number that was never shipped
    add(z++, day);
  }
  // Every supported minor ships in the newest batch (still candidate-only); the two newest minors
  // also shipped the week before (in fast, not yet in stable).
  if (!active) return;
  for (const d of weeklyTail) {
    if (minor.zs.length < cap && minor.zs.at(-1).day < d) add(z++, d);
  }
}
