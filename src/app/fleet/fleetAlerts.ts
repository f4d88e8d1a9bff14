// Clusters newly exposed to a risk, and clusters newly stranded, as changes for the change sinks (the
// webhook outbox). After a new graph is served and after polls are written, the fleet is compared with
// the state last compared, kept in the store: a count that grew is a change. The new state is written
// only if the stored one is still the one compared with, in the transaction that hands the changes to
// the sinks, so of several replicas comparing the same state exactly one reports it.
import type { Clock } from '../../clock.js';
import type { FleetGroup } from '../../store/fleet.js';
import type { Store } from '../../store/store.js';
import type { Change } from '../../history/change.js';
import type { ChangeSink } from '../../store/changeSink.js';
import type { GraphService } from '../graphService.js';
import { fleetIndexOf, type FleetIndex } from './fleetIndex.js';

/** Clusters by what they are exposed to or stranded by: `risk␉channel␉arch` and `channel␉arch␉reason`. */
export interface AlertState {
  exposed: Record<string, number>;
  stranded: Record<string, number>;
}

/** Where the state is kept (the fleet's settings). */
const STATE = 'alert-state';
const SEP = '\t';
/** The least time between two comparisons made after polls were written (a new graph compares at once). */
const ALERT_EVERY_MS = 30_000;

/** The fleet's exposure and stranding by key, from its groups and what the served graph shows them. */
export function alertStateOf(index: Pick<FleetIndex, 'standing'>, groups: readonly FleetGroup[]): AlertState {
  const exposed = new Map<string, number>();
  const stranded = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, n: number): void => void m.set(key, (m.get(key) ?? 0) + n);
  for (const g of groups) {
    const s = index.standing(g.channel, g.arch, g.version);
    if (s.stranded) add(stranded, [g.channel, g.arch, s.stranded].join(SEP), g.clusters);
    const risks = new Set(s.conditional.flatMap((c) => c.risks));
    for (const risk of risks) add(exposed, [risk, g.channel, g.arch].join(SEP), g.clusters);
  }
  // Sorted, so that equal states are equal text.
  const sorted = (m: Map<string, number>): Record<string, number> =>
    Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { exposed: sorted(exposed), stranded: sorted(stranded) };
}

/** What grew from `before` to `after`: one change per risk, channel and arch, and per stranded group. */
export function alertChanges(before: AlertState, after: AlertState, at: string): Change[] {
  const changes: Change[] = [];
  for (const [key, clusters] of Object.entries(after.exposed)) {
    const was = before.exposed[key] ?? 0;
    if (clusters <= was) continue;
    const [risk, channel, arch] = key.split(SEP) as [string, string, string];
    changes.push({ kind: 'clusters-exposed', at, risk, channel, arch, detail: { clusters, before: was } });
  }
  for (const [key, clusters] of Object.entries(after.stranded)) {
    const was = before.stranded[key] ?? 0;
    if (clusters <= was) continue;
    const [channel, arch, reason] = key.split(SEP) as [string, string, string];
    changes.push({ kind: 'clusters-stranded', at, channel, arch, detail: { reason, clusters, before: was } });
  }
  return changes;
}

const EMPTY: AlertState = { exposed: {}, stranded: {} };

function parseState(text: string | undefined): AlertState {
  if (text === undefined) return EMPTY;
  try {
    const s = JSON.parse(text) as Partial<AlertState>;
    return { exposed: s.exposed ?? {}, stranded: s.stranded ?? {} };
  } catch {
    return EMPTY; // unreadable: compared with nothing, and replaced
  }
}

export class FleetAlerts {
  /** Comparisons made, and the changes they handed on (for tests and metrics). */
  readonly counts = { checks: 0, changes: 0, failed: 0 };
  private running: Promise<void> | undefined;
  private again = false;
  private lastCheck = 0;
  private closed = false;

  constructor(
    private readonly store: Store,
    /** The fleet's groups as they are now (FleetQueries.groups). */
    private readonly groups: () => Promise<FleetGroup[]>,
    private readonly graph: GraphService,
    private readonly clock: Clock,
    /** The sinks changes go to; read at each comparison, so sinks added later take part. */
    private readonly sinks: readonly ChangeSink[],
    private readonly log: { warn(obj: object, msg: string): void } = { warn: () => {} },
  ) {}

  /** After polls were written: compares, unless it did less than ALERT_EVERY_MS ago (a flush comes every few seconds). */
  afterPolls(): void {
    if (this.clock.now() - this.lastCheck < ALERT_EVERY_MS) return;
    void this.check();
  }

  /** Stops comparing; resolves once the comparison under way has ended. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  /** Compares now; a call during a comparison makes one more after it. Never rejects. */
  check(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        this.lastCheck = this.clock.now();
        await this.once().catch((err: unknown) => {
          this.counts.failed += 1;
          this.log.warn({ err: String(err) }, 'fleet: could not compare exposure and stranding, tried again later');
        });
      } while (this.again && !this.closed);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async once(): Promise<void> {
    const snapshot = this.graph.current;
    if (!snapshot || this.sinks.length === 0) return;
    const index = fleetIndexOf(snapshot);
    this.counts.checks += 1;
    // The groups are read off this thread (fleetQueries.ts), outside the write: the state is replaced
    // only if it is still the one read before them, so of two replicas comparing at once one changes it.
    // Groups read just before another replica's polls were written may still win when the state did not
    // move meanwhile: what they report is then taken back by the next comparison, after the next flush.
    const stored = await this.store.read((tx) => tx.fleet.setting(STATE));
    const after = alertStateOf(index, await this.groups());
    const text = JSON.stringify(after);
    if (text === stored) return;
    await this.store.write(
      async (tx) => {
        if (!(await tx.fleet.compareAndSetSetting(STATE, stored, text))) return; // another replica did
        const changes = alertChanges(parseState(stored), after, new Date(this.clock.now()).toISOString());
        if (changes.length === 0) return;
        for (const sink of this.sinks) await sink(tx, changes);
        this.counts.changes += changes.length;
      },
      { unserved: true },
    );
  }
}
