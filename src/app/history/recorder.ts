// Graph history's writer: every snapshot the graph service swaps in is compared, off the request path,
// with the state the store last recorded, and the changes are written in one transaction together
// with the new state, each sink (the webhook outbox) taking them in that same transaction. The stored
// mark makes the write happen once across replicas: the first to record a state writes it, the others
// find it recorded. A failure is logged and the next swap records what was missed; serving never waits.
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/store.js';
import type { GraphSnapshot } from '../snapshot.js';
import type { Log } from '../../log.js';
import { attribute } from './causes.js';
import type { Change } from '../../history/change.js';
import type { ChangeSink } from '../../store/changeSink.js';
import {
  ALL_RELEASES,
  viewStates,
  serializeView,
  splitViewKey,
  stateHash,
  viewHash,
  type ViewState,
} from './viewState.js';

const isAllReleases = (key: string): boolean => splitViewKey(key).channel === ALL_RELEASES;
import { EMPTY_VIEW, viewDiff } from './viewDiff.js';

export const DEFAULT_HISTORY_RETENTION_MS = 90 * 24 * 3600 * 1000;

export interface HistorySettings {
  /** How long changes are kept. */
  retentionMs: number;
}

/** What one recording did: changes written, or why none were. */
export type RecordOutcome =
  | { recorded: number }
  /** `raced`: another replica stored views meanwhile; the snapshot is compared again. */
  | { skipped: 'baseline' | 'already-recorded' | 'older-than-recorded' | 'raced' };

export class HistoryRecorder {
  /** The newest snapshot not recorded yet, and the loop recording. */
  private pending: GraphSnapshot | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Recordings that failed (logged; the next swap records what they missed). */
  failures = 0;
  lastOutcome: RecordOutcome | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: HistorySettings,
    private readonly log: Pick<Log, 'warn'>,
    /** Take every batch of changes inside the transaction that stores it; read at each recording, so sinks added later take part. */
    private readonly sinks: readonly ChangeSink[] = [],
  ) {}

  /** Records every snapshot `service` swaps in from now on. */
  follow(service: { onSwap(listener: (s: GraphSnapshot) => void): void }): void {
    service.onSwap((snapshot) => this.enqueue(snapshot));
  }

  /** Queues a snapshot; only the newest queued one is recorded (it holds every change before it). */
  enqueue(snapshot: GraphSnapshot): void {
    if (this.closed) return;
    this.pending = snapshot;
    this.running ??= this.loop();
  }

  /** Resolves once every snapshot queued so far was recorded (or failed to be). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  private async loop(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve)); // off the swap, and off the request that caused it
    try {
      while (this.pending) {
        const snapshot = this.pending;
        this.pending = undefined;
        try {
          this.lastOutcome = await this.record(snapshot);
          if ('skipped' in this.lastOutcome && this.lastOutcome.skipped === 'raced') this.pending ??= snapshot;
        } catch (err) {
          this.failures += 1;
          this.log.warn(
            { err: (err as Error).message },
            'graph history could not be recorded; the next change records it',
          );
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  /** Compares `snapshot` with the recorded state and writes the changes, the new state and the sinks' rows. */
  async record(snapshot: GraphSnapshot): Promise<RecordOutcome> {
    // The views a channel at a time, requests served between two steps; of the views, only those whose
    // state differs from the stored one are kept (a full-size graph's states are tens of megabytes).
    const { storedBefore, baseline } = await this.store.read(async (tx) => ({
      storedBefore: await tx.history.viewHashes(),
      baseline: (await tx.history.mark()) === undefined,
    }));
    // The first state recorded is compared with nothing: its views are kept as text only.
    const kept = new Map<string, { text: string; view: ViewState | undefined }>();
    const hashes = new Map<string, string>();
    for (const step of viewStates(snapshot.graph, snapshot.channels)) {
      if (step) {
        const [key, view] = step;
        const text = serializeView(view);
        const h = viewHash(text);
        hashes.set(key, h);
        if (storedBefore.get(key) !== h) kept.set(key, { text, view: baseline ? undefined : view });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const hash = stateHash(hashes);
    const at = snapshot.builtAt.toISOString();
    const now = new Date(this.clock.now());
    return this.store.write(
      async (tx): Promise<RecordOutcome> => {
        const mark = await tx.history.mark();
        const marks = { auditMark: snapshot.auditMark, storeMark: snapshot.storeMark };
        // A replica that built before a write another one already recorded: its state is older.
        if (mark && (marks.auditMark < mark.auditMark || marks.storeMark < mark.storeMark))
          return { skipped: 'older-than-recorded' };
        if (mark?.stateHash === hash) {
          // Writes that changed nothing served (an internal channel, say) are not the cause of later changes.
          if (marks.auditMark > mark.auditMark || marks.storeMark > mark.storeMark)
            await tx.history.setMark({ ...mark, ...marks });
          return { skipped: 'already-recorded' };
        }
        const stored = await tx.history.viewHashes();
        // Another replica recorded views since they were read: compare again, with what it stored.
        if (stored.size !== storedBefore.size || [...stored].some(([k, h]) => storedBefore.get(k) !== h))
          return { skipped: 'raced' };
        // Only the views whose state differs are read back, compared and written.
        const changed = [...new Set([...stored.keys(), ...hashes.keys()])]
          .filter((key) => stored.get(key) !== hashes.get(key))
          .sort();
        const before = new Map<string, ViewState>();
        for (const key of [...new Set([...changed, ...[...stored.keys()].filter(isAllReleases)])]) {
          const { channel, arch } = splitViewKey(key);
          const text = stored.has(key) ? await tx.history.viewState(channel, arch) : undefined;
          if (text !== undefined) before.set(key, JSON.parse(text) as ViewState);
        }
        for (const key of changed) {
          const { channel, arch } = splitViewKey(key);
          const text = kept.get(key)?.text;
          if (text === undefined) await tx.history.deleteView(channel, arch);
          else await tx.history.putView(channel, arch, text, hashes.get(key)!);
        }
        await tx.history.setMark({ stateHash: hash, ...marks, recordedAt: now.toISOString() });
        await tx.history.prune(new Date(now.getTime() - this.settings.retentionMs).toISOString());
        // The first state recorded is where history starts: nothing before it to compare with.
        if (!mark) return { skipped: 'baseline' };
        const knownBefore = new Set<string>();
        for (const [key, view] of before) {
          const { channel, arch } = splitViewKey(key);
          if (channel === ALL_RELEASES) for (const v of view.releases) knownBefore.add(`${arch}/${v}`);
        }
        const audit = await tx.audit.between(mark.auditMark, snapshot.auditMark);
        const ctx = {
          knownBefore,
          channels: snapshot.input.channels,
          blockedEdges: snapshot.input.blockedEdges,
          audit,
        };
        const changes: Change[] = [];
        for (const key of changed) {
          const { channel, arch } = splitViewKey(key);
          if (channel === ALL_RELEASES) continue;
          const diff = viewDiff(before.get(key) ?? EMPTY_VIEW, kept.get(key)?.view ?? EMPTY_VIEW, {
            channel,
            arch,
            at,
          });
          changes.push(...attribute(diff, ctx));
        }
        if (changes.length) {
          await tx.history.add(changes);
          for (const sink of this.sinks) await sink(tx, changes);
        }
        return { recorded: changes.length };
      },
      // Not news to the other replicas: their graphs did not change.
      { unserved: true },
    );
  }
}
