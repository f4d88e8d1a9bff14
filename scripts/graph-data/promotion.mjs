// How far each release gets on the candidate -> fast -> stable ladder. A z-stream reaches fast when
// its errata is public (2-4 days after release) and stable a week later, once its minor has been out
// for six weeks. A few never leave candidate or stop at fast, and one per chosen minor is pulled.
import { NOW } from './timeline.mjs';

const LEVELS = ['candidate', 'fast', 'stable'];
const levelRank = (level) => (level ? LEVELS.indexOf(level) : -1);

/** Whether a release has reached `level` (a pulled release has no level at all). */
export const reachedLevel = (v, level) => levelRank(v.level) >= levelRank(level);

export function decidePromotions(history, random) {
  markPulled(history);
  markHeldBack(history, random);
  assignLevels(history, random);
}

function markPulled({ profile, minors }) {
  for (const m of profile.pulledMinors(profile.minors)) {
    const minor = minors.get(m);
    if (minor.zs.length < 8) continue;
    minor.zs[Math.max(3, Math.floor(minor.zs.length * 0.45))].pulled = true;
  }
}

/** Held back in candidate, or in fast; never a GA release or one of the two newest. */
function markHeldBack({ profile, minors, versions }, { chance }) {
  for (const minor of minors.values()) {
    minor.zs.forEach((v, i) => {
      if (i === 0 || i >= minor.zs.length - 2 || v.pulled) return;
      if (chance(profile.rates.candidateOnly, 'candonly', v.name)) v.candidateOnly = true;
      else if (chance(profile.rates.fastOnly, 'fastonly', v.name)) v.fastOnly = true;
    });
  }
  // The demo always shows one release held back in candidate.
  if (profile.name === 'demo' && ![...versions.values()].some((v) => v.candidateOnly)) {
    const minor = minors.get(profile.minors.at(-2));
    const v = minor.zs[Math.floor(minor.zs.length / 2)];
    if (!v.pulled) v.candidateOnly = true;
  }
}

function assignLevels({ minors }, { randInt }) {
  for (const minor of minors.values()) {
    for (const p of minor.pres) p.level = 'candidate';
    for (const v of minor.zs) {
      if (v.pulled) continue;
      v.fastDay = v.day + (v.z === 0 ? 0 : randInt(2, 4, 'errata-lag', v.name));
      if (v.candidateOnly || v.fastDay > NOW) {
        v.level = 'candidate';
        continue;
      }
      v.stableDay = Math.max(v.fastDay + 7, minor.ga + 42);
      v.level = v.fastOnly || v.stableDay > NOW ? 'fast' : 'stable';
    }
  }
}
