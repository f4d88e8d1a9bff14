// Poll recording, off the hot path: each graph request with a cluster id updates that cluster's entry
// in a batch held in memory (a Map lookup and a few assignments), and a timer writes the batch to the
// store in the background, a few thousand clusters per transaction. Memory is bounded by the batch's
// cap (ids past it wait for the next batch: counted, not kept), storage by the cap on clusters and the
// retention of silent ones. An id that is not a cluster id (a UUID, as the cluster-version-operator
// sends) is counted, never stored; with hashIds the store holds a keyed hash of each id instead.
import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { CLUSTER_ID_PATTERN } from '../../schemas/clusterId.js';
import { UNSERVED } from '../../schemas/fleet.js';
import type { FlushOutcome, PolledCluster } from '../../store/fleet.js';
import type { Store } from '../../store/store.js';
import { POLLED_VERSION, polledNames, type ServedNames } from './pollNames.js';

export interface FleetSettings {
  /** Store a keyed hash of each cluster id instead of the id. */
  hashIds: boolean;
  /** Clusters the store keeps at most; new ones past it are counted and left out. */
  maxClusters: number;
  /** A cluster silent this long (ms) is forgotten, with its updates. */
  retentionMs: number;
  /** How often the batch is written (ms). */
  flushIntervalMs: number;
  /** Distinct clusters one batch holds at most; polls of others wait for the next batch (counted). */
  maxPending: number;
}

export const DEFAULT_FLEET_SETTINGS: FleetSettings = {
  hashIds: false,
  maxClusters: 1_000_000,
  retentionMs: 30 * 86_400_000,
  flushIntervalMs: 5000,
  maxPending: 200_000,
};

/** How polls were taken since the start, by outcome (the /metrics counter, and the fleet summary's). */
export interface PollCounts {
  recorded: number;
  /** No id, or an empty one. */
  noId: number;
  /** An id that is not a UUID, or a version that is not one. */
  malformed: number;
  /** A new id while the batch was full. */
  batchFull: number;
}

/** A cluster id as the cluster-version-operator sends it: a UUID, in either case. */
const CLUSTER_ID = new RegExp(CLUSTER_ID_PATTERN);
/**
 * Version changes one cluster's entry in a batch keeps at most: a real cluster changes version once
 * an update, minutes apart; more within one flush interval is an id flipping, and is not kept.
 */
const MOVES_PER_BATCH = 2;
/**
 * Clusters written per transaction: the store's write lock is never held long, and on SQLite (whose
 * calls block the thread) requests are served between two transactions.
 */
const CLUSTERS_PER_WRITE = 2000;
/** How often silent clusters are looked for. */
const PRUNE_EVERY_MS = 3_600_000;

/** The counts a flush adds to the store's: polls not taken, and version moves not taken as updates. */
type Unflushed = Omit<PollCounts, 'recorded'> & { implausibleMoves: number };

/** A cluster's polls in the batch (keyed by its id), mutated in place as its polls arrive. */
type Pending = Omit<PolledCluster, 'id'>;

/**
 * Flushes made and failed, the clusters the last one wrote, how long it took; clusters left out over the
 * cap and forgotten to make room at it, and version changes not taken as updates.
 */
export interface FlushStats {
  ok: number;
  failed: number;
  lastClusters: number;
  lastSeconds: number;
  overCap: number;
  evicted: number;
  implausible: number;
}

/**
 * What the server asks of poll recording, wherever it runs: PollRecorder on the serving thread (a
 * store in memory), or WorkerPollRecorder, which hands the polls to a PollRecorder on a worker thread.
 */
export interface FleetRecorder {
  readonly settings: FleetSettings;
  readonly counts: PollCounts;
  readonly flushes: FlushStats;
  /** Clusters waiting in the batch. */
  readonly pendingClusters: number;
  /** Called after a flush that wrote clusters (the fleet alerts look again). */
  onFlushed: ((outcome: FlushOutcome) => void) | undefined;
  /** Takes one answered graph request's parameters and what it was answered from (see PollRecorder.record). */
  record(id: unknown, version: unknown, channel: string, arch: string, served: ServedNames): void;
  /** Flushes every flushIntervalMs until close. */
  start(): void;
  /** Writes what the batch holds now; the outcome, or undefined when nothing was written. */
  flush(): Promise<FlushOutcome | undefined>;
  /** Stops the flushes and writes what is left. */
  close(): Promise<void>;
}

