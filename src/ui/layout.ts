// The layered drawing of a channel: one horizontal lane per minor version (the drawing spaces the lanes)
// and, along each lane, the versions of that minor in semver order. Edges within a lane are drawn as arcs whose
// height grows with the square root of their span, so a version's updates to later z-streams nest
// instead of lying on one line.
export interface Placement {
  x: number;
  /** `major.minor` */
  minor: string;
  /** The lane, 0 for the oldest minor. */
  lane: number;
  /** The position along the lane, 0 for the oldest version of that minor. */
  rank: number;
}

/** The distance between neighbouring versions of a lane, in graph units. */
export const STEP = 10;

interface Parsed {
  major: number;
  minor: number;
  patch: number;
  pre: string;
}

function parse(version: string): Parsed {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?/.exec(version);
  if (!m) return { major: 0, minor: 0, patch: 0, pre: version };
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] ?? '' };
}

/**
 * Semver precedence, with prerelease identifiers compared numerically where numeric: the page's own
 * (graph/version.ts's compareVersions needs the semver package, and throws on text that is not a version).
 */
export function versionOrder(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  for (const k of ['major', 'minor', 'patch'] as const) if (pa[k] !== pb[k]) return pa[k] - pb[k];
  if (pa.pre === pb.pre) return 0;
  if (pa.pre === '') return 1;
  if (pb.pre === '') return -1;
  const xs = pa.pre.split('.');
  const ys = pb.pre.split('.');
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    const x = xs[i];
    const y = ys[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x) ? Number(x) : NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : NaN;
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) return nx - ny;
    if (!Number.isNaN(nx)) return -1;
    if (!Number.isNaN(ny)) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export const minorOf = (version: string): string => {
  const p = parse(version);
  return `${p.major}.${p.minor}`;
};

export function layeredLayout(versions: Iterable<string>): Map<string, Placement> {
  const lanes = new Map<string, string[]>();
  for (const v of new Set(versions)) {
    const minor = minorOf(v);
    const lane = lanes.get(minor);
    if (lane) lane.push(v);
    else lanes.set(minor, [v]);
  }
  const minors = [...lanes.keys()].sort((a, b) => versionOrder(`${a}.0`, `${b}.0`));
  const out = new Map<string, Placement>();
  minors.forEach((minor, lane) => {
    const members = lanes.get(minor)!.sort(versionOrder);
    members.forEach((version, rank) => out.set(version, { x: rank * STEP, minor, lane, rank }));
  });
  return out;
}

const ARC = 1.6;

/**
 * The curvature of an arc between two versions of one lane, relative to its length as sigma's curved
 * edges take it: the arc's height is about ARC / 2 × √span × STEP.
 */
export function arcCurvature(from: Placement, to: Placement): number {
  const span = Math.abs(to.rank - from.rank);
  return span === 0 ? 0 : ARC / Math.sqrt(span);
}

/** The distance between lanes: the drawing about half as tall as it is wide, and no arc reaching the next lane. */
export function laneGap(longestLane: number, lanes: number): number {
  const highestArc = (ARC / 2) * Math.sqrt(Math.max(1, longestLane)) * STEP;
  return Math.max(1.3 * highestArc, (0.5 * longestLane * STEP) / Math.max(1, lanes - 1));
}
