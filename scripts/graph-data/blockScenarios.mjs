// The kinds of blocked edge a minor gets. Each is a function (set, minor, key, room, supply) that adds
// at most `room` edges to the BlockedEdgeSet and returns how many it added; `key` names the attempt's
// random streams and `supply` holds { history, random, nextRisk, nextArmRisk }. A scenario that finds
// nothing to block adds nothing, and the caller draws again.
import { blockedEdge } from './blockedEdgeSet.mjs';
import { arm64ZStreams, HARD_SLUGS, nextUsable, olderThanFloor, usable } from './blockTargets.mjs';
import { numRange } from './patterns.mjs';
import { RESPIN } from './risks.mjs';

/** Picks a scenario for one attempt; some need a previous minor, enough z-streams or arm64 releases. */
export function pickScenario({ random }, minor, older, key) {
  const weights = {
    minor: older ? 0.22 : 0,
    zreg: usable(minor).length >= 5 ? 0.43 : 0,
    arm: minor.zs[0].arches.includes('arm64') ? 0.08 : 0,
    respin: 0.04,
    hard: 0.13,
    extra: 0.1,
  };
  return random.pickWeighted(weights, 'scenario', ...key);
}

const riskEdges = (targets, from, risk, fixedInOf) =>
  targets.map((v) => [`${v.name}-${risk.name}`, blockedEdge(v.name, from, { fixedIn: fixedInOf(v), risk })]);

/** A risk on updates from the previous minor into the first z-streams (and maybe the last candidates). */
function minorHop(set, minor, key, room, { random, nextRisk }) {
  const targets = usable(minor).slice(0, Math.min(random.randInt(1, 4, 'minor-k', ...key) + 1, room));
  if (!targets.length) return 0;
  const rcs = minor.pres.filter((p) => p.pre.kind === 'rc');
  if (random.chance(0.3, 'minor-rc', ...key) && targets.length + 2 <= room) targets.unshift(...rcs.slice(-2));
  const risk = nextRisk(set.ruleKind(...key), minor.m);
  const fixedIn = random.chance(0.7, 'minor-fixed', ...key) ? nextUsable(minor, targets.at(-1)) : undefined;
  return set.addAll(riskEdges(targets, `4[.]${minor.m - 1}[.].*`, risk, (v) => (v.pre ? undefined : fixedIn)));
}

/** A regression in a run of z-streams, hitting updates from the z-streams before it. */
function zStreamRegression(set, minor, key, room, supply) {
  const { random, nextRisk, history } = supply;
  const zs = usable(minor);
  const m = minor.m;
  const a = random.randInt(1, zs.length - 3, 'zreg-a', ...key);
  const len = Math.min(random.randInt(1, 5, 'zreg-len', ...key), zs.length - a, room);
  const intro = zs[a];
  const risk = nextRisk(set.ruleKind(...key), m);
  const fixedIn = zs[a + len]?.name;
  const early = numRange(0, intro.z - 1);
  const older = history.minors.get(m - 1);
  const from =
    older && random.chance(0.35, 'zreg-prev', ...key)
      ? `4[.](${m - 1}[.].*|${m}[.](${early}))[+].*`
      : `4[.]${m}[.](${early})[+].*`;
  const added = set.addAll(riskEdges(zs.slice(a, a + len), from, risk, () => fixedIn));
  return added + backport(set, minor, intro, risk, key, room - added, supply);
}

/** The same regression backported into the next minor's z-stream, sometimes. */
function backport(set, minor, intro, risk, key, room, { random, history }) {
  const newer = history.minors.get(minor.m + 1);
  if (!newer || !random.chance(0.25, 'zreg-backport', ...key) || room <= 0) return 0;
  const zs = usable(newer);
  const b = zs.findIndex((x, i) => i >= 1 && x.day >= intro.day);
  if (b <= 0 || b >= zs.length - 1) return 0;
  const len = Math.min(random.randInt(1, 3, 'zreg-blen', ...key), zs.length - b - 1, room);
  const from = `4[.]${minor.m + 1}[.](${numRange(0, zs[b].z - 1)})[+].*`;
  const fixedIn = zs[b + len]?.name;
  return set.addAll(riskEdges(zs.slice(b, b + len), from, risk, () => fixedIn));
}

