// The two sizes of dataset: how many minors and architectures, how fast z-streams ship, how often
// releases are held back, and how many blocked edges each minor gets.

export const DAY_MS = 86400000;

function range(a, b) {
  const out = [];
  for (let i = a; i <= b; i++) out.push(i);
  return out;
}

/** demo: the tree committed as graph-data/. */
function demoProfile({ randInt }) {
  return {
    name: 'demo',
    nowMs: Date.UTC(2025, 5, 30),
    minors: range(12, 18),
    arches: [
      { arch: 'amd64', from: 12, skip: 0, skipEc: 0 },
      { arch: 'arm64', from: 12, skip: 0.03, skipEc: 0.4 },
      { arch: 'multi', from: 14, skip: 0.05, skipEc: 0.7 },
    ],
    gaSpacingDays: 125,
    newestGaAgeDays: 42,
    lifecycleDays: (m) => (m % 2 === 0 ? 730 : 540),
    zCap: () => Infinity,
    cadenceWeeks: (count, r) => {
      if (count < 4) return 1;
      if (count < 16) return 1 + (r < 0.5);
      if (count < 30) return 2 + (r < 0.4);
      return 3 + Math.floor(r * 2);
    },
    preReleases: (m) =>
      m <= 13
        ? { ec: 0, fc: 0, rc: randInt(3, 4, 'rc', m) }
        : { ec: randInt(2, 3, 'ec', m), fc: 0, rc: randInt(3, 4, 'rc', m) },
    eusMinors: [12, 14, 16, 18],
    pulledMinors: (ms) => [ms[ms.length - 3]],
    rates: { burn: 0.07, candidateOnly: 0.02, fastOnly: 0.03, prevSkip: 0.08 },
    blockedBudget: (m) => ({ 12: 4, 13: 5, 14: 6, 15: 7, 16: 7, 17: 6, 18: 5 })[m] ?? 5,
    ruleWeights: { promql: 0.7, always: 0.16, both: 0.14 },
    minPromqlShare: 0.6,
    metadataChance: 0,
  };
}

/** full: for the benchmark only. */
function fullProfile({ randInt }) {
  const preReleases = (m) => {
    if (m <= 9) return { ec: 0, fc: 0, rc: randInt(3, 6, 'rc', m) };
    if (m <= 11) return { ec: 0, fc: randInt(2, 4, 'fc', m), rc: randInt(2, 4, 'rc', m) };
    return { ec: randInt(3, 5, 'ec', m), fc: 0, rc: randInt(3, 5, 'rc', m) };
  };
  return {
    name: 'full',
    nowMs: Date.UTC(2025, 5, 30),
    minors: range(1, 30),
    arches: [
      { arch: 'amd64', from: 1, skip: 0, skipEc: 0 },
      { arch: 's390x', from: 3, skip: 0.04, skipEc: 0.5 },
      { arch: 'arm64', from: 10, skip: 0.03, skipEc: 0.4 },
      { arch: 'multi', from: 11, skip: 0.05, skipEc: 0.6 },
    ],
    gaSpacingDays: 120,
    newestGaAgeDays: 49,
    lifecycleDays: (m) => (m % 2 === 0 ? 1200 : 1000),
    zCap: (m) => randInt(61, 62, 'zcap', m),
    cadenceWeeks: (count, r) => (count < 16 ? 1 : count < 40 ? 1 + (r < 0.5) : 2),
    preReleases,
    eusMinors: range(6, 30).filter((m) => m % 2 === 0),
    pulledMinors: (ms) => ms.filter((m) => m % 5 === 2),
    rates: { burn: 0.05, candidateOnly: 0.012, fastOnly: 0.015, prevSkip: 0.08 },
    blockedBudget: (m) => (m < 2 ? 0 : 56),
    ruleWeights: { promql: 0.52, always: 0.36, both: 0.12 },
    minPromqlShare: 0.45,
    metadataChance: 0.35,
  };
}

export const SIZES = { demo: demoProfile, full: fullProfile };

export function sizeProfile(size, random) {
  return SIZES[size](random);
}
