#!/usr/bin/env node
// Generates an invented, deterministic demo dataset in the layout of the
// openshift/cincinnati-graph-data repository plus this project's release
// records (releases/<arch>/<version>.json).
//
//   node scripts/generate-graph-data.mjs [--out DIR] [--size demo|full] [--seed N] [--check]
//
// Every name, message, URL and digest below is made up. Only node: builtins are
// used; YAML is written by hand (the subset needed is tiny). The output depends
// only on the arguments: no clock, no environment, seeded PRNG streams.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import process from 'node:process';
import { parseArgs } from 'node:util';

// ---------------------------------------------------------------- arguments

const { values: args } = parseArgs({
  options: {
    out: { type: 'string', default: 'graph-data' },
    size: { type: 'string', default: 'demo' },
    seed: { type: 'string', default: '1' },
    check: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (args.help) {
  process.stdout.write(
    'usage: node scripts/generate-graph-data.mjs [--out DIR] [--size demo|full] [--seed N] [--check]\n',
  );
  process.exit(0);
}
if (args.size !== 'demo' && args.size !== 'full') {
  process.stderr.write(`unknown --size ${JSON.stringify(args.size)} (expected demo or full)\n`);
  process.exit(2);
}
if (!/^\d+$/.test(args.seed)) {
  process.stderr.write(`--seed must be a non-negative integer, got ${JSON.stringify(args.seed)}\n`);
  process.exit(2);
}
const SIZE = args.size;
const SEED = Number(args.seed);
const OUT = path.resolve(process.cwd(), args.out);

// ---------------------------------------------------------------- seeded randomness

function fnv1a(str) {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mulberry32(a) {
  return function next() {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An independent PRNG stream per purpose, so adding one draw never shifts another. */
function stream(...keys) {
  return mulberry32(fnv1a(`${SEED}|${keys.join('|')}`));
}
const rand = (...keys) => stream(...keys)();
const chance = (p, ...keys) => rand(...keys) < p;
const randInt = (lo, hi, ...keys) => lo + Math.floor(rand(...keys) * (hi - lo + 1));
function shuffled(list, ...keys) {
  const r = stream('shuffle', ...keys);
  const a = list.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
function pickWeighted(weights, ...keys) {
  const entries = Object.entries(weights).filter(([, w]) => w > 0);
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let x = rand(...keys) * total;
  for (const [k, w] of entries) {
    if ((x -= w) < 0) return k;
  }
  return entries[entries.length - 1][0];
}
const sha256 = (s) => crypto.createHash('sha256').update(s).digest('hex');

// ---------------------------------------------------------------- semver

const parsedCache = new Map();
function parseVersion(v) {
  let p = parsedCache.get(v);
  if (p) return p;
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(v);
  if (!m) throw new Error(`not a semver version: ${v}`);
  p = { major: +m[1], minor: +m[2], patch: +m[3], pre: m[4] ? m[4].split('.') : [] };
  parsedCache.set(v, p);
  return p;
}
function compareVersions(a, b) {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (x.major !== y.major) return x.major - y.major;
  if (x.minor !== y.minor) return x.minor - y.minor;
  if (x.patch !== y.patch) return x.patch - y.patch;
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn && +p !== +q) return +p - +q;
    if (pn !== qn) return pn ? -1 : 1;
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}
const sortVersions = (list) => list.slice().sort(compareVersions);

// ---------------------------------------------------------------- regex helpers

/** Alternation (without outer parentheses) matching exactly the integers lo..hi. */
function numRange(lo, hi) {
  if (lo > hi) throw new Error(`bad range ${lo}..${hi}`);
  const cls = (a, b) => (a === b ? String(a) : `[${a}-${b}]`);
  const sameLen = (a, b) => {
    if (a === b) return [a];
    if (a.length === 1) return [cls(+a, +b)];
    if (a[0] === b[0]) return sameLen(a.slice(1), b.slice(1)).map((p) => a[0] + p);
    const nines = '9'.repeat(a.length - 1);
    const zeros = '0'.repeat(a.length - 1);
    const out = [];
    let first = +a[0];
    let last = +b[0];
    if (a.slice(1) !== zeros) {
      out.push(...sameLen(a.slice(1), nines).map((p) => a[0] + p));
      first += 1;
    }
    const tail = b.slice(1) !== nines;
    if (tail) last -= 1;
    if (first <= last) out.push(cls(first, last) + '[0-9]'.repeat(a.length - 1));
    if (tail) out.push(...sameLen(zeros, b.slice(1)).map((p) => b[0] + p));
    return out;
  };
  const parts = [];
  for (let d = String(lo).length; d <= String(hi).length; d++) {
    const a = Math.max(lo, d === 1 ? 0 : 10 ** (d - 1));
    const b = Math.min(hi, 10 ** d - 1);
    if (a <= b) parts.push(...sameLen(String(a), String(b)));
  }
  return parts.join('|');
}
const minorRe = (...minors) =>
  minors.length === 1 ? `4[.]${minors[0]}[.][0-9].*` : `4[.](${minors.join('|')})[.][0-9].*`;

// ---------------------------------------------------------------- size profiles

const DAY_MS = 86400000;
const PROFILES = {
  demo: {
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
    cadenceWeeks: (count, r) => (count < 4 ? 1 : count < 16 ? 1 + (r < 0.5) : count < 30 ? 2 + (r < 0.4) : 3 + Math.floor(r * 2)),
    preReleases: (m) =>
      m <= 13 ? { ec: 0, fc: 0, rc: randInt(3, 4, 'rc', m) } : { ec: randInt(2, 3, 'ec', m), fc: 0, rc: randInt(3, 4, 'rc', m) },
    eusMinors: [12, 14, 16, 18],
    pulledMinors: (ms) => [ms[ms.length - 3]],
    rates: { burn: 0.07, candidateOnly: 0.02, fastOnly: 0.03, prevSkip: 0.08 },
    blockedBudget: (m) => ({ 12: 4, 13: 5, 14: 6, 15: 7, 16: 7, 17: 6, 18: 5 })[m] ?? 5,
    ruleWeights: { promql: 0.7, always: 0.16, both: 0.14 },
    minPromqlShare: 0.6,
    metadataChance: 0,
  },
  full: {
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
    preReleases: (m) =>
      m <= 9
        ? { ec: 0, fc: 0, rc: randInt(3, 6, 'rc', m) }
        : m <= 11
          ? { ec: 0, fc: randInt(2, 4, 'fc', m), rc: randInt(2, 4, 'rc', m) }
          : { ec: randInt(3, 5, 'ec', m), fc: 0, rc: randInt(3, 5, 'rc', m) },
    eusMinors: range(6, 30).filter((m) => m % 2 === 0),
    pulledMinors: (ms) => ms.filter((m) => m % 5 === 2),
    rates: { burn: 0.05, candidateOnly: 0.012, fastOnly: 0.015, prevSkip: 0.08 },
    blockedBudget: (m) => (m < 2 ? 0 : 56),
    ruleWeights: { promql: 0.52, always: 0.36, both: 0.12 },
    minPromqlShare: 0.45,
    metadataChance: 0.35,
  },
};
function range(a, b) {
  const out = [];
  for (let i = a; i <= b; i++) out.push(i);
  return out;
}

const P = PROFILES[SIZE];
const NOW = 0; // day numbers are relative to P.nowMs
const LAST_BATCH = -1; // weekly z-stream batches land on days congruent to -1 mod 7
const dayYear = (day) => new Date(P.nowMs + day * DAY_MS).getUTCFullYear();

// ---------------------------------------------------------------- releases (timeline)

/** @type {Map<string, any>} version name -> record */
const versions = new Map();
/** @type {Map<number, any>} minor -> { m, ga, end, active, pres, zs, floorIdx } */
const minors = new Map();
const MINORS = P.minors;
const NEWEST = MINORS[MINORS.length - 1];

function newVersion(name, m, fields) {
  const rec = {
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
  versions.set(name, rec);
  return rec;
}

for (const m of MINORS) {
  const ageWeeks = Math.round((P.newestGaAgeDays + (NEWEST - m) * P.gaSpacingDays) / 7);
  const ga = LAST_BATCH - 7 * ageWeeks;
  const end = ga + P.lifecycleDays(m);
  const active = end >= LAST_BATCH;
  const M = { m, ga, end, active, pres: [], zs: [], floorIdx: -1 };
  minors.set(m, M);

  // Pre-releases: engineering candidates (ec) or feature candidates (fc), then release candidates.
  const counts = P.preReleases(m);
  for (let k = 0; k < counts.ec; k++) {
    M.pres.push(newVersion(`4.${m}.0-ec.${k}`, m, { pre: { kind: 'ec', n: k }, day: ga - 84 + 14 * k + randInt(-1, 1, 'preday', m, 'ec', k) }));
  }
  for (let k = 0; k < counts.fc; k++) {
    M.pres.push(newVersion(`4.${m}.0-fc.${k}`, m, { pre: { kind: 'fc', n: k }, day: ga - 70 + 10 * k + randInt(-1, 1, 'preday', m, 'fc', k) }));
  }
  for (let k = 0; k < counts.rc; k++) {
    M.pres.push(newVersion(`4.${m}.0-rc.${k}`, m, { pre: { kind: 'rc', n: k }, day: ga - 30 + 6 * k + randInt(-1, 1, 'preday', m, 'rc', k) }));
  }

  // GA and z-streams, released in weekly batches until end of life or the cap.
  M.zs.push(newVersion(`4.${m}.0`, m, { z: 0, day: ga }));
  const cap = P.zCap(m);
  let z = 1;
  let day = ga;
  const weeklyTail = active && m >= NEWEST - 1 ? [LAST_BATCH - 7, LAST_BATCH] : [LAST_BATCH];
  const limit = Math.min(weeklyTail[0] - 1, end);
  for (;;) {
    if (M.zs.length >= cap) break;
    day += 7 * P.cadenceWeeks(M.zs.length, rand('cadence', m, z));
    if (day > limit) break;
    if (z > 1 && chance(P.rates.burn, 'burn', m, z)) z++; // a z number that was never shipped
    M.zs.push(newVersion(`4.${m}.${z}`, m, { z, day }));
    z++;
  }
  // Every supported minor ships in the newest batch (still candidate-only); the two
  // newest minors also shipped the week before (in fast, not yet in stable).
  if (active) {
    for (const d of weeklyTail) {
      if (M.zs.length < cap && M.zs[M.zs.length - 1].day < d) {
        M.zs.push(newVersion(`4.${m}.${z}`, m, { z, day: d }));
        z++;
      }
    }
  }
}

// ---------------------------------------------------------------- pulled / held-back releases

for (const m of P.pulledMinors(MINORS)) {
  const M = minors.get(m);
  if (M.zs.length < 8) continue;
  M.zs[Math.max(3, Math.floor(M.zs.length * 0.45))].pulled = true;
}
for (const M of minors.values()) {
  M.zs.forEach((v, i) => {
    if (i === 0 || i >= M.zs.length - 2 || v.pulled) return;
    if (chance(P.rates.candidateOnly, 'candonly', v.name)) v.candidateOnly = true;
    else if (chance(P.rates.fastOnly, 'fastonly', v.name)) v.fastOnly = true;
  });
}
if (SIZE === 'demo' && ![...versions.values()].some((v) => v.candidateOnly)) {
  const M = minors.get(MINORS[MINORS.length - 2]);
  const v = M.zs[Math.floor(M.zs.length / 2)];
  if (!v.pulled) v.candidateOnly = true;
}

// ---------------------------------------------------------------- promotion levels

const LEVELS = ['candidate', 'fast', 'stable'];
const levelRank = (l) => (l ? LEVELS.indexOf(l) : -1);
for (const M of minors.values()) {
  for (const p of M.pres) p.level = 'candidate';
  for (const v of M.zs) {
    if (v.pulled) continue;
    v.fastDay = v.day + (v.z === 0 ? 0 : randInt(2, 4, 'errata-lag', v.name));
    if (v.candidateOnly || v.fastDay > NOW) {
      v.level = 'candidate';
      continue;
    }
    v.stableDay = Math.max(v.fastDay + 7, M.ga + 42);
    v.level = v.fastOnly || v.stableDay > NOW ? 'fast' : 'stable';
  }
}

// ---------------------------------------------------------------- architectures

const ARCHES = P.arches.map((a) => a.arch);
for (const M of minors.values()) {
  const lastZ = M.zs[M.zs.length - 1];
  for (const v of [...M.pres, ...M.zs]) {
    for (const a of P.arches) {
      if (M.m < a.from) continue;
      let skip = false;
      if (v.pre) skip = v.pre.kind !== 'rc' && chance(a.skipEc, 'skip-pre', a.arch, v.name);
      else if (v.z !== 0 && v !== lastZ) skip = chance(a.skip, 'skip', a.arch, v.name);
      if (!skip) v.arches.push(a.arch);
    }
  }
}

// ---------------------------------------------------------------- update sources (previous)

// A release-candidate link that was missed in the release metadata and is added
// back through raw/metadata.json (previous.add), as happens in practice.
const rcLinks = new Map(); // target name -> added source name
for (const M of minors.values()) {
  const rcs = M.pres.filter((p) => p.pre.kind === 'rc');
  if (rcs.length < 3) continue;
  const pickIt = SIZE === 'demo' ? M.m === NEWEST - 1 : chance(P.metadataChance, 'rclink', M.m);
  if (pickIt) rcLinks.set(rcs[rcs.length - 1].name, rcs[rcs.length - 3].name);
}

for (const M of minors.values()) {
  const prevM = minors.get(M.m - 1);
  const prevList = prevM ? prevM.zs.filter((v) => !v.pulled) : [];
  const releasedBefore = (day) => prevList.filter((v) => v.day < day);
  const atGa = releasedBefore(M.ga);
  M.floorIdx = atGa.length ? Math.max(0, atGa.length - 1 - randInt(0, 3, 'floor', M.m)) : -1;

  M.pres.forEach((p, i) => {
    const prev = [];
    for (let j = 0; j < i; j++) {
      const q = M.pres[j];
      if (rcLinks.get(p.name) === q.name) continue;
      if (j === i - 1 || !chance(0.25, 'preskip', p.name, q.name)) prev.push(q.name);
    }
    const window = releasedBefore(p.day);
    prev.push(...window.slice(-randInt(2, 5, 'prewindow', p.name)).map((v) => v.name));
    p.previous = prev;
  });

  M.zs.forEach((v, i) => {
    const prev = [];
    if (i === 0) {
      for (const p of M.pres) {
        if (p.pre.kind === 'rc' || !chance(0.3, 'gaskip', p.name)) prev.push(p.name);
      }
    } else {
      for (let j = 0; j < i; j++) {
        const q = M.zs[j];
        if (q.pulled) continue;
        if (j === 0 || j === i - 1 || !chance(P.rates.prevSkip, 'zskip', v.name, q.name)) prev.push(q.name);
      }
    }
    if (M.floorIdx >= 0) {
      prevList.forEach((q, idx) => {
        if (idx >= M.floorIdx && q.day < v.day) prev.push(q.name);
      });
    }
    v.previous = prev;
  });
}
for (const v of versions.values()) v.previous = sortVersions(v.previous);

// ---------------------------------------------------------------- errata

{
  const dated = [...versions.values()].filter((v) => !v.pre);
  dated.sort((a, b) => a.day - b.day || compareVersions(a.name, b.name));
  const counters = new Map();
  for (const v of dated) {
    const year = dayYear(v.day);
    const n = (counters.get(year) ?? randInt(900, 1400, 'errata-start', year)) + randInt(3, 45, 'errata-step', v.name);
    counters.set(year, n);
    const type = v.z === 0 || chance(0.3, 'rhsa', v.name) ? 'RHSA' : 'RHBA';
    v.url = `https://access.example.com/errata/${type}-${year}:${String(n).padStart(4, '0')}`;
  }
}

// ---------------------------------------------------------------- raw/metadata.json

const K_PREV_ADD = 'io.openshift.upgrades.graph.previous.add';
const K_PREV_REMOVE = 'io.openshift.upgrades.graph.previous.remove';
const K_NEXT_ADD = 'io.openshift.upgrades.graph.next.add';
const K_REMOVE = 'io.openshift.upgrades.graph.release.remove';
const rawMetadata = {};
const setMeta = (v, k, val) => {
  (rawMetadata[v] ??= {})[k] = val;
};
for (const [target, source] of rcLinks) setMeta(target, K_PREV_ADD, source);
for (const v of versions.values()) if (v.pulled) setMeta(v.name, K_REMOVE, 'true');
for (const M of minors.values()) {
  const prevM = minors.get(M.m - 1);
  const pick = (what, demoMinor) => (SIZE === 'demo' ? M.m === demoMinor : chance(P.metadataChance, what, M.m));
  // A known-bad z-stream hop withdrawn from the release metadata after the fact.
  if (pick('prevremove', NEWEST - 3) && M.zs.length >= 8) {
    const v = M.zs[Math.floor(M.zs.length * 0.6)];
    const same = v.previous.filter((n) => versions.get(n).minor === M.m && versions.get(n).z > 0);
    if (same.length >= 3) setMeta(v.name, K_PREV_REMOVE, same[Math.floor(same.length / 2)]);
  }
  // An older update source let into the GA release.
  if (pick('gaadd', NEWEST - 1) && prevM && M.floorIdx >= 2) {
    const list = prevM.zs.filter((v) => !v.pulled);
    setMeta(M.zs[0].name, K_PREV_ADD, [rawMetadata[M.zs[0].name]?.[K_PREV_ADD], list[M.floorIdx - 1].name].filter(Boolean).join(','));
  }
  // A forward edge declared on the source release (next.add) into the .1 of the next minor.
  const nextM = minors.get(M.m + 1);
  if (pick('nextadd', NEWEST - 4) && nextM && nextM.floorIdx >= 3 && nextM.zs.length > 1) {
    const list = M.zs.filter((v) => !v.pulled);
    const src = list[nextM.floorIdx - 2];
    if (src.day < nextM.zs[1].day) setMeta(src.name, K_NEXT_ADD, nextM.zs[1].name);
  }
}

// ---------------------------------------------------------------- channels

const atLeast = (v, level) => levelRank(v.level) >= levelRank(level);
const versionsOf = (ms) => ms.flatMap((m) => (minors.has(m) ? [...minors.get(m).pres, ...minors.get(m).zs] : []));
const isEol = (m) => !minors.has(m) || !minors.get(m).active;

/** channels: name -> { name, feeder?, versions, tombstones? } */
const channels = new Map();
const internalChannels = new Map();

function tombstonesFor(ms, level) {
  const pool = versionsOf(ms);
  if (level === 'candidate') return pool.filter((v) => v.pulled).map((v) => v.name);
  if (level === 'fast') return pool.filter((v) => v.candidateOnly).map((v) => v.name);
  return pool.filter((v) => v.fastOnly).map((v) => v.name);
}

function addChannel(kind, m, level, ms, feeder) {
  const name = `${kind}-4.${m}`;
  const present = ms.filter((x) => minors.has(x));
  let list = versionsOf(present).filter((v) => atLeast(v, level));
  if (kind === 'eus') list = list.filter((v) => v.stableDay <= NOW - 2);
  const ch = { name, versions: sortVersions(list.map((v) => v.name)) };
  if (!present.every(isEol)) ch.feeder = { delay: feeder.delay, filter: minorRe(...ms), name: feeder.name };
  const tomb = tombstonesFor(present, level);
  if (tomb.length) ch.tombstones = sortVersions(tomb);
  channels.set(name, ch);
}

for (const m of MINORS) {
  addChannel('candidate', m, 'candidate', [m - 1, m], { name: 'candidate', delay: 'PT0H' });
  addChannel('fast', m, 'fast', [m - 1, m], { name: 'fast', delay: 'PT0H' });
  addChannel('stable', m, 'stable', [m - 1, m], { name: 'stable', delay: 'PT0H' });
  if (P.eusMinors.includes(m)) addChannel('eus', m, 'stable', [m - 2, m - 1, m], { name: 'stable', delay: 'PT48H' });
}
{
  const all = [...versions.values()];
  const mk = (level, feeder) => {
    const ch = { name: level, versions: sortVersions(all.filter((v) => atLeast(v, level)).map((v) => v.name)) };
    if (feeder) ch.feeder = feeder;
    const tomb = tombstonesFor(MINORS, level);
    if (tomb.length) ch.tombstones = sortVersions(tomb);
    internalChannels.set(level, ch);
  };
  mk('candidate', null);
  mk('fast', { errata: 'public', name: 'candidate' });
  mk('stable', { delay: 'P1W', name: 'fast' });
}

// ---------------------------------------------------------------- risk catalogue (invented)

const fallbackAll = `0 * group(cluster_version{_id=""})`;
const grp = (sel) => `group(${sel})\nor\n${fallbackAll}\n`;
const provider = (type) => grp(`cluster_infrastructure_provider{_id="",type${type.includes('|') ? '=~' : '='}"${type}"}`);

const CONDITIONS = {
  AWS: { tag: 'AWS', phrase: 'On AWS clusters', q: () => provider('AWS') },
  Azure: { tag: 'Azure', phrase: 'On Azure clusters', q: () => provider('Azure') },
  GCP: { tag: 'GCP', phrase: 'On GCP clusters', q: () => provider('GCP') },
  VSphere: { tag: 'VSphere', phrase: 'On vSphere clusters', q: () => provider('VSphere') },
  BareMetal: { tag: 'BareMetal', phrase: 'On bare-metal clusters', q: () => provider('BareMetal') },
  OpenStack: { tag: 'OpenStack', phrase: 'On OpenStack clusters', q: () => provider('OpenStack') },
  Nutanix: { tag: 'Nutanix', phrase: 'On Nutanix clusters', q: () => provider('Nutanix') },
  IBMCloud: { tag: 'IBMCloud', phrase: 'On IBM Cloud clusters', q: () => provider('IBMCloud') },
  OnPrem: { tag: 'OnPrem', phrase: 'On vSphere and platform-agnostic clusters', q: () => provider('VSphere|None') },
  Proxy: {
    tag: 'Proxy',
    phrase: 'On clusters that send egress traffic through a cluster-wide HTTPS proxy',
    q: () => grp(`cluster_proxy_enabled{_id="",type="https"}`),
  },
  FeatureSet: {
    tag: 'FeatureSet',
    phrase: 'On clusters with a non-default feature set',
    q: () => grp(`cluster_feature_set{_id="",name!=""}`),
  },
  RHEL: {
    tag: 'RHEL',
    phrase: 'On clusters with RHEL compute nodes',
    q: () => grp(`kube_node_labels{_id="",label_node_openshift_io_os_id="rhel"}`),
  },
  UPI: {
    tag: 'UPI',
    phrase: 'On clusters installed on user-provisioned infrastructure',
    q: () => grp(`cluster_installer{_id="",type="upi"}`),
  },
  LongLived: {
    tag: 'LongLived',
    phrase: (m) => `On clusters originally installed as 4.${Math.max(1, m - 4)} or earlier`,
    q: (m) => grp(`cluster_version{_id="",type="initial",version=~"4[.](${numRange(1, Math.max(1, m - 4))})[.].*"}`),
  },
  VSphereHW: {
    tag: 'VSphereHW',
    phrase: 'On vSphere clusters with virtual machines below hardware version 15',
    q: () => grp(`vsphere_node_hw_version_total{_id="",hw_version=~"vmx-(9|1[0-4])"} > 0`),
  },
  AzureProxy: {
    tag: 'AzureProxy',
    phrase: 'On Azure clusters with a cluster-wide HTTPS proxy',
    q: () =>
      `group(\n  cluster_infrastructure_provider{_id="",type="Azure"}\n  * on (_id) group_left ()\n  cluster_proxy_enabled{_id="",type="https"}\n)\nor\n${fallbackAll}\n`,
  },
  AWSSTS: {
    tag: 'AWSSTS',
    phrase: 'On AWS clusters that use short-lived STS credentials',
    q: () =>
      `group(\n  cluster_infrastructure_provider{_id="",type="AWS"}\n  * on (_id) group_left ()\n  cco_credentials_mode{_id="",mode="manualpodidentity"}\n)\nor\n${fallbackAll}\n`,
  },
  CapBuild: {
    tag: '',
    phrase: 'On clusters with the Build capability enabled',
    q: () => grp(`cluster_version_capability{_id="",name="Build"} == 1`),
  },
  CapConsole: {
    tag: '',
    phrase: 'On clusters with the Console capability enabled',
    q: () => grp(`cluster_version_capability{_id="",name="Console"} == 1`),
  },
  CapRegistry: {
    tag: '',
    phrase: 'On clusters with the ImageRegistry capability enabled',
    q: () => grp(`cluster_version_capability{_id="",name="ImageRegistry"} == 1`),
  },
  CapInsights: {
    tag: '',
    phrase: 'On clusters with the Insights capability enabled',
    q: () => grp(`cluster_version_capability{_id="",name="Insights"} == 1`),
  },
  MCODegraded: {
    tag: '',
    phrase: 'On clusters where the machine-config operator already reports Degraded',
    q: () => grp(`cluster_operator_conditions{_id="",name="machine-config",condition="Degraded"} == 1`),
  },
  NetworkDegraded: {
    tag: '',
    phrase: 'On clusters where the network operator already reports Degraded',
    q: () => grp(`cluster_operator_conditions{_id="",name="network",condition="Degraded"} == 1`),
  },
  IngressNotUpgradeable: {
    tag: '',
    phrase: 'On clusters where the ingress operator reports Upgradeable=False',
    q: () => grp(`cluster_operator_conditions{_id="",name="ingress",condition="Upgradeable"} == 0`),
  },
  LoggingOperator: {
    tag: '',
    phrase: 'On clusters running the cluster logging operator',
    q: () => grp(`csv_succeeded{_id="",name=~"cluster-logging[.].*"}`),
  },
  StorageOperator: {
    tag: '',
    phrase: 'On clusters running the data foundation storage operator',
    q: () => grp(`csv_succeeded{_id="",name=~"odf-operator[.].*"}`),
  },
};
const COND_KEYS = Object.keys(CONDITIONS);

const BASES = [
  ['EtcdDefragStall', 'members of the etcd cluster holding more than 8 GiB of data may stall in the defragmentation that follows the update, slowing API requests for several minutes.', ['AWS', 'Azure', 'BareMetal']],
  ['EtcdLeaderChurn', 'the etcd cluster may change leaders repeatedly while control-plane nodes reboot, and API requests can time out until the rollout finishes.', ['VSphere', 'OnPrem', 'VSphereHW']],
  ['IngressRouterReloadLeak', 'router pods may leak file descriptors on every configuration reload, eventually refusing new connections on busy ingress controllers.', ['IngressNotUpgradeable', 'AWS', 'BareMetal']],
  ['IngressCanaryFalseAlarm', 'the ingress canary check may fail behind a proxy, marking the ingress operator Degraded although routes keep working.', ['Proxy', 'AzureProxy']],
  ['MachineConfigDrainTimeout', 'the machine config daemon may time out draining nodes that run pods with strict disruption budgets, leaving the pool stuck in Updating.', ['MCODegraded', 'RHEL', 'UPI']],
  ['MachineConfigRenderLoop', 'the machine config controller may render a new configuration on every resync, rebooting nodes more than once during the update.', ['LongLived', 'MCODegraded']],
  ['OVNGatewayRouteLoss', 'OVN-Kubernetes may drop the default gateway route on nodes with a secondary interface, so egress from those nodes fails until they reboot.', ['BareMetal', 'OnPrem', 'NetworkDegraded']],
  ['OVNNorthboundCompaction', 'the OVN northbound database may stop compacting and grow until the ovnkube-control-plane pods run out of memory.', ['LongLived', 'NetworkDegraded']],
  ['KubeletMemoryPressureMisread', 'the kubelet may misreport memory pressure on nodes with more than 256 GiB of memory and evict workloads that fit comfortably.', ['BareMetal', 'RHEL']],
  ['CRIOMirrorPullStall', 'CRI-O may stall pulling large images through a registry mirror, delaying pod start-up by up to fifteen minutes.', ['Proxy', 'UPI']],
  ['CSIAttachLimitDrop', 'the CSI driver may report a lower volume attach limit, so new pods with persistent volumes stay Pending on full nodes.', ['AWS', 'Azure', 'GCP', 'VSphere']],
  ['PrometheusWALReplayOOM', 'the in-cluster Prometheus may replay an oversized write-ahead log and be OOM-killed in a restart loop.', ['LongLived', 'AWS']],
  ['CatalogRefreshLoop', 'the Operator Lifecycle Manager may refresh catalog sources in a tight loop, raising API server load and delaying operator installs.', ['Proxy', 'StorageOperator']],
  ['ConsolePluginBlankPage', 'the web console may fail to load dynamic plugins served with a custom certificate, leaving plugin pages blank.', ['CapConsole', 'Proxy']],
  ['RegistryStorageRemigration', 'the image registry may re-run its storage migration and reject pushes until the migration finishes.', ['CapRegistry', 'Azure', 'OpenStack']],
  ['OAuthTokenCacheSkew', 'the OAuth server may reject recently issued tokens for a few minutes after its pods restart, logging users out of the console and CLI.', ['Proxy', 'FeatureSet']],
  ['APIServerWatchCacheGrowth', 'the Kubernetes API server may keep a much larger watch cache and be OOM-killed on control planes with 16 GiB of memory.', ['LongLived', 'FeatureSet']],
  ['DNSUpstreamTimeout', 'the DNS operator may apply a shorter upstream timeout, causing intermittent lookup failures against slow corporate resolvers.', ['UPI', 'OnPrem', 'Proxy']],
  ['TunedProfileStorm', 'the Node Tuning Operator may re-apply tuned profiles on every node at once, briefly raising latency for sensitive workloads.', ['BareMetal', 'FeatureSet']],
  ['AutoscalerScaleDownBurst', 'the cluster autoscaler may remove several nodes at once right after the update, before replacement capacity is ready.', ['AWS', 'GCP', 'Azure']],
  ['MachineProviderIDMismatch', 'the Machine API may fail to match machines to nodes whose provider ID changed format, blocking machine set scale-up.', ['OpenStack', 'Nutanix', 'IBMCloud', 'VSphere']],
  ['CredentialsRootRotation', 'the cloud credential operator may rotate credentials mid-update, interrupting components that cached the previous secret.', ['AWS', 'AWSSTS', 'GCP']],
  ['KeepalivedVIPFlap', 'keepalived may move the API virtual IP between control-plane nodes repeatedly during the update, causing short API outages.', ['OnPrem', 'BareMetal', 'Nutanix']],
  ['APILoadBalancerProbeDrift', 'the on-cluster load balancer may mark healthy API servers as down when their health checks answer slowly, leaving a single backend.', ['OnPrem', 'OpenStack']],
  ['MultusAttachDelay', 'Multus may take several minutes to attach secondary networks to new pods.', ['BareMetal', 'NetworkDegraded']],
  ['EgressIPFailoverStuck', 'egress IP addresses may not move off an unreachable node, interrupting outbound traffic that depends on them.', ['VSphere', 'BareMetal', 'AWS']],
  ['PreconditionCheckLoop', 'the cluster version operator may re-run update preconditions in a loop and report Progressing without advancing.', ['LongLived', 'IngressNotUpgradeable']],
  ['InsightsGatherTimeout', 'the Insights operator may time out gathering data on large clusters and report Degraded.', ['CapInsights', 'Proxy']],
  ['BuildSecretMountFailure', 'builds that mount secrets may fail to start because the build controller resolves projected secret names incorrectly.', ['CapBuild', 'Proxy']],
  ['SampleImportThrottled', 'the samples operator may import every sample image stream at once and hit registry rate limits, leaving it Degraded.', ['Proxy', 'UPI']],
  ['ProvisioningDHCPRangeLoss', 'the bare-metal provisioning network may lose its DHCP range, so newly added hosts fail to provision.', ['BareMetal']],
  ['IdentityProviderProbeFailure', 'the authentication operator may fail to reach external identity providers through the proxy and report Degraded.', ['Proxy', 'AzureProxy']],
  ['SnapshotControllerCrash', 'the volume snapshot controller may crash on snapshots created before the update, blocking new snapshots.', ['StorageOperator', 'VSphere', 'Azure']],
  ['SchedulerPriorityInversion', 'the scheduler may place low-priority pods ahead of pending high-priority pods while nodes roll.', ['FeatureSet', 'BareMetal']],
  ['MTUMigrationStall', 'an MTU migration that is already in progress may stall when the network operator restarts, leaving nodes with mixed MTUs.', ['NetworkDegraded', 'OnPrem']],
  ['LogForwarderBackpressure', 'log collectors may stop forwarding under back-pressure from the new output buffer limits, dropping application logs.', ['LoggingOperator']],
  ['ServiceCAReissueGap', 'the service CA may re-issue serving certificates before all consumers trust the new bundle, breaking webhook calls for a few minutes.', ['LongLived', 'StorageOperator']],
  ['NodeImageBootstall', 'nodes created from an old boot image may fail to join after the update because the first-boot service no longer understands their config.', ['AWS', 'GCP', 'Azure', 'LongLived']],
  ['PodSecurityLabelSync', 'the namespace label syncer may raise pod security enforcement on namespaces it manages, blocking privileged workloads.', ['FeatureSet', 'UPI']],
  ['MetricsServerCertExpiry', 'the metrics server may keep serving an expired certificate after rotation, so horizontal pod autoscalers stop scaling.', ['Proxy', 'LongLived']],
].map(([name, text, conds]) => ({ name, text, conds }));

const ARM_BASES = [
  ['ARM64KernelPageSize', 'nodes running on arm64 may boot a kernel configured for 64k pages, and workloads built for 4k pages fail to start.', ['BareMetal']],
  ['ARM64VirtioNetStall', 'virtual machines running on arm64 may lose network connectivity under sustained traffic because of a virtio-net driver regression.', ['AWS', 'Azure', 'GCP']],
  ['ARM64MirroredManifestMismatch', 'nodes running on arm64 may pull the amd64 variant of some operator images from mirrored registries and crash-loop.', ['UPI', 'Proxy']],
  ['ARM64HugepageReservation', 'nodes running on arm64 may reserve hugepages of the wrong size, so pods requesting 2Mi hugepages stay Pending.', ['BareMetal', 'AWS']],
  ['ARM64FirmwareClockDrift', 'hosts running on arm64 with older firmware may see their clocks drift after the update, failing certificate validation.', ['BareMetal', 'OnPrem']],
].map(([name, text, conds]) => ({ name, text, conds }));

const SECOND_SENTENCES = [
  'Updating to a release that carries the fix avoids the problem.',
  'Clusters that are not exposed can update safely.',
  'The linked article describes a workaround that can be applied before updating.',
  'Pausing the affected machine config pools until the fix ships avoids the impact.',
  'A fix is planned for an upcoming z-stream.',
  'Workloads recover once the affected pods are restarted.',
];

const RESPIN = {
  name: 'RebuiltPayloadSuperseded',
  url: 'https://access.example.com/solutions/7001234',
  message: 'This release was rebuilt because of a packaging error, and the next z-stream carries the same fixes. Update to that release instead.',
  rules: [{ type: 'Always' }],
};

const HARD_SLUGS = ['missing-prerequisite', 'crd-storage-migration', 'sdn-bridge-cleanup', 'legacy-route-shards', 'etcd-schema-upgrade', 'stale-machine-configs'];

const usedNames = new Set([RESPIN.name]);
const usedBugs = new Set();
function riskUrl(name) {
  if (chance(0.18, 'kb', name)) return `https://access.example.com/solutions/${randInt(6000000, 7999999, 'kbid', name)}`;
  let n = randInt(10000, 59999, 'bug', name);
  while (usedBugs.has(n)) n++;
  usedBugs.add(n);
  return `https://issues.example.com/browse/OCPBUGS-${n}`;
}
const capitalize = (s) => s[0].toUpperCase() + s.slice(1);

/** Hands out risk definitions with unique names: natural pairings first, then the rest. */
function makeDefPool(bases, key) {
  const natural = [];
  const other = [];
  for (const b of bases) {
    for (const c of COND_KEYS) (b.conds.includes(c) ? natural : other).push([b, c]);
  }
  const pairs = [...shuffled(natural, key, 'natural'), ...shuffled(other, key, 'other')];
  const alwaysBases = shuffled(bases, key, 'always');
  let pi = 0;
  let ai = 0;
  const build = (b, ck, kind, m) => {
    const c = ck ? CONDITIONS[ck] : null;
    const name = c ? `${c.tag}${b.name}` : b.name;
    const phrase = c ? (typeof c.phrase === 'function' ? c.phrase(m) : c.phrase) : null;
    let message = phrase ? `${phrase}, ${b.text}` : capitalize(b.text);
    if (chance(0.5, 'second', name)) message += ` ${SECOND_SENTENCES[randInt(0, SECOND_SENTENCES.length - 1, 'second-pick', name)]}`;
    const rules = [];
    if (kind !== 'always') rules.push({ type: 'PromQL', promql: c.q(m) });
    if (kind !== 'promql') rules.push({ type: 'Always' });
    return { name, url: riskUrl(name), message, rules };
  };
  return function next(kind, m) {
    if (kind === 'always') {
      while (ai < alwaysBases.length) {
        const b = alwaysBases[ai++];
        if (!usedNames.has(b.name)) {
          usedNames.add(b.name);
          return build(b, null, 'always', m);
        }
      }
    }
    while (pi < pairs.length) {
      const [b, ck] = pairs[pi++];
      const name = `${CONDITIONS[ck].tag}${b.name}`;
      if (usedNames.has(name)) continue;
      usedNames.add(name);
      return build(b, ck, kind, m);
    }
    throw new Error('risk catalogue exhausted; add bases or conditions');
  };
}
const nextRisk = makeDefPool(BASES, 'bases');
const nextArmRisk = makeDefPool(ARM_BASES, 'arm');

// ---------------------------------------------------------------- blocked edges

/** filename (without .yaml) -> { to, from, fixedIn?, risk? } */
const blocked = new Map();
const riskTargets = new Map(); // to -> count of risk files
function addBlock(file, entry) {
  if (blocked.has(file)) return false;
  blocked.set(file, entry);
  if (entry.risk) riskTargets.set(entry.to, (riskTargets.get(entry.to) ?? 0) + 1);
  return true;
}
const usable = (M) => M.zs.filter((v) => !v.pulled && !v.candidateOnly);
const nextUsable = (M, v) => usable(M).find((x) => compareVersions(x.name, v.name) > 0)?.name;
function ruleKind(...keys) {
  // Keep the running mix PromQL-heavy even for small (demo) datasets.
  const all = [...blocked.values()];
  const promql = all.filter((b) => b.risk?.rules.some((r) => r.type === 'PromQL')).length;
  if (all.length >= 4 && promql / all.length < P.minPromqlShare) return 'promql';
  return pickWeighted(P.ruleWeights, 'rulekind', ...keys);
}

function generateBlockedEdges() {
  // Releases held back in candidate are blocked outright.
  for (const v of versions.values()) {
    if (!v.candidateOnly) continue;
    const fixedIn = nextUsable(minors.get(v.minor), v);
    addBlock(v.name, { to: v.name, from: '.*', ...(fixedIn ? { fixedIn } : {}) });
  }

  for (const m of MINORS) {
    const M = minors.get(m);
    const prevM = minors.get(m - 1);
    const nextM = minors.get(m + 1);
    const T = usable(M);
    const budget = P.blockedBudget(m);
    let made = [...blocked.values()].filter((b) => b.to.startsWith(`4.${m}.`) && !b.risk).length;
    for (let attempt = 0; made < budget && attempt < 400; attempt++) {
      const key = [m, attempt];
      const type = pickWeighted(
        { minor: prevM ? 0.22 : 0, zreg: T.length >= 5 ? 0.43 : 0, arm: M.zs[0].arches.includes('arm64') ? 0.08 : 0, respin: 0.04, hard: 0.13, extra: 0.1 },
        'scenario',
        ...key,
      );
      const room = budget - made;
      if (type === 'minor') {
        const k = randInt(1, 4, 'minor-k', ...key);
        const targets = T.slice(0, Math.min(k + 1, room));
        if (!targets.length) continue;
        const rcs = M.pres.filter((p) => p.pre.kind === 'rc');
        if (chance(0.3, 'minor-rc', ...key) && targets.length + 2 <= room) targets.unshift(...rcs.slice(-2));
        const risk = nextRisk(ruleKind(...key), m);
        const fixedIn = chance(0.7, 'minor-fixed', ...key) ? nextUsable(M, targets[targets.length - 1]) : undefined;
        for (const v of targets) {
          if (addBlock(`${v.name}-${risk.name}`, { to: v.name, from: `4[.]${m - 1}[.].*`, ...(fixedIn && !v.pre ? { fixedIn } : {}), risk })) made++;
        }
      } else if (type === 'zreg') {
        const a = randInt(1, T.length - 3, 'zreg-a', ...key);
        const len = Math.min(randInt(1, 5, 'zreg-len', ...key), T.length - a, room);
        const intro = T[a];
        const risk = nextRisk(ruleKind(...key), m);
        const fixedIn = T[a + len]?.name;
        const early = numRange(0, intro.z - 1);
        const from = prevM && chance(0.35, 'zreg-prev', ...key) ? `4[.](${m - 1}[.].*|${m}[.](${early}))[+].*` : `4[.]${m}[.](${early})[+].*`;
        for (const v of T.slice(a, a + len)) {
          if (addBlock(`${v.name}-${risk.name}`, { to: v.name, from, ...(fixedIn ? { fixedIn } : {}), risk })) made++;
        }
        // The same regression backported into the next minor's z-stream.
        if (nextM && chance(0.25, 'zreg-backport', ...key) && made < budget) {
          const NT = usable(nextM);
          const b = NT.findIndex((x, i) => i >= 1 && x.day >= intro.day);
          if (b > 0 && b < NT.length - 1) {
            const blen = Math.min(randInt(1, 3, 'zreg-blen', ...key), NT.length - b - 1, budget - made);
            const bfrom = `4[.]${m + 1}[.](${numRange(0, NT[b].z - 1)})[+].*`;
            const bfixed = NT[b + blen]?.name;
            for (const v of NT.slice(b, b + blen)) {
              if (addBlock(`${v.name}-${risk.name}`, { to: v.name, from: bfrom, ...(bfixed ? { fixedIn: bfixed } : {}), risk })) made++;
            }
          }
        }
      } else if (type === 'arm') {
        const A = T.filter((v) => v.z > 0 && v.arches.includes('arm64'));
        if (A.length < 2) continue;
        const i = randInt(0, A.length - 2, 'arm-i', ...key);
        const len = Math.min(randInt(1, 3, 'arm-len', ...key), A.length - i, room);
        const kind = chance(0.5, 'arm-kind', ...key) ? 'always' : 'promql';
        const risk = nextArmRisk(kind, m);
        const from = chance(0.5, 'arm-from', ...key) ? '.*' : `4[.]${m}[.].*`;
        const fixedIn = nextUsable(M, A[i + len - 1]);
        for (const v of A.slice(i, i + len)) {
          const to = `${v.name}+arm64`;
          if (addBlock(`${to}-${risk.name}`, { to, from, ...(fixedIn ? { fixedIn } : {}), risk })) made++;
        }
      } else if (type === 'respin') {
        const cands = T.filter((v, i) => i > 0 && i < T.length - 1);
        if (!cands.length) continue;
        const v = cands[randInt(0, cands.length - 1, 'respin-i', ...key)];
        const fixedIn = nextUsable(M, v);
        if (addBlock(`${v.name}-${RESPIN.name}`, { to: v.name, from: '.*', ...(fixedIn ? { fixedIn } : {}), risk: RESPIN })) made++;
      } else if (type === 'hard') {
        const variant = pickWeighted({ pre: prevM ? 1 : 0, arm: 0.7, suffix: 1 }, 'hard-variant', ...key);
        if (variant === 'pre') {
          const pres = M.pres.filter((p) => p.pre.kind !== 'rc' || p.pre.n === 0);
          if (!pres.length) continue;
          const p = pres[randInt(0, pres.length - 1, 'hard-pre', ...key)];
          if (addBlock(p.name, { to: p.name, from: `4[.]${m - 1}[.].*` })) made++;
        } else if (variant === 'arm') {
          const A = T.filter((v) => v.z > 0 && v.arches.includes('arm64'));
          if (!A.length) continue;
          const v = A[randInt(0, A.length - 1, 'hard-arm', ...key)];
          const fixedIn = nextUsable(M, v);
          if (addBlock(`${v.name}+arm64`, { to: `${v.name}+arm64`, from: '.*', ...(fixedIn ? { fixedIn } : {}) })) made++;
        } else {
          // Old sources that lack a prerequisite introduced by this release.
          const slug = HARD_SLUGS[randInt(0, HARD_SLUGS.length - 1, 'hard-slug', ...key)];
          const v = T[randInt(0, Math.min(3, T.length - 1), 'hard-suffix', ...key)];
          let from;
          if (prevM && M.floorIdx >= 0) {
            const list = prevM.zs.filter((x) => !x.pulled);
            from = `4[.]${m - 1}[.](${numRange(0, list[Math.min(M.floorIdx + 1, list.length - 1)].z)})[+].*`;
          } else if (v.z > 1) {
            from = `4[.]${m}[.](${numRange(0, Math.floor(v.z / 2))})[+].*`;
          } else continue;
          if (addBlock(`${v.name}-${slug}`, { to: v.name, from })) made++;
        }
      } else if (type === 'extra') {
        // A second, independent risk on a release that already carries one.
        const targets = T.filter((v) => riskTargets.has(v.name));
        if (!targets.length) continue;
        const v = targets[randInt(0, targets.length - 1, 'extra-i', ...key)];
        const risk = nextRisk(ruleKind('extra', ...key), m);
        const from = prevM && chance(0.5, 'extra-from', ...key) ? `4[.]${m - 1}[.].*` : '.*';
        if (addBlock(`${v.name}-${risk.name}`, { to: v.name, from, risk })) made++;
      }
    }
  }

  // Guarantees for the demo (cheap no-ops when already satisfied).
  const risks = [...blocked.values()].filter((b) => b.risk);
  if (!risks.some((b) => b.risk.rules.length > 1)) {
    const b = risks.find((x) => x.risk.rules[0].type === 'PromQL' && x.risk !== RESPIN);
    if (b) b.risk.rules.push({ type: 'Always' });
  }
  if (![...riskTargets.values()].some((n) => n >= 2)) {
    const M = minors.get(NEWEST - 1);
    const v = usable(M).find((x) => riskTargets.has(x.name)) ?? usable(M)[1];
    const risk = nextRisk('promql', M.m);
    addBlock(`${v.name}-${risk.name}`, { to: v.name, from: '.*', risk });
    if (riskTargets.get(v.name) < 2) {
      const second = nextRisk('promql', M.m);
      addBlock(`${v.name}-${second.name}`, { to: v.name, from: '.*', risk: second });
    }
  }
  // One hard block of each shape: arch-specific, and one with a file-name suffix.
  const hard = () => [...blocked.entries()].filter(([, b]) => !b.risk);
  if (!hard().some(([, b]) => b.to.endsWith('+arm64'))) {
    const M = minors.get(NEWEST - 1);
    const A = usable(M).filter((x) => x.z > 0 && x.arches.includes('arm64') && !blocked.has(`${x.name}+arm64`));
    const v = A[Math.floor(A.length / 3)];
    if (v) addBlock(`${v.name}+arm64`, { to: `${v.name}+arm64`, from: '.*', fixedIn: nextUsable(M, v) });
  }
  for (let i = 0; i < MINORS.length; i++) {
    if (hard().some(([f, b]) => f !== b.to) && hard().length >= 3) break;
    const M = minors.get(MINORS[MINORS.length - 2 - i] ?? MINORS[0]);
    const prevM = minors.get(M.m - 1);
    const v = usable(M)[1];
    if (!v || !prevM || M.floorIdx < 0) continue;
    const list = prevM.zs.filter((x) => !x.pulled);
    const from = `4[.]${M.m - 1}[.](${numRange(0, list[Math.min(M.floorIdx + 1, list.length - 1)].z)})[+].*`;
    addBlock(`${v.name}-${HARD_SLUGS[i % HARD_SLUGS.length]}`, { to: v.name, from });
  }
}
generateBlockedEdges();

// ---------------------------------------------------------------- YAML / JSON writers

function yamlScalar(s) {
  s = String(s);
  const plain =
    s !== '' &&
    /^[A-Za-z0-9.^()\\/$_+-]/.test(s) &&
    !/^[-?:](\s|$)/.test(s) &&
    !/: |:$| #|^\s|\s$|[\n\t"'`{}]/.test(s) &&
    !/^(true|false|yes|no|on|off|y|n|null|~)$/i.test(s) &&
    !/^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$/.test(s) &&
    !/^[-+]?\.(inf|nan)$/i.test(s) &&
    !/^0[xo]/i.test(s);
  return plain ? s : `'${s.replace(/'/g, "''")}'`;
}
function yamlList(key, list) {
  return `${key}:\n${list.map((v) => `- ${yamlScalar(v)}\n`).join('')}`;
}
function channelYaml(ch) {
  let out = '';
  if (ch.feeder) {
    out += 'feeder:\n';
    for (const k of Object.keys(ch.feeder).sort()) out += `  ${k}: ${yamlScalar(ch.feeder[k])}\n`;
  }
  out += `name: ${yamlScalar(ch.name)}\n`;
  if (ch.tombstones) out += yamlList('tombstones', ch.tombstones);
  out += ch.versions.length ? yamlList('versions', ch.versions) : 'versions: []\n';
  return out;
}
function blockYaml(b) {
  let out = `to: ${yamlScalar(b.to)}\nfrom: ${yamlScalar(b.from)}\n`;
  if (b.fixedIn) out += `fixedIn: ${yamlScalar(b.fixedIn)}\n`;
  if (!b.risk) return out;
  out += `url: ${yamlScalar(b.risk.url)}\nname: ${yamlScalar(b.risk.name)}\n`;
  out += b.risk.message.length > 120 ? `message: |-\n  ${b.risk.message}\n` : `message: ${yamlScalar(b.risk.message)}\n`;
  out += 'matchingRules:\n';
  for (const r of b.risk.rules) {
    out += `- type: ${r.type}\n`;
    if (r.type === 'PromQL') {
      out += '  promql:\n    promql: |\n';
      out += r.promql.replace(/\n$/, '').split('\n').map((l) => `      ${l}\n`).join('');
    }
  }
  return out;
}
function sortedDeep(obj) {
  if (Array.isArray(obj) || obj === null || typeof obj !== 'object') return obj;
  const out = {};
  for (const k of Object.keys(obj).sort()) out[k] = sortedDeep(obj[k]);
  return out;
}
function releaseJson(v, arch) {
  const metadata = {};
  if (v.url) metadata.url = v.url;
  metadata.description = '';
  if (arch === 'multi') metadata['release.openshift.io/architecture'] = 'multi';
  const rec = {
    kind: 'cincinnati-metadata-v0',
    version: v.name,
    previous: v.previous.filter((n) => versions.get(n).arches.includes(arch)),
    next: [],
    metadata,
    payload: `quay.example.com/ocp/release@sha256:${sha256(`cincy-graph-data/${SEED}/${v.name}+${arch}`)}`,
    architecture: arch,
  };
  return `${JSON.stringify(rec, null, 2)}\n`;
}

// ---------------------------------------------------------------- write

for (const sub of ['channels', 'internal-channels', 'blocked-edges', 'raw', 'releases', 'version']) {
  fs.rmSync(path.join(OUT, sub), { recursive: true, force: true });
}
for (const sub of ['channels', 'internal-channels', 'blocked-edges', 'raw', ...ARCHES.map((a) => `releases/${a}`)]) {
  fs.mkdirSync(path.join(OUT, sub), { recursive: true });
}
fs.writeFileSync(path.join(OUT, 'version'), '1.1.0\n');
for (const ch of channels.values()) fs.writeFileSync(path.join(OUT, 'channels', `${ch.name}.yaml`), channelYaml(ch));
for (const ch of internalChannels.values()) fs.writeFileSync(path.join(OUT, 'internal-channels', `${ch.name}.yaml`), channelYaml(ch));
for (const [file, b] of blocked) fs.writeFileSync(path.join(OUT, 'blocked-edges', `${file}.yaml`), blockYaml(b));
fs.writeFileSync(path.join(OUT, 'raw', 'metadata.json'), `${JSON.stringify(sortedDeep(rawMetadata), null, 2)}\n`);
const perArch = Object.fromEntries(ARCHES.map((a) => [a, 0]));
for (const v of versions.values()) {
  for (const arch of v.arches) {
    fs.writeFileSync(path.join(OUT, 'releases', arch, `${v.name}.json`), releaseJson(v, arch));
    perArch[arch]++;
  }
}

const totalReleases = Object.values(perArch).reduce((a, b) => a + b, 0);
const blockedList = [...blocked.values()];
const nRisk = blockedList.filter((b) => b.risk).length;
const nPromql = blockedList.filter((b) => b.risk?.rules.some((r) => r.type === 'PromQL')).length;
const share = blockedList.length ? ((100 * nPromql) / blockedList.length).toFixed(1) : '0.0';
process.stdout.write(
  `${SIZE}: ${totalReleases} releases (${ARCHES.map((a) => `${a} ${perArch[a]}`).join(', ')}; ${versions.size} versions), ` +
    `${channels.size} channels (+${internalChannels.size} internal), ` +
    `${blockedList.length} blocked edges (${nRisk} risks, ${blockedList.length - nRisk} hard blocks), ` +
    `PromQL share ${share}% -> ${args.out}\n`,
);

if (args.check) process.exit(runChecks() ? 0 : 1);

// ---------------------------------------------------------------- --check (reads the output back from disk)

/** Parses the YAML subset this script writes (block mappings, lists, quoted and block scalars). */
function parseYamlSubset(text) {
  const lines = text.split('\n');
  let i = 0;
  const ind = (l) => l.length - l.trimStart().length;
  const blank = (l) => l.trim() === '' || l.trimStart().startsWith('#');
  const skip = () => {
    while (i < lines.length && blank(lines[i])) i++;
  };
  const scalar = (s) => {
    s = s.trim();
    if (s === '[]') return [];
    if (s.startsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
    if (s.startsWith('"')) return JSON.parse(s);
    return s;
  };
  function blockScalar(parentIndent, style) {
    const body = [];
    let bi = -1;
    while (i < lines.length && (lines[i].trim() === '' || ind(lines[i]) > parentIndent)) {
      if (bi < 0 && lines[i].trim() !== '') bi = ind(lines[i]);
      body.push(lines[i]);
      i++;
    }
    while (body.length && body[body.length - 1].trim() === '') body.pop();
    const textOut = body.map((l) => l.slice(bi)).join('\n');
    return style === '|' ? `${textOut}\n` : textOut;
  }
  function value(rest, indent) {
    if (rest === '|' || rest === '|-') return blockScalar(indent, rest);
    if (rest !== '') return scalar(rest);
    skip();
    if (i >= lines.length) return null;
    const l = lines[i];
    if (ind(l) === indent && /^\s*- /.test(l)) return list(indent);
    if (ind(l) > indent) return /^\s*- /.test(l) ? list(ind(l)) : map(ind(l));
    return null;
  }
  function map(indent) {
    const out = {};
    for (skip(); i < lines.length && ind(lines[i]) === indent && !/^\s*- /.test(lines[i]); skip()) {
      const m = /^\s*([^:\s][^:]*):(?: (.*))?$/.exec(lines[i]);
      if (!m) throw new Error(`cannot parse line ${i + 1}: ${lines[i]}`);
      i++;
      out[m[1]] = value((m[2] ?? '').trim(), indent);
    }
    return out;
  }
  function list(indent) {
    const out = [];
    for (skip(); i < lines.length && ind(lines[i]) === indent && /^\s*- /.test(lines[i]); skip()) {
      const content = lines[i].slice(indent + 2);
      if (/^[^:\s'"][^:]*:( |$)/.test(content)) {
        lines[i] = ' '.repeat(indent + 2) + content;
        out.push(map(indent + 2));
      } else {
        out.push(scalar(content));
        i++;
      }
    }
    return out;
  }
  skip();
  return map(0);
}

function runChecks() {
  let ok = true;
  const report = (pass, what, detail = '') => {
    if (!pass) ok = false;
    process.stdout.write(`${pass ? 'ok  ' : 'FAIL'} ${what}${detail ? ` (${detail})` : ''}\n`);
  };
  const read = (...p) => fs.readFileSync(path.join(OUT, ...p), 'utf8');
  const list = (...p) => fs.readdirSync(path.join(OUT, ...p)).sort();

  // numRange self-test.
  {
    let bad = '';
    for (const [lo, hi] of [[0, 0], [0, 9], [0, 12], [3, 47], [10, 19], [0, 99], [7, 123], [95, 205], [1, 1], [20, 29]]) {
      const re = new RegExp(`^(${numRange(lo, hi)})$`);
      for (let n = 0; n <= 300; n++) if (re.test(String(n)) !== (n >= lo && n <= hi)) bad ||= `${lo}..${hi} @${n}`;
    }
    report(!bad, 'numRange builds exact integer ranges', bad);
  }

  report(read('version') === '1.1.0\n', 'version file is 1.1.0');

  // Releases.
  const rel = new Map(); // arch -> Map(version -> record)
  let badPayload = 0;
  let badPrev = [];
  let badShape = [];
  for (const arch of list('releases')) {
    const m = new Map();
    for (const f of list('releases', arch)) {
      const r = JSON.parse(read('releases', arch, f));
      m.set(r.version, r);
      if (`${r.version}.json` !== f || r.architecture !== arch || r.kind !== 'cincinnati-metadata-v0') badShape.push(`${arch}/${f}`);
      if (!/@sha256:[0-9a-f]{64}$/.test(r.payload)) badPayload++;
      if (arch === 'multi' && r.metadata['release.openshift.io/architecture'] !== 'multi') badShape.push(`${arch}/${f} lacks multi label`);
      if (parseVersion(r.version).pre.length && r.metadata.url) badShape.push(`${arch}/${f} pre-release with errata`);
      if (sortVersions(r.previous).join() !== r.previous.join()) badShape.push(`${arch}/${f} previous not sorted`);
    }
    rel.set(arch, m);
  }
  for (const [arch, m] of rel) {
    for (const r of m.values()) for (const p of r.previous) if (!m.has(p)) badPrev.push(`${arch}/${r.version} <- ${p}`);
  }
  const allVersions = new Set([...rel.values()].flatMap((m) => [...m.keys()]));
  const nRel = [...rel.values()].reduce((s, m) => s + m.size, 0);
  report(!badShape.length, 'release records are well-formed', badShape.slice(0, 3).join('; '));
  report(badPayload === 0, 'every payload matches @sha256:[0-9a-f]{64}$', `${badPayload} bad`);
  report(!badPrev.length, 'every previous name is a release of the same arch', badPrev.slice(0, 3).join('; '));
  const payloads = new Set([...rel.values()].flatMap((m) => [...m.values()].map((r) => r.payload)));
  report(payloads.size === nRel, 'payload digests are unique per (version, arch)');

  // Channels.
  const readChannels = (dir) => {
    const out = new Map();
    for (const f of list(dir)) out.set(f.replace(/\.yaml$/, ''), parseYamlSubset(read(dir, f)));
    return out;
  };
  const pub = readChannels('channels');
  const internal = readChannels('internal-channels');
  let badName = [];
  let missing = [];
  let badFilter = [];
  let badTomb = [];
  for (const [file, ch] of [...pub, ...[...internal].map(([f, c]) => [`internal/${f}`, c])]) {
    if (ch.name !== file.replace(/^internal\//, '')) badName.push(file);
    for (const v of ch.versions) if (!allVersions.has(v)) missing.push(`${file}:${v}`);
    if (ch.feeder?.filter) {
      const re = new RegExp(ch.feeder.filter);
      for (const v of ch.versions) if (!re.test(v)) badFilter.push(`${file}:${v}`);
    }
    for (const t of ch.tombstones ?? []) if (ch.versions.includes(t)) badTomb.push(`${file}:${t}`);
  }
  report(!badName.length, 'every channel name equals its file name', badName.join(', '));
  report(!missing.length, 'every channel version has a release record', missing.slice(0, 3).join('; '));
  report(!badFilter.length, 'every channel version matches its feeder filter', badFilter.slice(0, 3).join('; '));
  report(!badTomb.length, 'tombstones are not listed as versions', badTomb.slice(0, 3).join('; '));
  report(
    internal.get('candidate') && !internal.get('candidate').feeder &&
      internal.get('fast')?.feeder?.name === 'candidate' && internal.get('fast')?.feeder?.errata === 'public' &&
      internal.get('stable')?.feeder?.name === 'fast' && internal.get('stable')?.feeder?.delay === 'P1W',
    'internal channels have the candidate -> fast -> stable feeders',
  );
  {
    const bad = [];
    const sub = (a, b, label) => {
      const s = new Set(b?.versions ?? []);
      for (const v of a?.versions ?? []) if (!s.has(v)) bad.push(`${label}:${v}`);
    };
    sub(internal.get('stable'), internal.get('fast'), 'internal stable<=fast');
    sub(internal.get('fast'), internal.get('candidate'), 'internal fast<=candidate');
    for (const [name, ch] of pub) {
      const m = /^(candidate|fast|stable|eus)-(4\.\d+)$/.exec(name);
      if (!m) continue;
      if (m[1] === 'stable') sub(ch, pub.get(`fast-${m[2]}`), name);
      if (m[1] === 'fast') sub(ch, pub.get(`candidate-${m[2]}`), name);
      if (m[1] === 'eus') sub(ch, internal.get('stable'), name);
      const level = m[1] === 'eus' ? 'stable' : m[1];
      sub(ch, internal.get(level), `${name}<=internal ${level}`);
    }
    report(!bad.length, 'ladder is consistent (stable <= fast <= candidate, channels <= internal)', bad.slice(0, 3).join('; '));
  }
  const sizes = [...pub.values()].map((c) => c.versions.length);
  const inBand = sizes.filter((n) => n >= 120 && n <= 180).length;

  // Blocked edges.
  const files = list('blocked-edges');
  let badFrom = [];
  let badTo = [];
  let badKeys = [];
  const noEdge = [];
  let nPromqlFiles = 0;
  let nBoth = 0;
  let nHard = 0;
  let nArm = 0;
  const toRisks = new Map();
  const nameTos = new Map();
  const riskKeys = ['to', 'from', 'url', 'name', 'message', 'matchingRules', 'fixedIn'];
  for (const f of files) {
    const b = parseYamlSubset(read('blocked-edges', f));
    let re = null;
    try {
      re = new RegExp(b.from);
    } catch (e) {
      badFrom.push(`${f}: ${e.message}`);
    }
    const [ver, arch] = String(b.to).split('+');
    if (arch ? !rel.get(arch)?.has(ver) : !allVersions.has(ver)) badTo.push(f);
    // The rule must hit at least one update edge into `to` (unanchored search over <version>+<arch>).
    const hits = re && [...rel].some(([a, m]) => (!arch || a === arch) && (m.get(ver)?.previous ?? []).some((p) => re.test(`${p}+${a}`)));
    if (!hits) noEdge.push(f);
    if (arch === 'arm64') nArm++;
    if (b.fixedIn && !allVersions.has(b.fixedIn)) badTo.push(`${f} fixedIn`);
    const keys = Object.keys(b);
    if (b.matchingRules) {
      if (keys.some((k) => !riskKeys.includes(k)) || !b.url || !b.name || !b.message || !b.matchingRules.length) badKeys.push(f);
      if (!/^[A-Z][A-Za-z0-9]+$/.test(b.name)) badKeys.push(`${f} name`);
      const types = b.matchingRules.map((r) => r.type);
      if (types.includes('PromQL')) nPromqlFiles++;
      if (types.includes('PromQL') && types.includes('Always')) nBoth++;
      for (const r of b.matchingRules) if (r.type === 'PromQL' && !/\nor\n0 \* group\(/.test(r.promql?.promql ?? '')) badKeys.push(`${f} promql`);
      toRisks.set(b.to, (toRisks.get(b.to) ?? 0) + 1);
      nameTos.set(b.name, (nameTos.get(b.name) ?? new Set()).add(b.to));
    } else {
      nHard++;
      if (keys.some((k) => !['to', 'from', 'fixedIn'].includes(k))) badKeys.push(f);
    }
  }
  report(!badFrom.length, 'every blocked-edge from compiles as a RegExp', badFrom.slice(0, 3).join('; '));
  report(!badTo.length, 'every blocked-edge to (and fixedIn) is a release', badTo.slice(0, 3).join('; '));
  report(!badKeys.length, 'blocked edges are clean risks or hard blocks', badKeys.slice(0, 3).join('; '));
  report(!noEdge.length, 'every blocked edge matches at least one existing update edge', noEdge.slice(0, 3).join('; '));
  const shareNow = files.length ? nPromqlFiles / files.length : 0;
  const doubled = [...toRisks.values()].filter((n) => n >= 2).length;
  const spanning = [...nameTos.values()].filter((s) => s.size >= 2).length;
  report(doubled > 0, 'some targets carry two or more risks', `${doubled} targets`);
  report(spanning > 0, 'some risk names span several targets', `${spanning} names`);

  // raw/metadata.json
  {
    const meta = JSON.parse(read('raw', 'metadata.json'));
    const bad = [];
    for (const [v, kv] of Object.entries(meta)) {
      if (!allVersions.has(v)) bad.push(v);
      for (const [k, val] of Object.entries(kv)) {
        if (/\.(previous|next)\.(add|remove)$/.test(k)) for (const n of val.split(',')) if (!allVersions.has(n)) bad.push(`${v} ${k} ${n}`);
      }
    }
    const kinds = new Set(Object.values(meta).flatMap((kv) => Object.keys(kv)));
    report(!bad.length, 'raw/metadata.json names existing releases', bad.slice(0, 3).join('; '));
    report(kinds.has(K_PREV_ADD) && kinds.has(K_REMOVE), 'raw/metadata.json has previous.add and release.remove', [...kinds].join(', '));
  }

  // Size-specific requirements.
  if (SIZE === 'demo') {
    let apparent = 0;
    let allocated = 0;
    const walk = (p) => {
      const st = fs.statSync(p);
      allocated += st.blocks * 512;
      if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
      else apparent += st.size;
    };
    for (const sub of ['channels', 'internal-channels', 'blocked-edges', 'raw', 'releases', 'version']) walk(path.join(OUT, sub));
    const mb = (n) => `${(n / 1048576).toFixed(2)} MB`;
    report(allocated < 3 * 1048576 && apparent < 3 * 1048576, 'demo data stays under 3 MB', `${mb(apparent)} apparent, ${mb(allocated)} on disk`);
    report(files.length >= 35 && files.length <= 50, 'about 40 blocked-edge files', `${files.length}`);
    report(nBoth >= 1, 'a risk with both Always and PromQL rules', `${nBoth}`);
    report(nHard >= 3, 'at least 3 hard blocks', `${nHard}`);
    report(nArm >= 1, 'an arm64-specific blocked edge', `${nArm}`);
    report(shareNow >= 0.5, 'PromQL-heavy mix', `${(100 * shareNow).toFixed(1)}%`);
  } else {
    report(nRel >= 3000, 'at least 3,000 releases', `${nRel}`);
    report(rel.size >= 4, 'four architectures', [...rel.keys()].join(', '));
    report(pub.size >= 80, 'at least 80 channels', `${pub.size}`);
    report(files.length >= 1500, 'at least 1,500 blocked-edge files', `${files.length}`);
    report(shareNow >= 0.4, 'at least 40% of blocked edges use PromQL', `${(100 * shareNow).toFixed(1)}%`);
    report(inBand >= pub.size * 0.6, 'most channels hold 120-180 versions', `${inBand}/${pub.size} in band, min ${Math.min(...sizes)}, max ${Math.max(...sizes)}`);
  }
  process.stdout.write(`check: ${ok ? 'all passed' : 'FAILED'}\n`);
  return ok;
}