export class PollRecorder implements FleetRecorder {
  readonly counts: PollCounts = { recorded: 0, noId: 0, malformed: 0, batchFull: 0 };
  /** Flushes made and failed, the clusters the last one wrote, and how long it took. */
  readonly flushes: FlushStats = {
    ok: 0,
    failed: 0,
    lastClusters: 0,
    lastSeconds: 0,
    overCap: 0,
    evicted: 0,
    implausible: 0,
  };
  /** Called after a flush that wrote clusters (the fleet alerts look again). */
  onFlushed: ((outcome: FlushOutcome) => void) | undefined;
  private pending = new Map<string, Pending>();
  /** The counts not yet added to the store's (each replica adds its own). */
  private unflushed: Unflushed = { noId: 0, malformed: 0, batchFull: 0, implausibleMoves: 0 };
  private flushing: Promise<FlushOutcome | undefined> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastPrune = 0;
  private hashKey: Buffer | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Pick<Clock, 'now'>,
    readonly settings: FleetSettings = DEFAULT_FLEET_SETTINGS,
    private readonly log: { warn(obj: object, msg: string): void } = { warn: () => {} },
  ) {}

  /** Clusters waiting in the batch. */
  get pendingClusters(): number {
    return this.pending.size;
  }

  /**
   * Takes one answered graph request's parameters. `id` and `version` are as the query gave them
   * (undefined when absent; a list when repeated, which is malformed); channel and arch are the
   * checked ones the answer was made for, from `served`: names it does not serve are recorded as one.
   */
  record(id: unknown, version: unknown, channel: string, arch: string, served: ServedNames): void {
    const names = polledNames(served, channel, arch, version);
    this.take(id, names.version, names.channel, names.arch, this.clock.now());
  }

  /** Takes a poll whose names were bounded where it was answered (record, or the serving thread of a worker). */
  take(id: unknown, version: unknown, channel: string, arch: string, at: number): void {
    if (id === undefined || id === '') {
      this.counts.noId += 1;
      this.unflushed.noId += 1;
      return;
    }
    if (
      typeof id !== 'string' ||
      !CLUSTER_ID.test(id) ||
      (version !== undefined &&
        (typeof version !== 'string' || !(POLLED_VERSION.test(version) || version === UNSERVED)))
    ) {
      this.counts.malformed += 1;
      this.unflushed.malformed += 1;
      return;
    }
    const now = at;
    const key = id.toLowerCase();
    const p = this.pending.get(key);
    if (p) {
      if (version !== undefined && version !== p.version) {
        // A move on another arch, or past the few a batch keeps, is no update (the store checks the rest).
        if (p.version !== undefined && arch === p.arch && p.moves.length < MOVES_PER_BATCH)
          p.moves.push({ from: p.version, to: version, lastAtFrom: p.lastSeen, firstAtTo: now });
        else if (p.version !== undefined) this.unflushed.implausibleMoves += 1;
        p.version = version;
        p.versionSince = now;
        p.firstVersion ??= version;
      }
      p.channel = channel;
      p.arch = arch;
      p.lastSeen = now;
      p.polls += 1;
    } else if (this.pending.size < this.settings.maxPending) {
      this.pending.set(key, {
        channel,
        arch,
        firstVersion: version,
        version,
        firstSeen: now,
        lastSeen: now,
        versionSince: now,
        polls: 1,
        moves: [],
      });
    } else {
      this.counts.batchFull += 1;
      this.unflushed.batchFull += 1;
      return;
    }
    this.counts.recorded += 1;
  }

  /** Polls turned away before they reached the batch (a worker's backlog full): counted as batch full. */
  refused(polls: number): void {
    this.counts.batchFull += polls;
    this.unflushed.batchFull += polls;
  }

  /** Flushes every flushIntervalMs until close. */
  start(): void {
    this.timer = setInterval(() => void this.flush(), this.settings.flushIntervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  /**
   * Writes the batch to the store (one flush at a time; a call during one joins it). A batch the store
   * could not take goes back into the next one, so a database that is away loses no poll it can hold.
   */
  flush(): Promise<FlushOutcome | undefined> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async write(): Promise<FlushOutcome | undefined> {
    const batch = this.pending;
    const counts = this.unflushed;
    const anyCount = Object.values(counts).some((n) => n > 0);
    if (batch.size === 0 && !anyCount && !this.pruneDue()) return;
    this.pending = new Map();
    this.unflushed = { noId: 0, malformed: 0, batchFull: 0, implausibleMoves: 0 };
    const started = process.hrtime.bigint();
    const total: FlushOutcome = { written: 0, added: 0, evicted: 0, overCap: 0, updates: 0, implausible: 0 };
    const entries = [...batch];
    let done = 0;
    /** Entries of new clusters that found no room in their chunk, by stored id: admitted after every chunk. */
    const waiting = new Map<string, [string, Pending]>();
    const add = (outcome: FlushOutcome): void => {
      for (const k of Object.keys(total) as Array<keyof FlushOutcome>) total[k] += outcome[k];
    };
    try {
      const key = this.settings.hashIds ? await this.key() : undefined;
      // Counted once a flush: replicas flushing at once may together pass the cap by a flush's new clusters.
      let room = this.settings.maxClusters - (await this.store.read((tx) => tx.fleet.count()));
      // Clusters not seen since the batch began may make room; every cluster the flush writes was seen since.
      const since = entries.reduce((min, [, p]) => Math.min(min, p.firstSeen), Infinity);
      for (; done < entries.length || done === 0; done += CLUSTERS_PER_WRITE) {
        const chunk = entries.slice(done, done + CLUSTERS_PER_WRITE);
        const polledChunk = chunk.map(([id, p]) => polled(id, p, key));
        const entryOf = new Map(polledChunk.map((c, i) => [c.id, chunk[i]!]));
        const first = done === 0;
        const outcome = await this.store.write(
          async (tx) => {
            const o = await tx.fleet.merge(polledChunk, room);
            const moves = o.implausible + (first ? counts.implausibleMoves : 0);
            if (first)
              await tx.fleet.addCounts({ noId: counts.noId, malformed: counts.malformed, batchFull: counts.batchFull });
            await tx.fleet.addCounts({ implausibleMoves: moves });
            return o;
          },
          { unserved: true },
        );
        room -= outcome.added;
        add(outcome);
        for (const c of outcome.waiting) waiting.set(c.id, entryOf.get(c.id)!);
        if (entries.length === 0) break;
        await new Promise((resolve) => setImmediate(resolve)); // the requests that came meanwhile first
      }
      const late = [...waiting.values()];
      for (let i = 0; i < late.length; i += CLUSTERS_PER_WRITE) {
        const chunk = late.slice(i, i + CLUSTERS_PER_WRITE).map(([id, p]) => polled(id, p, key));
        const outcome = await this.store.write(
          async (tx) => {
            const o = await tx.fleet.admit(chunk, since);
            await tx.fleet.addCounts({ overCap: o.overCap, evicted: o.evicted, implausibleMoves: o.implausible });
            return o;
          },
          { unserved: true },
        );
        add(outcome);
        for (const c of chunk) waiting.delete(c.id);
      }
      if (this.pruneDue()) {
        this.lastPrune = this.clock.now();
        const before = this.lastPrune - this.settings.retentionMs;
        // Clusters silent since then are forgotten, and the reports of clusters that stopped reporting.
        await this.store.write(async (tx) => (await tx.fleet.prune(before)) + (await tx.fleetReports.prune(before)), {
          unserved: true,
        });
      }
    } catch (err) {
      this.flushes.failed += 1;
      // What was not written waits for the next flush, merged with the polls that came meanwhile.
      for (const [id, older] of [...waiting.values(), ...entries.slice(done)]) this.putBack(id, older);
      if (done === 0) for (const k of Object.keys(counts) as Array<keyof typeof counts>) this.unflushed[k] += counts[k];
      this.log.warn(
        { err: String(err), clusters: entries.length - done },
        'fleet: could not write the polls, kept for the next flush',
      );
      return undefined;
    }
    this.flushes.ok += 1;
    this.flushes.lastClusters = entries.length;
    this.flushes.lastSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.flushes.overCap += total.overCap;
    this.flushes.evicted += total.evicted;
    this.flushes.implausible += total.implausible + counts.implausibleMoves;
    if (total.written > 0) this.onFlushed?.(total);
    return total;
  }

  private pruneDue(): boolean {
    return this.clock.now() - this.lastPrune >= PRUNE_EVERY_MS;
  }

  /** An unwritten entry back into the batch, before the polls of it that came since. */
  private putBack(id: string, older: Pending): void {
    const newer = this.pending.get(id);
    if (!newer) {
      if (this.pending.size < this.settings.maxPending) this.pending.set(id, older);
      return;
    }
    const crossed =
      older.version !== undefined && newer.firstVersion !== undefined && older.version !== newer.firstVersion;
    const movedInNewer =
      newer.version !== undefined && (crossed || newer.moves.length > 0 || older.version === undefined);
    const cross = crossed
      ? [{ from: older.version!, to: newer.firstVersion!, lastAtFrom: older.lastSeen, firstAtTo: newer.firstSeen }]
      : [];
    newer.moves = [...older.moves, ...cross, ...newer.moves];
    // A database away for long must not let an id flipping versions grow its entry: the rest are counted.
    if (newer.moves.length > MOVES_PER_BATCH) {
      this.unflushed.implausibleMoves += newer.moves.length - MOVES_PER_BATCH;
      newer.moves.length = MOVES_PER_BATCH;
    }
    newer.versionSince = movedInNewer ? newer.versionSince : older.versionSince;
    newer.firstVersion = older.firstVersion ?? newer.firstVersion;
    newer.version ??= older.version;
    newer.firstSeen = older.firstSeen;
    newer.polls += older.polls;
  }

  /** The key ids are hashed with, made once and kept in the store so that every replica hashes alike. */
  private async key(): Promise<Buffer> {
    this.hashKey ??= Buffer.from(
      await this.store.write((tx) => tx.fleet.settingOnce('hash-key', randomBytes(32).toString('base64')), {
        unserved: true,
      }),
      'base64',
    );
    return this.hashKey;
  }

  /** How a cluster id is stored: itself (lower case), or its keyed hash. */
  async storedId(id: string): Promise<string> {
    return storedIdOf(id, this.settings.hashIds ? await this.key() : undefined);
  }
}

/** Whether `id` is a cluster id a poll may carry. */
export const isClusterId = (id: string): boolean => CLUSTER_ID.test(id);

function storedIdOf(id: string, key: Buffer | undefined): string {
  const lower = id.toLowerCase();
  return key ? createHmac('sha256', key).update(lower).digest('hex').slice(0, 32) : lower;
}

function polled(id: string, p: Pending, key: Buffer | undefined): PolledCluster {
  return { id: storedIdOf(id, key), ...p };
}
