// Phased rollouts as the API shows them: as stored, where each stands now, and what the clusters that
// took it came to (the monitor's last count on this replica).
import { ApiError } from '../../errors.js';
import { GRAPH_DATA_PREFIX } from '../../graph/phasing.js';
import { elapsedShare, phaseOf, type Rollout } from '../../graph/rollouts.js';
import type { RolloutDoc, RolloutList } from '../../schemas/rollouts.js';
import type { Store } from '../../store/store.js';
import { decodeCursor, encodeCursor, limitOf, type PageRequest } from '../admin/pagination.js';
import type { CountedRollout } from './monitor.js';

/** A time as RFC 3339; one out of Date's range (only a store edited by hand holds one) as its milliseconds. */
const iso = (ms: number): string => (Number.isFinite(new Date(ms).getTime()) ? new Date(ms).toISOString() : String(ms));

/** The share of the window a rollout got to: frozen when it was halted, none once cancelled. */
export function shareOf(r: Rollout, now: number): number {
  if (r.state === 'cancelled') return 0;
  return elapsedShare(r, r.state === 'halted' && r.stateAt !== null ? r.stateAt : now);
}

export function rolloutDoc(r: Rollout, now: number, counted: CountedRollout | undefined): RolloutDoc {
  return {
    id: r.id,
    channel: r.channel,
    to: r.to,
    from: r.from,
    start: iso(r.start),
    end: iso(r.start + r.durationMs),
    duration: r.duration,
    // A cluster id lets anyone poll as that cluster: the public read says how many, not which.
    canaries: r.canaries.length,
    haltAfter: r.haltAfter,
    state: r.state,
    phase: phaseOf(r, now),
    share: shareOf(r, now),
    reason: r.reason,
    stateAt: r.stateAt === null ? null : iso(r.stateAt),
    haltCounts: r.haltCounts,
    counts: counted ? { ...counted, countedAt: iso(counted.countedAt) } : null,
    url: r.url,
    createdAt: iso(r.createdAt),
    createdBy: r.createdBy,
  };
}

export class RolloutReads {
  constructor(
    private readonly store: Store,
    /** The rollouts served (graph-data's among them, which only a build derives). */
    private readonly served: () => readonly Rollout[],
    private readonly now: () => number,
    private readonly counted: (id: string) => CountedRollout | undefined,
  ) {}

  async get(id: string): Promise<RolloutDoc> {
    const stored = await this.store.read((tx) => tx.rollouts.get(id));
    const served = this.served().find((s) => s.id === id);
    const r = current(stored, served);
    if (!r) throw new ApiError('does_not_exist', `no rollout with id '${id}'`);
    return rolloutDoc(r, this.now(), this.counted(id));
  }

  /** Newest first, a page at a time: those stored, and those graph-data declares, as served. */
  async list(q: PageRequest): Promise<RolloutList> {
    const limit = limitOf(q);
    const after = q.cursor && decodeCursor<[number, string]>('rollouts', q.cursor, ['number', 'string']);
    const served = new Map(this.served().map((r) => [r.id, r]));
    const stored = await this.store.read((tx) => tx.rollouts.all());
    const all = [
      ...stored.map((r) => served.get(r.id) ?? r),
      ...[...served.values()].filter((r) => !stored.some((s) => s.id === r.id)),
    ];
    all.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const from = after
      ? all.findIndex((r) => r.createdAt < after[0] || (r.createdAt === after[0] && r.id < after[1]))
      : 0;
    const rest = from < 0 ? [] : all.slice(from);
    const page = rest.slice(0, limit);
    const last = page[page.length - 1];
    const now = this.now();
    return {
      rollouts: page.map((r) => rolloutDoc(r, now, this.counted(r.id))),
      ...(rest.length > limit && last && { nextCursor: encodeCursor('rollouts', [last.createdAt, last.id]) }),
    };
  }
}

/**
 * A rollout as it stands: as stored (a write is read back before the rebuild serves it), a graph-data
 * one as graph-data declares it in the state stored for it, and one never stored as served.
 */
function current(stored: Rollout | undefined, served: Rollout | undefined): Rollout | undefined {
  if (!stored) return served;
  if (!served || !stored.id.startsWith(GRAPH_DATA_PREFIX)) return stored;
  const { state, reason, stateAt, haltCounts, url } = stored;
  return { ...served, state, reason, stateAt, haltCounts, url };
}
