// Phased rollouts: the edges into one version of one channel reach the channel's clusters one by one
// over a window, instead of all at the same moment (openshift/enhancements, "Phased Update Rollouts").
// Pure: where a cluster's turn falls, whether a rollout offers its edges to a cluster now, and which
// edges of a channel's view a rollout governs. Every replica computes the same answer from the stored
// rollouts and the time alone.
import { hash } from 'node:crypto';
import { compilePattern } from './pattern.js';

/** What an administrator made of a rollout: running as declared, halted, or withdrawn for good. */
export type RolloutState = 'active' | 'halted' | 'cancelled';

/** When a rollout halts itself: either bound reached is enough; null turns that bound off. */
export interface HaltAfter {
  /** Clusters that took an edge of the rollout and then failed. */
  failures: number | null;
  /** Those failures as a share of the clusters that took an edge of it. */
  fraction: number | null;
}

export const DEFAULT_HALT_AFTER: HaltAfter = { failures: 2, fraction: 0.05 };

/** What the clusters that took a rollout's edges came to, when it was last counted. */
export interface RolloutCounts {
  took: number;
  completed: number;
  progressing: number;
  failing: number;
  silent: number;
}

export interface Rollout {
  id: string;
  channel: string;
  /** The target version (no `+arch`): the rollout governs the edges into it. */
  to: string;
  /** A regular expression over source versions (searched, as a blocked edge's `from`); null: every source. */
  from: string | null;
  /** Milliseconds since 1970. */
  start: number;
  /** The window, as given (ISO 8601) and in milliseconds. */
  duration: string;
  durationMs: number;
  /** Cluster ids offered the edges at the start, before any other. */
  canaries: string[];
  haltAfter: HaltAfter;
  state: RolloutState;
  /** Why it was last halted, resumed or cancelled, and when (ms); null until then. */
  reason: string | null;
  stateAt: number | null;
  /** The counts that halted it (a halt by the service), kept for the risk's message. */
  haltCounts: RolloutCounts | null;
  /** The risk's URL while halted: where an administrator reads about the rollout. */
  url: string;
  createdAt: number;
  createdBy: string;
}

/** What a rollout is declared with; the rest (canaries, bounds, its state) has defaults. */
export type RolloutDeclaration = Pick<
  Rollout,
  'id' | 'channel' | 'to' | 'from' | 'start' | 'duration' | 'durationMs' | 'url' | 'createdAt' | 'createdBy'
> &
  Partial<Pick<Rollout, 'canaries' | 'haltAfter' | 'reason'>>;

/** A rollout as declared: active, no canary and the default bounds unless given. */
export function declaredRollout(d: RolloutDeclaration): Rollout {
  return {
    canaries: [],
    haltAfter: DEFAULT_HALT_AFTER,
    reason: null,
    ...d,
    state: 'active',
    stateAt: null,
    haltCounts: null,
  };
}

/** The risk every cluster is served on a halted rollout's edges. */
export const HALTED_RISK = 'PhasedRolloutHalted';

/** How long after its window a rollout still counts the clusters that took it (the time an update may take). */
export const WATCH_AFTER_MS = 3 * 3600_000;

/**
 * Where a cluster's turn falls in a rollout to `to`: a number in [0, 1) from a hash of its id and the
 * target, so the early, riskier turns go to other clusters at each release.
 */
export function placeOf(id: string, to: string): number {
  // The one-shot hash: about half the time of a Hash object, on every request inside a window.
  const digest = hash('sha256', `${to}\n${id.toLowerCase()}`, 'buffer');
  // 48 bits: exact in a double, and far finer than any fleet.
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/**
 * When a rollout first offers its edges to the cluster `id`: canaries at the start, every other
 * cluster at start + place·duration, a request without an id at the end of the window.
 */
export function offeredAt(
  r: Pick<Rollout, 'to' | 'start' | 'durationMs' | 'canaries'>,
  id: string | undefined,
): number {
  if (id === undefined) return r.start + r.durationMs;
  // Cluster ids are UUIDs, compared in lower case as the fleet keeps them.
  if (r.canaries.includes(id.toLowerCase())) return r.start;
  return r.start + Math.floor(placeOf(id, r.to) * r.durationMs);
}

/** The share of the window elapsed at `now`, 0 before the start and 1 from its end (the enhancement's metric). */
export function elapsedShare(r: Pick<Rollout, 'start' | 'durationMs'>, now: number): number {
  if (now < r.start) return 0;
  if (r.durationMs <= 0 || now >= r.start + r.durationMs) return 1;
  return (now - r.start) / r.durationMs;
}

/** Where a rollout stands at `now`, as the API shows it. */
export type RolloutPhase = 'scheduled' | 'rolling' | 'watching' | 'completed' | 'halted' | 'cancelled';

export function phaseOf(r: Pick<Rollout, 'state' | 'start' | 'durationMs'>, now: number): RolloutPhase {
  if (r.state !== 'active') return r.state;
  if (now < r.start) return 'scheduled';
  const end = r.start + r.durationMs;
  if (now < end) return 'rolling';
  return now < end + WATCH_AFTER_MS ? 'watching' : 'completed';
}

/** Whether the rollout's edges are offered to `id` at `now` (a halted or cancelled one offers them to no one). */
export function offers(r: Rollout, id: string | undefined, now: number): boolean {
  if (r.state !== 'active' || now < r.start) return false;
  // The hash only inside the window.
  return now >= r.start + r.durationMs || now >= offeredAt(r, id);
}

/**
 * When the failures of a rollout's clusters are counted from: its start, or its resume, so that the
 * failures an administrator resumed it over do not halt it again.
 */
export const countedSince = (r: Pick<Rollout, 'state' | 'start' | 'stateAt'>): number =>
  r.state === 'active' && r.stateAt !== null ? Math.max(r.start, r.stateAt) : r.start;

/** Whether the edge `from` → `to` (versions) is one of the rollout's. */
export function governs(r: Pick<Rollout, 'to' | 'from'>, from: string, to: string): boolean {
  return to === r.to && (r.from === null || compilePattern(r.from).test(from));
}

/** Whether `counts` reach the rollout's bounds: as many failures as `failures`, or a `fraction` of those that took it. */
export function haltReached(counts: RolloutCounts, haltAfter: HaltAfter): boolean {
  const failed = counts.failing + counts.silent;
  if (failed === 0) return false;
  if (haltAfter.failures !== null && failed >= haltAfter.failures) return true;
  return haltAfter.fraction !== null && counts.took > 0 && failed / counts.took >= haltAfter.fraction;
}

/** The message of the risk a halted rollout is served with. */
export function haltMessage(r: Rollout): string {
  const c = r.haltCounts;
  const why = c
    ? `${c.failing + c.silent} of the ${c.took} clusters that took it failed (${c.failing} failing, ${c.silent} silent)`
    : `an administrator halted it${r.reason ? `: ${r.reason}` : ''}`;
  return `The phased rollout ${r.id} of ${r.to} in ${r.channel} was halted: ${why}. Updating is not recommended until it is resumed.`;
}
