// Phased rollouts as the API shows them: as stored, where each stands now, and what the clusters that
// took it came to (the monitor's last count on this replica).
import { ApiError } from '../../errors.js';
import { elapsedShare, phaseOf, type Rollout } from '../../graph/rollouts.js';
import type { RolloutDoc, RolloutList } from '../../schemas/rollouts.js';
import type { Store } from '../../store/store.js';
import { decodeCursor, encodeCursor, limitOf, type PageRequest } from '../admin/pagination.js';
import type { CountedRollout } from './monitor.js';

const iso = (ms: number): string => new Date(ms).toISOString();

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
    canaries: r.canaries,
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
    private readonly now: () => number,
    private readonly counted: (id: string) => CountedRollout | undefined,
  ) {}

  async get(id: string): Promise<RolloutDoc> {
    const r = await this.store.read((tx) => tx.rollouts.get(id));
    if (!r) throw new ApiError('does_not_exist', `no rollout with id '${id}'`);
    return rolloutDoc(r, this.now(), this.counted(id));
  }

  /** Newest first, a page at a time. */
  async list(q: PageRequest): Promise<RolloutList> {
    const limit = limitOf(q);
    const after = q.cursor && decodeCursor<[number, string]>('rollouts', q.cursor, ['number', 'string']);
    const rows = await this.store.read((tx) =>
      tx.rollouts.list(limit + 1, after ? { createdAt: after[0], id: after[1] } : undefined),
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const now = this.now();
    return {
      rollouts: page.map((r) => rolloutDoc(r, now, this.counted(r.id))),
      ...(rows.length > limit && last && { nextCursor: encodeCursor('rollouts', [last.createdAt, last.id]) }),
    };
  }
}
