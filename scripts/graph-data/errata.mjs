// Errata URLs: every GA and z-stream gets one, numbered per year in release order (pre-releases
// have none). GA errata and about a third of the others are security advisories (RHSA).
import { DAY_MS } from './profiles.mjs';
import { compareVersions } from './versionOrder.mjs';

export function assignErrataUrls({ profile, versions }, { chance, randInt }) {
  const year = (day) => new Date(profile.nowMs + day * DAY_MS).getUTCFullYear();
  const dated = [...versions.values()].filter((v) => !v.pre);
  dated.sort((a, b) => a.day - b.day || compareVersions(a.name, b.name));
  const counters = new Map();
  for (const v of dated) {
    const y = year(v.day);
    const n = (counters.get(y) ?? randInt(900, 1400, 'errata-start', y)) + randInt(3, 45, 'errata-step', v.name);
    counters.set(y, n);
    const type = v.z === 0 || chance(0.3, 'rhsa', v.name) ? 'RHSA' : 'RHBA';
    v.url = `https://access.example.com/errata/${type}-${y}:${String(n).padStart(4, '0')}`;
  }
}
