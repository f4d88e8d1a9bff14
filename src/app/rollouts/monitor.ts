// The rollout monitor: counts, for each rollout whose clusters may still fail, the clusters of its channel
// that took its edges and where they stand (from their reports, fleet/reportedState.ts: failing, or not
// Completed 3 hours after it started, or silent for an hour), and halts the rollout once the failures
// reach its bounds. It counts again soon after a report is stored (so a report that crosses the bound is
// acted on in about a second, the halt served after the rebuild) and every `everyMs` for the bounds that
// time crosses. Every replica counts; the store lets one of them halt (a conditional update), the others
// find it halted.
import type { Clock } from '../../clock.js';
import type { Log } from '../../log.js';
import {
  countedSince,
  governs,
  haltReached,
  WATCH_AFTER_MS,
  type Rollout,
  type RolloutCounts,
} from '../../graph/rollouts.js';
import { FAILING_AFTER_MS, SILENT_AFTER_MS } from '../fleet/reportedState.js';
import type { FleetQueries, RolloutRows } from '../fleet/fleetQueries.js';
import type { GraphService } from '../graphService.js';
import type { RolloutWrites } from './rolloutWrites.js';

/** The pause between a stored report and the count it triggers: reports arriving together are counted once. */
const AFTER_REPORT_MS = 500;
export const DEFAULT_COUNT_EVERY_MS = 15_000;

export interface CountedRollout extends RolloutCounts {
  countedAt: number;
}

/** The counts of a rollout's clusters from the rows of its channel and target (the sources it governs only). */
export function countsOf(r: Pick<Rollout, 'to' | 'from'>, rows: RolloutRows): RolloutCounts {
  const c: RolloutCounts = { took: 0, completed: 0, progressing: 0, failing: 0, silent: 0 };
  for (const row of rows) {
    if (!governs(r, row.from, r.to)) continue;
    const { completed, progressing, failing, silent } = row.states;
    c.completed += completed;
    c.progressing += progressing;
    c.failing += failing;
    c.silent += silent;
    c.took += completed + progressing + failing + silent + row.polledOnly;
  }
  return c;
}

export class RolloutMonitor {
  /** What this replica last counted, by rollout id. */
  readonly counted = new Map<string, CountedRollout>();
  /** Counts made, halts made here, counts that failed (for tests and metrics). */
  readonly stats = { counts: 0, halts: 0, failed: 0 };
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly service: GraphService,
    private readonly queries: FleetQueries,
    private readonly writes: RolloutWrites,
    private readonly clock: Clock,
    private readonly log: Log,
    private readonly everyMs = DEFAULT_COUNT_EVERY_MS,
  ) {}

  start(): void {
    if (this.closed || this.timer) return;
    this.timer = setInterval(() => void this.check(), this.everyMs);
    this.timer.unref();
  }

  /** A report was stored: counts again shortly. */
  reported(): void {
    if (this.closed || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.check();
    }, AFTER_REPORT_MS);
    this.soon.unref();
  }

  /** Counts every rollout being watched, and halts those past their bounds; one count at a time. */
  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.countAll();
        } while (this.again && !this.closed);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async countAll(): Promise<void> {
    const rollouts = this.service.current?.rollouts ?? [];
    const now = this.clock.now();
    const clock = { silentBefore: now - SILENT_AFTER_MS, timeoutBefore: now - FAILING_AFTER_MS };
    // From the start to WATCH_AFTER_MS after the window; a halted one too, for what its page shows.
    const watched = rollouts.filter(
      (r) => r.state !== 'cancelled' && now >= r.start && now < r.start + r.durationMs + WATCH_AFTER_MS,
    );
    for (const r of watched) {
      if (this.closed) return;
      let counts: RolloutCounts;
      try {
        counts = countsOf(r, await this.queries.rolloutRows(r.channel, r.to, countedSince(r), clock));
      } catch (err) {
        this.stats.failed += 1;
        this.log.warn({ err, rollout: r.id }, 'could not count the clusters of a rollout; counting again later');
        continue;
      }
      this.stats.counts += 1;
      this.counted.set(r.id, { ...counts, countedAt: now });
      if (r.state !== 'active' || !haltReached(counts, r.haltAfter)) continue;
      try {
        if (await this.writes.haltOnFailures(r.id, counts)) {
          this.stats.halts += 1;
          this.log.warn(
            { rollout: r.id, channel: r.channel, to: r.to, counts },
            'halted a phased rollout: its clusters failed',
          );
        }
      } catch (err) {
        this.stats.failed += 1;
        this.log.warn({ err, rollout: r.id }, 'could not halt a rollout; trying again at the next count');
      }
    }
    // Forget what no longer governs.
    const ids = new Set(rollouts.map((r) => r.id));
    for (const id of this.counted.keys()) if (!ids.has(id)) this.counted.delete(id);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    await this.running;
  }
}