/** A risk of arm64 nodes only, on a run of arm64 z-streams. */
function arm64Risk(set, minor, key, room, { random, nextArmRisk }) {
  const arm64 = arm64ZStreams(minor);
  if (arm64.length < 2) return 0;
  const i = random.randInt(0, arm64.length - 2, 'arm-i', ...key);
  const len = Math.min(random.randInt(1, 3, 'arm-len', ...key), arm64.length - i, room);
  const risk = nextArmRisk(random.chance(0.5, 'arm-kind', ...key) ? 'always' : 'promql', minor.m);
  const from = random.chance(0.5, 'arm-from', ...key) ? '.*' : `4[.]${minor.m}[.].*`;
  const fixedIn = nextUsable(minor, arm64[i + len - 1]);
  return set.addAll(
    arm64.slice(i, i + len).map((v) => {
      const to = `${v.name}+arm64`;
      return [`${to}-${risk.name}`, blockedEdge(to, from, { fixedIn, risk })];
    }),
  );
}

/** A release superseded by a rebuild: the shared RESPIN risk from every source. */
function respin(set, minor, key, room, { random }) {
  const zs = usable(minor);
  const candidates = zs.filter((v, i) => i > 0 && i < zs.length - 1);
  if (!candidates.length) return 0;
  const v = candidates[random.randInt(0, candidates.length - 1, 'respin-i', ...key)];
  const fixedIn = nextUsable(minor, v);
  return set.addAll([[`${v.name}-${RESPIN.name}`, blockedEdge(v.name, '.*', { fixedIn, risk: RESPIN })]]);
}

/** A hard block: of a pre-release, of one arm64 release, or of old sources that lack a prerequisite. */
function hardBlock(set, minor, key, room, supply) {
  const { random, history } = supply;
  const older = history.minors.get(minor.m - 1);
  const variant = random.pickWeighted({ pre: older ? 1 : 0, arm: 0.7, suffix: 1 }, 'hard-variant', ...key);
  if (variant === 'pre') {
    const pres = minor.pres.filter((p) => p.pre.kind !== 'rc' || p.pre.n === 0);
    if (!pres.length) return 0;
    const p = pres[random.randInt(0, pres.length - 1, 'hard-pre', ...key)];
    return set.addAll([[p.name, blockedEdge(p.name, `4[.]${minor.m - 1}[.].*`)]]);
  }
  if (variant === 'arm') {
    const arm64 = arm64ZStreams(minor);
    if (!arm64.length) return 0;
    const v = arm64[random.randInt(0, arm64.length - 1, 'hard-arm', ...key)];
    const to = `${v.name}+arm64`;
    return set.addAll([[to, blockedEdge(to, '.*', { fixedIn: nextUsable(minor, v) })]]);
  }
  const zs = usable(minor);
  const slug = HARD_SLUGS[random.randInt(0, HARD_SLUGS.length - 1, 'hard-slug', ...key)];
  const v = zs[random.randInt(0, Math.min(3, zs.length - 1), 'hard-suffix', ...key)];
  let from;
  if (older && minor.floorIdx >= 0) from = olderThanFloor(older, minor);
  else if (v.z > 1) from = `4[.]${minor.m}[.](${numRange(0, Math.floor(v.z / 2))})[+].*`;
  else return 0;
  return set.addAll([[`${v.name}-${slug}`, blockedEdge(v.name, from)]]);
}

/** A second, independent risk on a release that already carries one. */
function extraRisk(set, minor, key, room, { random, nextRisk, history }) {
  const targets = usable(minor).filter((v) => set.riskTargets.has(v.name));
  if (!targets.length) return 0;
  const v = targets[random.randInt(0, targets.length - 1, 'extra-i', ...key)];
  const risk = nextRisk(set.ruleKind('extra', ...key), minor.m);
  const older = history.minors.get(minor.m - 1);
  const from = older && random.chance(0.5, 'extra-from', ...key) ? `4[.]${minor.m - 1}[.].*` : '.*';
  return set.addAll([[`${v.name}-${risk.name}`, blockedEdge(v.name, from, { risk })]]);
}

export const SCENARIOS = {
  minor: minorHop,
  zreg: zStreamRegression,
  arm: arm64Risk,
  respin,
  hard: hardBlock,
  extra: extraRisk,
};
